/**
 * The one rollup delta statement every counter rollup goes through: sums add up, a group brought back to zero
 * is deleted (as a recomputation would not have it), other stores are untouched, and `-infinity` days (the
 * "no previous day" of a span) round-trip; into a table a repair cleared, the rows are copied, the same as the
 * upsert writes them; several stores' rows in one statement land each in its store. On a temporary table of the
 * same shape as the rollups.
 */
import { applyCounterDelta, applyCounterDeltas } from '../../pipeline/src/adapters/pg-counter-rollup';
import { type Cell, type RollupTable, rowOf } from '../../pipeline/src/domain/rollups/table';
import type { Db, Query } from '../../storage/db';
import { testDb } from '../support/harness';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

const SHAPE: RollupTable = {
  table: 'counter_test',
  keys: [
    { name: 'day', type: 'date' },
    { name: 'channel', type: 'text' },
    { name: 'prev_day', type: 'date' },
  ],
  values: [
    { name: 'users', type: 'integer' },
    { name: 'value_micros', type: 'bigint' },
  ],
};

/** A row of SHAPE, named by its columns. */
const row = (key: Cell[], values: number[]) => rowOf(SHAPE, key, values);

/** The rollup of SHAPE as a temporary table, gone when the test's transaction ends. */
async function createTable(tx: Query): Promise<void> {
  await tx(
    'test.create',
    `create temp table counter_test (store_id text, day date, channel text, prev_day date, users integer,
       value_micros bigint, primary key (store_id, day, channel, prev_day)) on commit drop`,
  );
}

async function rows(tx: Query): Promise<string[]> {
  const all = await tx<{ store_id: string; day: string; channel: string; prev_day: string; users: number; v: string }>(
    'test.rows',
    `select store_id, to_char(day, 'YYYY-MM-DD') as day, channel, prev_day::text as prev_day, users, value_micros::text as v
     from counter_test order by 1, 2, 3, 4`,
  );
  return all.map((r) => [r.store_id, r.day, r.channel, r.prev_day, r.users, r.v].join('|'));
}

it('adds deltas, deletes the groups brought to zero and keeps to the store', async () => {
  await db.transaction('test.counter', async (tx) => {
    await createTable(tx);
    await applyCounterDelta(tx, 'st_a', SHAPE, [
      row(['2026-03-01', 'paid', '-infinity'], [2, 5_000_000]),
      row(['2026-03-02', 'email', '2026-03-01'], [1, 0]),
      // All zero: not written at all.
      row(['2026-03-03', 'direct', '-infinity'], [0, 0]),
    ]);
    await applyCounterDelta(tx, 'st_b', SHAPE, [row(['2026-03-01', 'paid', '-infinity'], [7, 1])]);
    expect(await rows(tx)).toEqual([
      'st_a|2026-03-01|paid|-infinity|2|5000000',
      'st_a|2026-03-02|email|2026-03-01|1|0',
      'st_b|2026-03-01|paid|-infinity|7|1',
    ]);

    await applyCounterDelta(tx, 'st_a', SHAPE, [
      row(['2026-03-01', 'paid', '-infinity'], [-1, -2_000_000]),
      row(['2026-03-02', 'email', '2026-03-01'], [-1, 0]),
    ]);
    expect(await rows(tx)).toEqual(['st_a|2026-03-01|paid|-infinity|1|3000000', 'st_b|2026-03-01|paid|-infinity|7|1']);
  });
});

it('applies several stores in one statement, each to its own rows, pruning zeros per store', async () => {
  await db.transaction('test.counter_stores', async (tx) => {
    await createTable(tx);
    const key = ['2026-03-01', 'paid', '-infinity'] as Cell[];
    await applyCounterDeltas(tx, SHAPE, [
      { storeId: 'st_b', rows: [row(key, [2, 10])] },
      { storeId: 'st_a', rows: [row(key, [1, 5]), row(['2026-03-02', 'email', '2026-03-01'], [4, 0])] },
      { storeId: 'st_c', rows: [] },
    ]);
    expect(await rows(tx)).toEqual([
      'st_a|2026-03-01|paid|-infinity|1|5',
      'st_a|2026-03-02|email|2026-03-01|4|0',
      'st_b|2026-03-01|paid|-infinity|2|10',
    ]);
    // The same key brought to zero in st_a only: st_b's row of that key stays.
    await applyCounterDeltas(tx, SHAPE, [
      { storeId: 'st_a', rows: [row(key, [-1, -5])] },
      { storeId: 'st_b', rows: [row(key, [1, 1])] },
    ]);
    expect(await rows(tx)).toEqual(['st_a|2026-03-02|email|2026-03-01|4|0', 'st_b|2026-03-01|paid|-infinity|3|11']);
  });
});

it('copies into a cleared table the same rows the upsert writes, escaped text and zero rows included', async () => {
  await db.transaction('test.counter_cleared', async (tx) => {
    await createTable(tx);
    const delta = [
      row(['2026-03-02', 'tab\there, back\\slash\nnewline', '2026-03-01'], [3, 9_007_199_254_740_991]),
      row(['2026-03-01', 'paid', '-infinity'], [2, -5]),
      row(['2026-03-03', 'direct', '-infinity'], [0, 0]),
    ];
    await applyCounterDelta(tx, 'st_added', SHAPE, delta);
    await applyCounterDelta(tx, 'st_copied', SHAPE, delta, { cleared: true });
    const all = await rows(tx);
    const [added, copied] = ['st_added|', 'st_copied|'].map((prefix) =>
      all.filter((r) => r.startsWith(prefix)).map((r) => r.slice(prefix.length)),
    );
    expect(copied).toHaveLength(2);
    expect(copied).toEqual(added);
  });
});
