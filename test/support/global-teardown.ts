import fs from 'node:fs';
import path from 'node:path';
import { removeLocalServices, stopLocalServices } from './local-services';

/** Stops every worker's throwaway services and deletes their data (KEEP_TEST_DATA=1 keeps it for a post-mortem). */
export default function globalTeardown(): void {
  const root = process.env.TEST_ROOT_DIR;
  if (!root || !fs.existsSync(root)) return;
  for (const worker of fs.readdirSync(root)) {
    const dataDir = path.join(root, worker);
    if (process.env.KEEP_TEST_DATA) stopLocalServices(dataDir);
    else removeLocalServices(dataDir);
  }
  if (!process.env.KEEP_TEST_DATA) fs.rmSync(root, { recursive: true, force: true });
}
