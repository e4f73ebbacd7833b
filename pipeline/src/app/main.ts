/**
 * Composition root of the pipeline daemon: config, logger, the pipeline, signals.
 * SIGTERM/SIGINT drain within PIPELINE_SHUTDOWN_TIMEOUT_MS; a second signal exits at once.
 */
import { exitOnSignals, loadConfigOrExit } from '../../../runtime/lifecycle';
import { createLogger } from '../../../runtime/logger';
import { loadPipelineConfig } from './config';
import { startPipeline } from './daemon';
import { standardMaintainer } from './standard-maintainer';

async function main(): Promise<void> {
  const config = loadConfigOrExit('pipeline', () => loadPipelineConfig());
  const logger = createLogger('pipeline', config.logLevel);
  const pipeline = await startPipeline(config, logger, { maintainViews: standardMaintainer(logger) });
  logger.info({ partitions: config.partitions, healthPort: config.healthPort }, 'pipeline started');
  exitOnSignals(logger, () => pipeline.stop(), config.shutdownTimeoutMs, { exitWithParent: config.exitWithParent });
  pipeline.done.catch((err: unknown) => {
    logger.fatal({ err }, 'pipeline failed');
    void pipeline.stop().finally(() => process.exit(1));
  });
}

void main().catch((err: unknown) => {
  process.stderr.write(`pipeline: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
