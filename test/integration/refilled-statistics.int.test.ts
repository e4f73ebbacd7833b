/**
 * The planner counts of tables a rebuild empties and fills again (docs/decisions.md, Operations, "statistics of
 * refilled tables"), on a table of this test's own, shaped like the facts: a store's rows keyed by id, and a second
 * index on the store.
 * - the tables where the deleted rows were most of what the planner counted are vacuumed, the others left alone;
 * - the watcher analyzes a table whose live rows outgrew the planner's count tenfold, and not one whose count
 *   still holds.
 */
import type { Db } from '../../storage/db';
import { silentLogger } from '../../runtime/logger';
import { vacuumEmptiedTables, watchRefilledStatistics } from '../../pipeline/src/operations/refilled-statistics';
import { testDb, waitFor } from '../support/harness';

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

const plannerCount = async (table: string): Promise<number> => {
  const [row] = await db.query<{ n: number }>('test.count', 'select reltuples as n from pg_class where relname = $1', [
    table,
  ]);
  return Number(row!.n);
};

const vacuumCount = async (table: string): Promise<number> => {
  const [row] = await db.query<{ n: string }>(
    'test.vacuums',
    'select vacuum_count as n from pg_stat_user_tables where relname = $1',
    [table],
  );
  return Number(row!.n);
};

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

  const watcher = watchRefilledStatistics(db, [TABLE, OTHER], silentLogger(), { everyMs: 60_000 });
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
