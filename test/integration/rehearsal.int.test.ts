/**
 * The daemon's rehearsal before it takes messages (docs/decisions.md, Operations, "The daemon rehearses before it
 * takes messages"). On a new installation, a daemon started with the default rehearsal leaves no row in any table
 * and says in its metrics how long the rehearsal took; a store that then sends the very history it rehearsed gets
 * views equal to their recomputation. A rehearsal that fails leaves nothing either and is logged; none runs when
 * its count is 0, and no batch starts once its time is up.
 */
import request from 'supertest';
import { migrate } from '../../infra/migrate';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { loadPipelineConfig } from '../../pipeline/src/app/config';
import { rehearse } from '../../pipeline/src/app/rehearsal';
import { rehearsalHistory } from '../../pipeline/src/domain/rehearsal-history';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import type { MaintainViews } from '../../pipeline/src/adapters/pg-batch-writer';
import { standardMaintainer } from '../../pipeline/src/app/standard-maintainer';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { createDb, type Db } from '../../storage/db';
import { createLogger, silentLogger } from '../../runtime/logger';
import {
  baseEnv,
  createTestStore,
  startTestApi,
  startTestPipeline,
  testDb,
  waitFor,
  withFreshDatabase,
} from '../support/harness';
import { pageView, send } from '../support/journeys';

/** The rows of every table of the schema, by table. */
async function rowCounts(db: Db): Promise<Record<string, number>> {
  const tables = await db.query<{ name: string }>(
    'test.tables',
    `select relname as name from pg_class
     where relkind in ('r', 'p') and relnamespace = current_schema()::regnamespace order by relname`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = await db.query<{ n: string }>('test.count', `select count(*) as n from "${name}"`);
    counts[name] = Number(row!.n);
  }
  return counts;
}

it('leaves no row behind, and a store sending what it rehearsed gets exact views', async () => {
  await withFreshDatabase('rehearsal', async (url) => {
    const fresh = createDb({ connectionString: url, service: 'test', max: 2 });
    let api: RunningApi | undefined;
    let pipeline: RunningPipeline | undefined;
    try {
      await migrate(url);
      const shop = await createTestStore(fresh);
      const before = await rowCounts(fresh);
      const messages = loadPipelineConfig(baseEnv()).rehearsalMessages;
      expect(messages).toBeGreaterThan(1000);
      pipeline = await startTestPipeline({ DATABASE_URL: url, PIPELINE_REHEARSAL_MESSAGES: String(messages) });
      expect((await pipeline.metrics.rehearsalSeconds.get()).values[0]!.value).toBeGreaterThan(0);
      expect(await rowCounts(fresh)).toEqual(before);

      api = await startTestApi({ DATABASE_URL: url });
      const key = shop.credentials.ingest_key;
      const storeId = shop.store.store_id;
      const history = rehearsalHistory({ persons: 60, end: Date.now() - 86_400_000, days: 60 });
      const events = history.flatMap((it) => (it.kind === 'event' ? [it.event] : []));
      const orders = history.flatMap((it) => (it.kind === 'order' ? [it.order] : []));
      for (let i = 0; i < events.length; i += 500) await send(api.url, key, fresh, storeId, events.slice(i, i + 500));
      const res = await request(api.url).post('/v2-4-2/api/store/orders').set('X-Ingest-Key', key).send(orders);
      expect(res.status).toBe(200);
      const pipelineNow = pipeline;
      await waitFor(
        async () => (await pipelineNow.metrics.pushesApplied.get()).values.find((v) => v.labels.kind === 'order'),
        (v) => (v?.value ?? 0) >= orders.length,
      );
      const [purchases] = await fresh.query<{ n: string }>(
        'test.purchases',
        `select count(distinct order_id) as n from conversions where store_id = $1 and goal = 'purchase'`,
        [storeId],
      );
      expect(Number(purchases!.n)).toBe(new Set(orders.map((o) => o.id)).size);
      expect((await reconcileStore(fresh, storeId)).drift).toEqual([]);
    } finally {
      await api?.stop();
      await pipeline?.stop();
      await fresh.close();
    }
  });
});

it('a rehearsal that fails is logged, leaves no store, and lets the daemon start', async () => {
  const db = testDb();
  const lines: string[] = [];
  const logger = createLogger('pipeline', 'warn', { write: (line: string) => void lines.push(line) });
  const failing =
    (maintain: MaintainViews): MaintainViews =>
    async (tx, facts, afterCommit) => {
      await maintain(tx, facts, afterCommit);
      throw new Error('view maintenance refused');
    };
  let pipeline: RunningPipeline | undefined;
  let api: RunningApi | undefined;
  try {
    const result = await rehearse(
      db,
      failing(createViewMaintainer(logger)),
      { messages: 300, batchSize: 100, maxMs: 60_000, now: Date.now() },
      logger,
    );
    expect(result).toBeNull();
    expect(lines.map((l) => JSON.parse(l) as { msg: string; err?: { message: string } })).toEqual([
      expect.objectContaining({
        msg: 'rehearsal failed; taking messages without it',
        err: expect.objectContaining({ message: 'view maintenance refused' }),
      }),
    ]);

    // A daemon whose rehearsal fails starts all the same, and its batches (another maintainer) apply.
    const standard = standardMaintainer(logger);
    pipeline = await startTestPipeline(
      {},
      { maintainViews: (metrics, js) => (metrics ? standard(metrics, js) : failing(standard(null, js))) },
    );
    expect((await pipeline.metrics.rehearsalSeconds.get()).values[0]!.value).toBe(0);
    api = await startTestApi();
    const shop = await createTestStore(db);
    await send(api.url, shop.credentials.ingest_key, db, shop.store.store_id, [
      pageView({ client: 'after-a-failed-rehearsal', at: new Date(Date.now() - 60_000).toISOString() }),
    ]);
    const [left] = await db.query<{ n: string }>(
      'test.rehearsal_stores',
      `select count(*) as n from stores where store_id like 'rehearsal\\_%'`,
    );
    expect(Number(left!.n)).toBe(0);
  } finally {
    await api?.stop();
    await pipeline?.stop();
    await db.close();
  }
});

it('rehearses nothing when its count is 0, starts no batch once its time is up, and otherwise all of its history', async () => {
  const db = testDb();
  try {
    const maintain = createViewMaintainer(silentLogger());
    const now = Date.now();
    expect(await rehearse(db, maintain, { messages: 0, now }, silentLogger())).toBeNull();
    expect(await rehearse(db, maintain, { messages: 300, maxMs: 0, now }, silentLogger())).toEqual(
      expect.objectContaining({ messages: 0, batches: 0 }),
    );
    // With time enough, every message of the history goes through, in batches of the size asked for.
    const whole = await rehearse(db, maintain, { messages: 300, batchSize: 100, now }, silentLogger());
    expect(whole!.messages).toBeGreaterThan(200);
    expect(whole!.batches).toBe(Math.ceil(whole!.messages / 100));
  } finally {
    await db.close();
  }
});
