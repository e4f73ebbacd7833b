/**
 * The scheduled spend pull (docs/operations.md): every connection of every store, hourly by default, one
 * replica at a time (the scheduler's job lock). Without SECRETS_KEY the job does nothing and says so: the
 * connections' tokens cannot be opened.
 */
import type { NatsConnection } from '@nats-io/nats-core';
import type { Sealer } from '../../../storage/ad-connections';
import type { Db } from '../../../storage/db';
import { adPlatformClients } from '../adapters/ad-platforms/index';
import type { SpendPullConfig } from '../adapters/ad-platforms/config';
import { jetStreamSpendPublisher } from '../adapters/spend-publisher';
import { pullAdSpend } from './ad-spend-pull';

export async function runSpendPullJob(
  deps: { db: Db; nc: NatsConnection; box: Sealer | null; partitions: number },
  config: SpendPullConfig,
): Promise<{ connections: number; rows: number; failed: number; skipped?: string }> {
  if (deps.box === null) return { connections: 0, rows: 0, failed: 0, skipped: 'SECRETS_KEY is not set' };
  const results = await pullAdSpend(
    {
      db: deps.db,
      box: deps.box,
      clients: adPlatformClients(config.platforms),
      publish: jetStreamSpendPublisher(deps.nc, { rowsPerSecond: config.publishRowsPerSecond }),
      partitions: deps.partitions,
      now: Date.now,
    },
    { windowDays: config.windowDays, backfillDays: config.backfillDays },
  );
  return {
    connections: results.length,
    rows: results.reduce((n, r) => n + r.rows, 0),
    failed: results.filter((r) => r.error).length,
  };
}
