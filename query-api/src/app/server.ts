/** Composition root of the query API (runtime/daemon.ts does config, logger, signals). */
import { runDaemon } from '../../../runtime/daemon';
import { startApi } from './api';
import { loadApiConfig } from './config';

runDaemon({
  name: 'query-api',
  loadConfig: () => loadApiConfig(),
  start: (config, logger) => startApi(config, logger),
  describe: (api) => ({ url: api.url }),
});
