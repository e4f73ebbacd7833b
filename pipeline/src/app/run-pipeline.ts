/** Runs the pipeline daemon (runtime/daemon.ts does config, logger, signals) with the standard maintenance. */
import os from 'node:os';
import { runDaemon } from '../../../runtime/daemon';
import { loadPipelineConfig } from './config';
import { startPipeline } from './daemon';
import { standardMaintainer } from './standard-maintainer';

export function runPipelineDaemon(options: Parameters<typeof standardMaintainer>[1] = {}): void {
  runDaemon({
    name: 'pipeline',
    loadConfig: () => loadPipelineConfig(),
    start: (config, logger) => {
      // Only the daemon process lowers its priority (tests run the pipeline inside the test runner). On Linux the
      // niceness is per thread: this is the main thread's, where the daemon's work runs. V8's helper threads keep
      // theirs on purpose: the main thread waits for them in the collector's parallel phases, and lowered too (to
      // 10 or 19), they made a history import 12 to 33 % slower (docs/benchmark-history.md).
      try {
        os.setPriority(config.nice);
      } catch (err) {
        logger.warn({ err, nice: config.nice }, 'could not lower the CPU priority; running at the default');
      }
      return startPipeline(config, logger, { maintainViews: standardMaintainer(logger, options) });
    },
    describe: (_pipeline, config) => ({ partitions: config.partitions, healthPort: config.healthPort }),
  });
}
