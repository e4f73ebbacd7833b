/** Composition root of the webhook delivery worker (runtime/daemon.ts does config, logger, signals). */
import { runDaemon } from '../../../runtime/daemon';
import { loadWebhookWorkerConfig } from './config';
import { startWebhookWorker } from './worker';

runDaemon({
  name: 'webhook-worker',
  loadConfig: () => loadWebhookWorkerConfig(),
  start: (config, logger) => startWebhookWorker(config, logger),
  describe: (_worker, config) => ({
    concurrency: config.concurrency,
    timeoutMs: config.timeoutMs,
    healthPort: config.healthPort,
  }),
});
