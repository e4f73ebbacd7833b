/** Composition root of the query API: config, logger, listen, graceful shutdown. */
import { exitOnSignals, loadConfigOrExit } from '../../../runtime/lifecycle';
import { createLogger } from '../../../runtime/logger';
import { startApi } from './api';
import { loadApiConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit('query-api', () => loadApiConfig());
  const logger = createLogger('query-api', config.logLevel);
  const api = await startApi(config, logger);
  logger.info({ url: api.url }, 'query API listening');
  exitOnSignals(logger, () => api.stop(), config.shutdownTimeoutMs, { exitWithParent: config.exitWithParent });
}

void main().catch((err: unknown) => {
  process.stderr.write(`query-api: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
