/**
 * Preloaded into a benchmark's services by `BENCH_ALLOC_PROFILE=<dir>` (bench-env.ts): samples what the process
 * allocates, objects already collected included (a heap snapshot and `--heap-prof` show only what is still alive),
 * and writes a `.heapprofile` into that directory when it exits (Chrome DevTools' Memory tab opens it). This is
 * where a daemon's garbage comes from (docs/operations.md, Performance, "What the garbage collector does").
 */
import fs from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

/** One sample per 32 KB allocated on average: a few thousand per second of a busy daemon. */
const SAMPLING_INTERVAL_BYTES = 32 * 1024;

const dir = process.env.BENCH_ALLOC_PROFILE;
if (dir) {
  fs.mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: SAMPLING_INTERVAL_BYTES,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // A session on the process's own thread is answered synchronously, so the profile is written before the exit.
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (err) return;
      const name = `${path.basename(process.argv[1] ?? 'node', '.ts')}-${process.pid}.heapprofile`;
      fs.writeFileSync(path.join(dir, name), JSON.stringify(result.profile));
    });
  });
}
