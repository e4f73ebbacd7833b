/**
 * A batch whose persons keep being merged by another batch past its identity lock rounds (docs/decisions.md,
 * Identity, "A batch works only on persons it has locked"): with the rounds lowered to one, another batch merges
 * the person the first resolved between its lookup and its lock. The first then fails as retryable, with a warn
 * line and `pipeline_identity_locks_exhausted_total`; the batch flow retries it, and the views end as a
 * recomputation of the store gives them.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { from, lastValueFrom, toArray } from 'rxjs';
import { createLogger, silentLogger } from '../../runtime/logger';
import type { Db } from '../../storage/db';
import { createBatchWriter, type MaintainViews } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { createPipelineMetrics } from '../../pipeline/src/app/metrics';
import { standardMaintainer } from '../../pipeline/src/app/standard-maintainer';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { type BatchItem, buildPipeline } from '../../pipeline/src/stream/build-pipeline';
import { batchItem, queryThrough } from '../support/batch-items';
import { testEnv } from '../support/env';
import { createTestStore, testDb } from '../support/harness';
import { checkoutCompleted, leadForm } from '../support/journeys';

let db: Db;
let nc: NatsConnection;
beforeAll(async () => {
  db = testDb();
  nc = await connect({ servers: testEnv.natsUrl });
});
afterAll(async () => {
  await nc.close();
  await db.close();
});

it('a batch that runs out of identity lock rounds is retried whole, counted, and the views end right', async () => {
  const storeId = (await createTestStore(db)).store.store_id;
  const lead = (client: string, email: string, minute: number): BatchItem => {
    const e = leadForm(
      { client, at: new Date(Date.parse('2026-03-02T10:00:00Z') + minute * 60_000).toISOString() },
      email,
    );
    return batchItem(storeId, 0, e.name, e);
  };
  // Two persons: a0 (email two) and c1 (email one).
  const plain = createBatchWriter(db, createViewMaintainer(silentLogger()));
  await plain.applyBatch([lead('a0', 'two@example.com', 0), lead('c1', 'one@example.com', 1)]);

  // The batch under test: c3 gives email one, joining c1's person. Just before it locks that person, another
  // batch (c1 giving email two) merges c1 into a0 and commits: the person it resolved is gone.
  const metrics = createPipelineMetrics();
  const warnings: string[] = [];
  const logger = createLogger('pipeline', 'warn', { write: (line: string) => void warnings.push(line) });
  const maintain = standardMaintainer(logger, { identityLockRounds: 1 })(metrics, jetstream(nc));
  let merged = false;
  const racing: MaintainViews = (tx, facts, afterCommit) =>
    maintain(
      queryThrough(tx, async (tag, sql, params) => {
        if (tag === 'identity.lock' && !merged) {
          merged = true;
          await plain.applyBatch([lead('c1', 'two@example.com', 2)]);
        }
        return tx(tag, sql, params);
      }),
      facts,
      afterCommit,
    );
  const writer = createBatchWriter(db, racing);
  let attempts = 0;
  const ports = { ...writer, applyBatch: (items: readonly BatchItem[]) => (attempts++, writer.applyBatch(items)) };
  const acked: number[] = [];
  const item = lead('c3', 'one@example.com', 3);
  const msg = { ...item.msg, ack: () => void acked.push(item.msg.seq) };

  const reports = await lastValueFrom(
    buildPipeline(from([msg]), ports, { flushMs: 5, batchMax: 10, retries: 3, retryBaseMs: 10, nakDelayMs: 1000 }).pipe(
      toArray(),
    ),
  );

  expect(merged).toBe(true);
  expect(attempts).toBe(2);
  expect(reports.map((r) => r.type)).toEqual(['committed']);
  expect(acked).toEqual([msg.seq]);
  expect((await metrics.identityLocksExhausted.get()).values[0]!.value).toBe(1);
  expect(warnings.filter((w) => w.includes('identity locks exhausted'))).toHaveLength(1);
  const persons = await db.query<{ client_id: string; person_id: string }>(
    'test.persons',
    'select client_id, person_id from clients where store_id = $1 order by 1',
    [storeId],
  );
  expect(persons).toEqual(['a0', 'c1', 'c3'].map((c) => ({ client_id: c, person_id: 'a0' })));
  expect((await reconcileStore(db, storeId)).drift).toEqual([]);
});

it('a batch of 5,000 new buyers takes its locks in one transaction (the lock table holds them)', async () => {
  // Each buyer is a new person with new identity keys, each locked for the transaction: some 20,000 advisory
  // locks, beyond PostgreSQL's default lock table. The local PostgreSQL is started with room for them
  // (infra/local/start-postgres.sh; docs/operations.md, PostgreSQL settings).
  const storeId = (await createTestStore(db)).store.store_id;
  const at = Date.parse('2026-03-02T10:00:00Z');
  const items = Array.from({ length: 5000 }, (_, i) => {
    const e = checkoutCompleted(
      { client: `buyer-${i}`, at: new Date(at + i * 1000).toISOString() },
      { orderId: `90000${i}`, token: `tok${i}`, amount: 10, email: `buyer${i}@example.com` },
    );
    return batchItem(storeId, i % 16, e.name, e);
  });
  const outcome = await createBatchWriter(db, createViewMaintainer(silentLogger())).applyBatch(items);
  expect(outcome.stored).toBe(5000);
  const [persons] = await db.query<{ n: string }>(
    'test.buyers',
    'select count(distinct person_id) as n from clients where store_id = $1',
    [storeId],
  );
  expect(persons!.n).toBe('5000');
}, 120_000);
