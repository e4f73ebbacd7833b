/** Composition root of the pipeline daemon. */
import { runPipelineDaemon } from './run-pipeline';

runPipelineDaemon();
