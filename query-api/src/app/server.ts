/** Composition root of the query API: config, logger, listen, graceful shutdown (STYLE 44). */
import { ConfigError } from '../../../infra/runtime/env';
import { createLogger } from '../../../infra/runtime/logger';
import { startApi } from './api';
import { loadApiConfig } from './config';

async function main(): Promise<void> {
  let config;
  try {
    config = loadApiConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`query-api: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger('query-api', config.logLevel);
  const api = await startApi(config, logger);
  logger.info({ url: api.url }, 'query API listening');

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (++signals > 1) process.exit(130);
    logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 5000).unref();
    void api.stop().then(() => process.exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

void main().catch((err: unknown) => {
  process.stderr.write(`query-api: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
