/**
 * The pipeline daemon with the analytics views left unmaintained, for `npm run bench -- analytics-cost` only:
 * the difference in throughput is what those views cost.
 */
import { runPipelineDaemon } from '../../pipeline/src/app/run-pipeline';

runPipelineDaemon({ analytics: false });
