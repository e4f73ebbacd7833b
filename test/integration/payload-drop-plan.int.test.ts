/**
 * A rebuild's last step of its load deletes the payloads of events without facts, and must stay linear in the
 * store's events whatever the table statistics say (docs/decisions.md, Operations). In a schema of its own (so
 * that the statistics are the test's), with autovacuum off: a store the statistics cover, then one they do not.
 * The control runs the same statement with nested loops allowed, and shows the set-up reproduces the hazard.
 */
import {
  dropPayloadsWithoutFactsIn,
  NO_NESTED_LOOPS_SQL,
  PAYLOADS_WITHOUT_FACTS_DELETE_SQL,
} from '../../pipeline/src/operations/replay';
import type { Db } from '../../storage/db';
import { testDb } from '../support/harness';
import { createStatisticsSchema, dropStatisticsSchema, type PlanNode, planNodes } from '../support/query-plans';

let db: Db;
const SCHEMA = 'payload_drop_plan_test';
const TABLES = ['raw_events', 'event_facts'];

/** `events` payloads of `storeId`, with facts for all but the last `withoutFacts`. */
async function seed(storeId: string, events: number, withoutFacts: number): Promise<void> {
  await db.query(
    'seed.raw_events',
    `insert into ${SCHEMA}.raw_events (store_id, event_id, client_id, name, occurred_at, received_at, stream_seq, payload)
     select $1, 'e' || g, 'c' || g % 500, 'page_viewed', now(), now(), g, '{}'::json
     from generate_series(1, $2::int) g`,
    [storeId, events],
  );
  await db.query(
    'seed.event_facts',
    `insert into ${SCHEMA}.event_facts (store_id, event_id, client_id, name, occurred_at, page_url, referrer)
     select $1, 'e' || g, 'c' || g % 500, 'page_viewed', now(), 'https://shop.example/', ''
     from generate_series(1, $2::int) g`,
    [storeId, events - withoutFacts],
  );
}

/** The executed plan of the delete for `storeId`, rolled back; `nestedLoops` false applies the statement's setting. */
async function planOf(storeId: string, nestedLoops: boolean): Promise<PlanNode[]> {
  let plan: PlanNode[] = [];
  await db
    .transaction('test.plan', async (tx) => {
      await tx('test.schema', `set local search_path = ${SCHEMA}`);
      if (!nestedLoops) await tx('test.no_nested_loops', NO_NESTED_LOOPS_SQL);
      const sql = PAYLOADS_WITHOUT_FACTS_DELETE_SQL.replace('$1', `'${storeId}'`);
      const [row] = await tx<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        'test.explain',
        `explain (analyze, format json) ${sql}`,
      );
      plan = planNodes(row!['QUERY PLAN'][0]!.Plan);
      throw new Error('rollback');
    })
    .catch((err: unknown) => {
      if (!(err instanceof Error && err.message === 'rollback')) throw err;
    });
  return plan;
}

beforeAll(async () => {
  db = testDb();
  await createStatisticsSchema(db, SCHEMA, TABLES);
  await seed('st_known', 20_000, 0);
  for (const t of TABLES) await db.query('test.analyze', `analyze ${SCHEMA}.${t}`);
  await seed('st_fresh', 4_000, 100);
});

afterAll(async () => {
  await dropStatisticsSchema(db, SCHEMA);
  await db.close();
});

it('hashes or merges the two ranges of a store the statistics do not cover', async () => {
  const plan = await planOf('st_fresh', false);
  expect(plan.map((n) => n['Node Type'])).not.toContain('Nested Loop');
  expect(plan.some((n) => ['Hash Join', 'Merge Join'].includes(n['Node Type']))).toBe(true);

  // The control: allowed a nested loop, the planner takes one and tests each payload against the store's facts.
  const control = await planOf('st_fresh', true);
  const loop = control.find((n) => n['Node Type'] === 'Nested Loop');
  expect(loop?.['Rows Removed by Join Filter'] ?? 0).toBeGreaterThan(1_000_000);
});

it('deletes exactly the payloads without facts, of that store only, with nested loops off', async () => {
  const count = (storeId: string) =>
    db
      .query<{ n: string }>('test.count', `select count(*) as n from ${SCHEMA}.raw_events where store_id = $1`, [
        storeId,
      ])
      .then((r) => Number(r[0]!.n));
  const [deleted, nestedLoops] = await db.transaction('test.drop', async (tx) => {
    await tx('test.schema', `set local search_path = ${SCHEMA}`);
    const n = await dropPayloadsWithoutFactsIn(tx, 'st_fresh');
    // The setting the plan above was checked under is the one the deletion ran with.
    const [setting] = await tx<{ enable_nestloop: string }>('test.setting', 'show enable_nestloop');
    return [n, setting!.enable_nestloop] as const;
  });
  expect(deleted).toBe(100);
  expect(nestedLoops).toBe('off');
  expect(await count('st_fresh')).toBe(3_900);
  expect(await count('st_known')).toBe(20_000);
});
