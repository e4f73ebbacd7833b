/**
 * The batch's identity lookup keeps to the key index for a store the table statistics do not cover yet
 * (docs/decisions.md, Storage). One store's links are analysed; a second, new store then grows without an
 * analyse. Under the batch transaction's generic plans the lookup of 400 keys reads the key index with both
 * the store and the keys as conditions; the custom plan (the control, which shows that the set-up reproduces
 * the hazard) scans the new store's whole range once per key.
 */
import { GENERIC_PLANS_SQL } from '../../pipeline/src/adapters/pg-batch-writer';
import { PERSONS_OF_KEYS_SQL } from '../../pipeline/src/adapters/pg-view-maintainer';
import type { Db } from '../../storage/db';
import { createTestStore, testDb } from '../support/harness';

let db: Db;
const TABLES = ['identity_links', 'clients'];
const LINKS = 20_000;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Shared Hit Blocks'?: number;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

async function seed(storeId: string): Promise<void> {
  await db.query(
    'seed.clients',
    `insert into clients (store_id, client_id, person_id, first_seen_at)
     select $1, 'c' || g, 'p' || g, now() from generate_series(1, $2::int) g`,
    [storeId, LINKS],
  );
  await db.query(
    'seed.links',
    `insert into identity_links (store_id, client_id, key)
     select $1, 'c' || g, 'e:' || g || '@example.com' from generate_series(1, $2::int) g`,
    [storeId, LINKS],
  );
}

async function planOf(storeId: string, generic: boolean): Promise<PlanNode> {
  const keys = Array.from({ length: 400 }, (_, i) => `e:${5000 + i * 7}@example.com`);
  // EXPLAIN of a bound statement plans it for its values; a prepared statement is planned as the pipeline's
  // statements are, under the transaction's plan_cache_mode.
  return db.transaction('test.plan', async (tx) => {
    if (generic) await tx('test.generic', GENERIC_PLANS_SQL);
    await tx('test.prepare', `prepare persons_of_keys(text, text[]) as ${PERSONS_OF_KEYS_SQL}`);
    try {
      const [row] = await tx<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        'test.explain',
        `explain (analyze, buffers, format json) execute persons_of_keys('${storeId}', '{${keys.join(',')}}')`,
      );
      return row!['QUERY PLAN'][0]!.Plan;
    } finally {
      await tx('test.deallocate', 'deallocate persons_of_keys');
    }
  });
}

beforeAll(async () => {
  db = testDb();
  for (const t of TABLES) await db.query('test.autovacuum_off', `alter table ${t} set (autovacuum_enabled = false)`);
  const known = await createTestStore(db);
  await seed(known.store.store_id);
  for (const t of TABLES) await db.query('test.analyze', `analyze ${t}`);
});

afterAll(async () => {
  for (const t of TABLES) await db.query('test.autovacuum_on', `alter table ${t} reset (autovacuum_enabled)`);
  await db.close();
});

it('reads the key index for a store the statistics do not cover', async () => {
  const fresh = await createTestStore(db);
  await seed(fresh.store.store_id);

  const generic = nodes(await planOf(fresh.store.store_id, true));
  const linkScan = generic.find((n) => n['Index Name'] === 'identity_links_key_idx');
  expect(linkScan?.['Index Cond']).toMatch(/store_id = \$1.*key = ANY \(\$2\)/);
  const clientScan = generic.find((n) => n['Index Name'] === 'clients_pkey');
  expect(clientScan?.['Index Cond']).toMatch(/client_id = l\.client_id/);
  const genericHits = generic[0]!['Shared Hit Blocks'] ?? 0;
  expect(genericHits).toBeLessThan(10_000);

  // The control: the custom plan of the same statement reads the store's range over and over.
  const custom = nodes(await planOf(fresh.store.store_id, false));
  const customHits = custom[0]!['Shared Hit Blocks'] ?? 0;
  expect(customHits).toBeGreaterThan(20 * genericHits);
});
