/**
 * node-cron scheduling of the housekeeping jobs: no overlapping runs, UTC, named tasks, and a
 * PostgreSQL advisory lock so that with several workers one runs each job at a time.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Db } from '../../../storage/db';
import type { Logger } from '../../../runtime/logger';

export interface Job {
  name: string;
  cron: string;
  run: () => Promise<unknown>;
}

/** Runs `fn` only if no other process holds the job's lock; returns whether it ran. */
export async function withJobLock(
  db: Db,
  name: string,
  fn: () => Promise<unknown>,
): Promise<{ ran: boolean; result?: unknown }> {
  // A session-level lock: held on this one connection for the whole run, released even if the run fails.
  return db.session(async (q) => {
    const [row] = await q<{ ok: boolean }>('job.lock', 'select pg_try_advisory_lock(hashtextextended($1, 42)) as ok', [
      `job:${name}`,
    ]);
    if (!row?.ok) return { ran: false };
    try {
      return { ran: true, result: await fn() };
    } finally {
      await q('job.unlock', 'select pg_advisory_unlock(hashtextextended($1, 42))', [`job:${name}`]);
    }
  });
}

export interface RunningJobs {
  tasks: ScheduledTask[];
  stop(): Promise<void>;
}

export function startJobs(
  db: Db,
  jobs: readonly Job[],
  logger: Logger,
  onResult?: (name: string, ok: boolean, seconds: number) => void,
): RunningJobs {
  const running = new Set<Promise<void>>();
  const tasks = jobs.map((job) =>
    cron.schedule(
      job.cron,
      () => {
        const run = runOnce(job);
        running.add(run);
        return run.finally(() => running.delete(run));
      },
      { name: job.name, noOverlap: true, timezone: 'UTC' },
    ),
  );
  async function runOnce(job: Job): Promise<void> {
    const started = Date.now();
    try {
      const { ran, result } = await withJobLock(db, job.name, job.run);
      if (ran) {
        logger.info({ job: job.name, result, seconds: (Date.now() - started) / 1000 }, 'job finished');
        onResult?.(job.name, true, (Date.now() - started) / 1000);
      }
    } catch (err) {
      logger.error({ err, job: job.name }, 'job failed');
      onResult?.(job.name, false, (Date.now() - started) / 1000);
    }
  }
  return {
    tasks,
    /** Stops scheduling and waits for runs in progress. */
    async stop() {
      for (const t of tasks) {
        await Promise.resolve(t.stop());
        await Promise.resolve(t.destroy());
      }
      await Promise.all([...running]);
    },
  };
}
