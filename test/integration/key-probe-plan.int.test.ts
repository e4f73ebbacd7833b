/**
 * The batch's lookups of many keys keep to one index probe per key whatever the table statistics say
 * (docs/decisions.md, Storage). In a schema of its own (so that the statistics are the test's, whatever the
 * other tests stored), with autovacuum off. Each case also runs the plain `key = any($2)` form of the same
 * lookup, the control that shows the set-up reproduces the hazard the probe form avoids.
 */
import { GENERIC_PLANS_SQL } from '../../pipeline/src/adapters/pg-batch-writer';
import { PERSONS_OF_KEYS, PERSONS_OF_KEYS_SQL } from '../../pipeline/src/adapters/pg-identity';
import type { Db } from '../../storage/db';
import { keyProbeOfStoresSql, keyProbeSql, probeKeysOfStores } from '../../storage/key-probe';
import { testDb } from '../support/harness';
import { createStatisticsSchema, dropStatisticsSchema, type PlanNode, planNodes } from '../support/query-plans';

let db: Db;
const SCHEMA = 'key_probe_plan_test';
const TABLES = ['identity_links', 'clients', 'product_person_credits'];
const LINKS = 20_000;

async function seedLinks(storeId: string): Promise<void> {
  await db.query(
    'seed.clients',
    `insert into ${SCHEMA}.clients (store_id, client_id, person_id, first_seen_at)
     select $1, 'c' || g, 'p' || g, now() from generate_series(1, $2::int) g`,
    [storeId, LINKS],
  );
  await db.query(
    'seed.links',
    `insert into ${SCHEMA}.identity_links (store_id, client_id, key)
     select $1, 'c' || g, 'e:' || g || '@example.com' from generate_series(1, $2::int) g`,
    [storeId, LINKS],
  );
}

/** The plan of `sql` run for `storeId` and `keys`, as the pipeline's statements are planned (or custom). */
async function planOf(sql: string, storeId: string, keys: readonly string[], generic: boolean): Promise<PlanNode[]> {
  // EXPLAIN of a bound statement plans it for its values; a prepared statement is planned as the pipeline's
  // statements are, under the transaction's plan_cache_mode.
  return db.transaction('test.plan', async (tx) => {
    await tx('test.schema', `set local search_path = ${SCHEMA}`);
    if (generic) await tx('test.generic', GENERIC_PLANS_SQL);
    await tx('test.prepare', `prepare lookup(text, text[]) as ${sql}`);
    try {
      const [row] = await tx<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        'test.explain',
        `explain (analyze, buffers, format json) execute lookup('${storeId}', '{${keys.join(',')}}')`,
      );
      return planNodes(row!['QUERY PLAN'][0]!.Plan);
    } finally {
      await tx('test.deallocate', 'deallocate lookup');
    }
  });
}

/** The plan of a probe of (store, key) pairs, `stores` and `keys` pairwise, under generic plans. */
async function planOfPairs(sql: string, stores: readonly string[], keys: readonly string[]): Promise<PlanNode[]> {
  return db.transaction('test.plan', async (tx) => {
    await tx('test.schema', `set local search_path = ${SCHEMA}`);
    await tx('test.generic', GENERIC_PLANS_SQL);
    await tx('test.prepare', `prepare lookup(text[], text[]) as ${sql}`);
    try {
      const [row] = await tx<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        'test.explain',
        `explain (analyze, buffers, format json) execute lookup('{${stores.join(',')}}', '{${keys.join(',')}}')`,
      );
      return planNodes(row!['QUERY PLAN'][0]!.Plan);
    } finally {
      await tx('test.deallocate', 'deallocate lookup');
    }
  });
}

beforeAll(async () => {
  db = testDb();
  await createStatisticsSchema(db, SCHEMA, TABLES);
  await seedLinks('st_known');
  for (const t of ['identity_links', 'clients']) await db.query('test.analyze', `analyze ${SCHEMA}.${t}`);
});

afterAll(async () => {
  await dropStatisticsSchema(db, SCHEMA);
  await db.close();
});

