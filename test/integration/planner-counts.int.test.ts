/**
 * The planner counts of tables that fill faster than autovacuum counts them (docs/decisions.md, Operations,
 * "planner counts of filling tables"). On a table of this test's own, shaped like the facts (a store's rows keyed
 * by id, and a second index on the store):
 * - the tables where the deleted rows were most of what the planner counted are vacuumed, the others left alone;
 * - the watcher analyzes a table whose live rows outgrew the planner's count tenfold, and not one whose count
 *   still holds, nor, when bounded, one whose count is already above the bound, nor one this role does not own;
 * And the daemon runs the watcher: on a new installation whose tables were counted empty, it takes the count of
 * the facts table once its batches have filled it.
 */
import { migrate } from '../../infra/migrate';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { randomBytes } from 'node:crypto';
import { createDb, type Db } from '../../storage/db';
import { silentLogger } from '../../runtime/logger';
import { vacuumEmptiedTables, watchPlannerCounts } from '../../pipeline/src/adapters/planner-counts';
import {
  createTestStore,
  startTestApi,
  startTestPipeline,
  testDb,
  waitFor,
  withFreshDatabase,
} from '../support/harness';
import { pageView, send } from '../support/journeys';
import { testEnv } from '../support/env';

let db: Db;
const TABLE = 'refill_test_facts';
const OTHER = 'refill_test_other';

beforeAll(async () => {
  db = testDb();
  for (const t of [TABLE, OTHER]) {
    await db.query('test.drop', `drop table if exists ${t}`);
    await db.query(
      'test.create',
      `create table ${t} (store_id text, id text, other text, primary key (store_id, id)) with (autovacuum_enabled = false)`,
    );
    await db.query('test.index', `create index on ${t} (store_id, other)`);
  }
});
afterAll(async () => {
  for (const t of [TABLE, OTHER]) await db.query('test.drop', `drop table if exists ${t}`);
  await db.close();
});

const fill = (table: string, store: string, n: number) =>
  db.query(
    'test.fill',
    `insert into ${table} select $1, $1 || '-' || g, 'o' || (g % 7) from generate_series(1, $2::int) g`,
    [store, n],
  );

const plannerCount = async (table: string, on = db): Promise<number> => {
  const [row] = await on.query<{ n: number }>('test.count', 'select reltuples as n from pg_class where relname = $1', [
    table,
  ]);
  return Number(row!.n);
};

/** A table's activity statistic (`vacuum_count`, `n_live_tup`, ...), as far as it has arrived. */
const tableStat = async (table: string, stat: 'vacuum_count' | 'n_live_tup'): Promise<number> => {
  const [row] = await db.query<{ n: string }>(
    'test.table_stat',
    `select ${stat} as n from pg_stat_user_tables where relname = $1`,
    [table],
  );
  return Number(row!.n);
};
const vacuumCount = (table: string) => tableStat(table, 'vacuum_count');

it('vacuums the tables whose deleted rows were most of the planner count, and only those', async () => {
  await fill(TABLE, 'a', 2000);
  await fill(OTHER, 'a', 2000);
  await db.query('test.analyze', `analyze ${TABLE}, ${OTHER}`);
  const before = { table: await vacuumCount(TABLE), other: await vacuumCount(OTHER) };
  await db.query('test.delete', `delete from ${TABLE} where store_id = 'a'`);
  await db.query('test.delete', `delete from ${OTHER} where store_id = 'a' and id in ('a-1', 'a-2')`);

  await vacuumEmptiedTables(
    db,
    new Map([
      [TABLE, 2000],
      [OTHER, 2],
    ]),
    silentLogger(),
  );
  // A manual VACUUM is counted when its statistics arrive, within a second or so.
  await waitFor(
    () => vacuumCount(TABLE),
    (n) => n === before.table + 1,
    30_000,
    100,
  );
  expect(await plannerCount(TABLE)).toBe(0);
  expect(await vacuumCount(OTHER)).toBe(before.other);
  expect(await plannerCount(OTHER)).toBe(2000);
});

it('analyzes a table whose live rows outgrew the planner count tenfold, and not one whose count holds', async () => {
  // The state a rebuild meets when a count was taken right after it emptied the table.
  await db.query('test.empty', `delete from ${TABLE}`);
  await db.query('test.analyze', `analyze ${TABLE}`);
  expect(await plannerCount(TABLE)).toBe(0);
  await fill(TABLE, 'b', 500);
  await db.query('test.delete', `delete from ${OTHER} where id in ('a-3', 'a-4', 'a-5')`);

  const watcher = watchPlannerCounts(db, [TABLE, OTHER], silentLogger(), { everyMs: 60_000 });
  try {
    // The live row counts arrive with the statistics, within a second or so: check until the count is taken.
    await waitFor(
      async () => {
        await watcher.check();
        return plannerCount(TABLE);
      },
      (n) => n === 500,
      30_000,
      100,
    );
    expect(await plannerCount(OTHER)).toBe(2000);
  } finally {
    await watcher.stop();
  }
});

