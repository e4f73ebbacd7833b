/** The daemon's scheduled jobs, each a plain function of pipeline/src/jobs (tested directly). */
import type { NatsConnection } from '@nats-io/nats-core';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { Db } from '../../../storage/db';
import type { Logger } from '../../../runtime/logger';
import { runSpendPullJob } from '../jobs/ad-spend-job';
import { fitAllStores } from '../jobs/data-driven-fit';
import { pruneDeadLetters, pruneTombstones } from '../jobs/housekeeping';
import { runPendingPrivacyRequests } from '../jobs/privacy-requests';
import { reconcileRecentDays } from '../jobs/reconcile-recent';
import { pruneRawEvents } from '../jobs/retention';
import type { Job } from '../jobs/scheduler';
import type { PipelineConfig } from './config';
import type { PipelineMetrics } from './metrics';
import { secretBoxOf } from './secret-box-of';

export function standardJobs(
  db: Db,
  config: PipelineConfig,
  logger: Logger,
  metrics: PipelineMetrics,
  nc?: NatsConnection,
  jsm?: JetStreamManager,
): Job[] {
  return [
    {
      name: 'reconcile-recent',
      cron: config.jobs.reconcileCron,
      run: async () => {
        const results = await reconcileRecentDays(
          db,
          { days: config.jobs.reconcileDays, repair: config.jobs.reconcileRepair, now: Date.now() },
          logger,
        );
        const drift = results.reduce((n, r) => n + r.drift, 0);
        metrics.reconcileDrift.set(drift);
        metrics.reconcileRepairs.inc(results.filter((r) => r.repaired).length);
        return { stores: results.length, drift };
      },
    },
    {
      name: 'retention',
      cron: config.jobs.retentionCron,
      run: async () => {
        const pruned = await pruneRawEvents(db, { olderThanDays: config.jobs.rawEventRetentionDays, now: Date.now() });
        metrics.rawEventsPruned.inc(pruned);
        return { pruned };
      },
    },
    {
      name: 'data-driven-fit',
      cron: config.jobs.dataDrivenFitCron,
      run: async () => {
        const fits = await fitAllStores(db, { now: Date.now() });
        return {
          stores: fits.length,
          fitted: fits.reduce((n, f) => n + f.goals.filter((g) => g.fitted).length, 0),
          recomputed: fits.filter((f) => f.recomputed_conversions > 0).length,
        };
      },
    },
    {
      name: 'housekeeping',
      cron: config.jobs.housekeepingCron,
      run: async () => ({
        ...(await pruneDeadLetters(db, { olderThanDays: config.jobs.deadLetterRetentionDays, now: Date.now() })),
        tombstones: await pruneTombstones(db, { olderThanDays: config.jobs.tombstoneDays, now: Date.now() }),
      }),
    },
    {
      name: 'privacy-requests',
      cron: config.jobs.privacyCron,
      run: () =>
        runPendingPrivacyRequests({ db, nc, jsm }, logger, (kind, outcome, seconds) =>
          metrics.privacyRequests.observe({ kind, outcome }, seconds),
        ),
    },
    ...(nc
      ? [
          {
            name: 'spend-pull',
            cron: config.jobs.spendPullCron,
            run: () =>
              runSpendPullJob(
                { db, nc, box: secretBoxOf(config.secretsKey), partitions: config.eventPartitions },
                config.spendPull,
              ),
          },
        ]
      : []),
  ];
}
