/** Runs the pipeline daemon (runtime/daemon.ts does config, logger, signals) with the standard maintenance. */
import { runDaemon } from '../../../runtime/daemon';
import { loadPipelineConfig } from './config';
import { startPipeline } from './daemon';
import { standardMaintainer } from './standard-maintainer';

export function runPipelineDaemon(options: Parameters<typeof standardMaintainer>[1] = {}): void {
  runDaemon({
    name: 'pipeline',
    loadConfig: () => loadPipelineConfig(),
    start: (config, logger) => startPipeline(config, logger, { maintainViews: standardMaintainer(logger, options) }),
    describe: (_pipeline, config) => ({ partitions: config.partitions, healthPort: config.healthPort }),
  });
}