it('reads the key index for a store the statistics do not cover', async () => {
  await seedLinks('st_fresh');
  const keys = Array.from({ length: 400 }, (_, i) => `e:${5000 + i * 7}@example.com`);

  const plan = await planOf(PERSONS_OF_KEYS_SQL, 'st_fresh', keys, true);
  const linkScan = plan.find((n) => n['Relation Name'] === 'identity_links');
  expect(linkScan?.['Index Cond']).toMatch(/store_id = \$1.*key = keys\.k/);
  const clientScan = plan.find((n) => n['Relation Name'] === 'clients');
  expect(clientScan?.['Index Cond']).toMatch(/store_id = \$1.*client_id = l\.client_id/);
  expect(plan[0]!['Shared Hit Blocks'] ?? 0).toBeLessThan(10_000);

  // The control: the plain form under a custom plan reads the store's range over and over.
  const plain = `select l.client_id, l.key, c.person_id from identity_links l
    join clients c on c.store_id = l.store_id and c.client_id = l.client_id
    where l.store_id = $1 and l.key = any($2::text[])`;
  const custom = await planOf(plain, 'st_fresh', keys, false);
  expect(custom[0]!['Shared Hit Blocks'] ?? 0).toBeGreaterThan(200_000);
});

it('probes per key in a table never analysed, where the plain form tests every row against every key', async () => {
  await db.query(
    'seed.credits',
    `insert into ${SCHEMA}.product_person_credits
       (store_id, person_id, day, model, product_id, channel, source, medium, campaign, landing_page, weight, value_micros, units)
     select 'st_new', 'p' || g, date '2026-01-01' + g % 30, 'last_click', 'prod' || g % 50, 'Direct', '', '', '', '/', 1, 1, 1
     from generate_series(1, 5000) g`,
  );
  const keys = Array.from({ length: 4000 }, (_, i) => `p${i * 3}`);

  const probe = await planOf(
    keyProbeSql({ select: 'person_id, day', from: 'product_person_credits', key: 'person_id' }),
    'st_new',
    keys,
    true,
  );
  const scan = probe.find((n) => n['Relation Name'] === 'product_person_credits');
  expect(scan?.['Index Cond']).toMatch(/store_id = \$1.*person_id = keys\.k/);
  expect(probe.some((n) => (n['Rows Removed by Filter'] ?? 0) > 0)).toBe(false);

  // The control: the generic plan of the plain form reads the store by store_id alone and filters each of its
  // 5,000 rows through the 4,000 keys.
  const plain = await planOf(
    'select person_id, day from product_person_credits where store_id = $1 and person_id = any($2::text[])',
    'st_new',
    keys,
    true,
  );
  const filtered = plain.find((n) => n['Relation Name'] === 'product_person_credits');
  expect(filtered?.Filter).toMatch(/person_id = ANY/);
  expect(filtered?.['Rows Removed by Filter']).toBeGreaterThan(3000);
});

it('probes (store, key) pairs one index entry each, and gives every store its own rows', async () => {
  await seedLinks('st_pair');
  const keys = Array.from({ length: 200 }, (_, i) => `e:${7000 + i * 3}@example.com`);
  const stores = keys.map((_, i) => (i % 2 ? 'st_known' : 'st_pair'));

  const plan = await planOfPairs(keyProbeOfStoresSql(PERSONS_OF_KEYS), stores, keys);
  const linkScan = plan.find((n) => n['Relation Name'] === 'identity_links');
  expect(linkScan?.['Index Cond']).toMatch(/store_id = keys\.s.*key = keys\.k/);
  expect(plan[0]!['Shared Hit Blocks'] ?? 0).toBeLessThan(10_000);

  // Overlapping keys asked of two stores: each gets the rows of its own keys, as the one-store probe gives them.
  const ofKnown = keys.slice(0, 10);
  const ofPair = keys.slice(5, 20);
  const [both, alone] = await db.transaction('test.probe', async (tx) => {
    await tx('test.schema', `set local search_path = ${SCHEMA}`);
    const entries = [
      { storeId: 'st_known', keys: ofKnown },
      { storeId: 'st_pair', keys: ofPair },
      { storeId: 'st_none', keys: [] },
    ];
    return [
      await probeKeysOfStores<Record<string, unknown>>(tx, 'test.pairs', PERSONS_OF_KEYS, entries),
      await tx<Record<string, unknown>>('test.alone', PERSONS_OF_KEYS_SQL, ['st_pair', ofPair]),
    ];
  });
  expect([...both.keys()]).toEqual(['st_known', 'st_pair', 'st_none']);
  expect(both.get('st_none')).toEqual([]);
  const keysOf = (rows: Array<Record<string, unknown>>) => rows.map((r) => String(r.key)).sort();
  expect(keysOf(both.get('st_known')!)).toEqual([...ofKnown].sort());
  const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.key).localeCompare(String(b.key));
  expect([...both.get('st_pair')!].sort(byKey)).toEqual([...alone].sort(byKey));
  expect(alone).toHaveLength(15);
  expect(both.get('st_known')!.every((r) => !('probe_store' in r))).toBe(true);
});
