import { removeLocalServices, stopLocalServices } from './local-services';

/** Stops the throwaway services and deletes their data (KEEP_TEST_DATA=1 keeps it for a post-mortem). */
export default function globalTeardown(): void {
  const dataDir = process.env.TEST_DATA_DIR;
  if (!dataDir) return;
  if (process.env.KEEP_TEST_DATA) stopLocalServices(dataDir);
  else removeLocalServices(dataDir);
}