it('with a bound, analyzes only tables the planner counts below it, however far the others grew', async () => {
  for (const [table, rows] of [
    [TABLE, 500],
    [OTHER, 2000],
  ] as const) {
    await db.query('test.empty', `delete from ${table}`);
    await fill(table, 'd', rows);
    await db.query('test.analyze', `analyze ${table}`);
  }
  await fill(OTHER, 'e', 25_000);
  await fill(TABLE, 'e', 6_000);
  const liveRows = (table: string) => tableStat(table, 'n_live_tup');
  // Both tables' live rows (estimates, after the ANALYZE) must be visible to the check before it runs: each is
  // over ten times its count.
  await waitFor(
    () => liveRows(OTHER),
    (n) => n >= 26_000,
    30_000,
    100,
  );
  await waitFor(
    () => liveRows(TABLE),
    (n) => n >= 6_000,
    30_000,
    100,
  );

  const watcher = watchPlannerCounts(db, [TABLE, OTHER], silentLogger(), { everyMs: 60_000, countsBelow: 1000 });
  try {
    await watcher.check();
    expect(await plannerCount(TABLE)).toBe(6_500);
    expect(await plannerCount(OTHER)).toBe(2000);
  } finally {
    await watcher.stop();
  }
});

it('leaves the tables of another owner to it: no ANALYZE, which PostgreSQL would only warn about', async () => {
  // A table of its own, never counted (no deletions whose statistics could arrive after the check).
  const owned = 'refill_test_owned';
  await db.query('test.drop', `drop table if exists ${owned}`);
  await db.query(
    'test.create',
    `create table ${owned} (store_id text, id text, other text) with (autovacuum_enabled = false)`,
  );
  await fill(owned, 'f', 500);
  await waitFor(
    () => tableStat(owned, 'n_live_tup'),
    (n) => n >= 500,
    30_000,
    100,
  );
  const role = `planner_reader_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await db.query('test.role', `create role ${role} login password '${password}'`);
  const url = new URL(testEnv.databaseUrl);
  url.username = role;
  url.password = password;
  const reader = createDb({ connectionString: url.toString(), service: 'test', max: 1 });
  const analyzed: string[] = [];
  const watcher = watchPlannerCounts(reader, [owned], silentLogger(), {
    everyMs: 60_000,
    onAnalyzed: (tables) => analyzed.push(...tables),
  });
  try {
    await watcher.check();
    expect(analyzed).toEqual([]);
    expect(await plannerCount(owned)).toBe(-1);
  } finally {
    await watcher.stop();
    await reader.close();
    await db.query('test.drop_role', `drop role ${role}`);
    await db.query('test.drop', `drop table ${owned}`);
  }
});

it('the daemon takes the count of a facts table that was counted empty once its batches fill it', async () => {
  // A new installation: migrated, and counted by an ANALYZE before the daemon's first commit, as autovacuum's
  // first visit can. Autovacuum is off for the facts table, so only the daemon can count it again.
  await withFreshDatabase('planner', async (url) => {
    const fresh = createDb({ connectionString: url, service: 'test', max: 2 });
    const env = { DATABASE_URL: url };
    let api: RunningApi | undefined;
    let pipeline: RunningPipeline | undefined;
    try {
      await migrate(url);
      await fresh.query('test.autovacuum_off', 'alter table event_facts set (autovacuum_enabled = false)');
      await fresh.query('test.analyze', 'analyze');
      expect(await plannerCount('event_facts', fresh)).toBe(0);
      const shop = await createTestStore(fresh);
      api = await startTestApi(env);
      pipeline = await startTestPipeline({ ...env, PIPELINE_PLANNER_COUNT_CHECK_MS: '100' });

      const at = (i: number) => new Date(Date.UTC(2026, 2, 2, 10, 0, i)).toISOString();
      const views = Array.from({ length: 150 }, (_, i) => pageView({ client: `fill-${i % 30}`, at: at(i) }));
      await send(api.url, shop.credentials.ingest_key, fresh, shop.store.store_id, views);

      // The live row counts arrive with the statistics, within a second or so.
      await waitFor(
        () => plannerCount('event_facts', fresh),
        (n) => n >= 150,
        30_000,
        100,
      );
      const analyzes = await pipeline.metrics.registry.getSingleMetric('pipeline_planner_count_analyzes_total')!.get();
      expect(analyzes.values.find((v) => v.labels.table === 'event_facts')?.value).toBeGreaterThanOrEqual(1);
    } finally {
      await pipeline?.stop();
      await api?.stop();
      await fresh.close();
    }
  });
});
