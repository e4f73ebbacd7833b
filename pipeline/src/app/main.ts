/** Composition root of the pipeline daemon (runtime/daemon.ts does config, logger, signals). */
import { runDaemon } from '../../../runtime/daemon';
import { loadPipelineConfig } from './config';
import { startPipeline } from './daemon';
import { standardMaintainer } from './standard-maintainer';

runDaemon({
  name: 'pipeline',
  loadConfig: () => loadPipelineConfig(),
  start: (config, logger) => startPipeline(config, logger, { maintainViews: standardMaintainer(logger) }),
  describe: (_pipeline, config) => ({ partitions: config.partitions, healthPort: config.healthPort }),
});
