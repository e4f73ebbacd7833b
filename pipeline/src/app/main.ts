/**
 * Composition root of the pipeline daemon: config, logger, the pipeline, signals (STYLE 44).
 * SIGTERM/SIGINT drain within PIPELINE_SHUTDOWN_TIMEOUT_MS; a second signal exits at once.
 */
import { ConfigError } from '../../../infra/runtime/env';
import { createLogger } from '../../../infra/runtime/logger';
import { loadPipelineConfig } from './config';
import { startPipeline } from './daemon';
import { standardMaintainer } from './standard-maintainer';

async function main(): Promise<void> {
  let config;
  try {
    config = loadPipelineConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`pipeline: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger('pipeline', config.logLevel);
  const pipeline = await startPipeline(config, logger, { maintainViews: standardMaintainer(logger) });
  logger.info({ partitions: config.partitions, healthPort: config.healthPort }, 'pipeline started');

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    logger.info({ signal }, 'shutting down');
    const hard = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + 5000);
    hard.unref();
    void pipeline.stop().then(() => process.exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  pipeline.done.catch((err: unknown) => {
    logger.fatal({ err }, 'pipeline failed');
    void pipeline.stop().finally(() => process.exit(1));
  });
}

void main().catch((err: unknown) => {
  process.stderr.write(`pipeline: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
