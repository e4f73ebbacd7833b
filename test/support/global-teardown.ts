import fs from 'node:fs';
import { stopLocalServices } from './local-services';

export default function globalTeardown(): void {
  const dataDir = process.env.TEST_DATA_DIR;
  if (!dataDir) return;
  stopLocalServices(dataDir);
  if (!process.env.KEEP_TEST_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
}
