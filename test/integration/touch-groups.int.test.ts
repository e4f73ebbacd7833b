/**
 * Touch groups: the web rollups key a touchpoint group by an id that the pipeline computes in TypeScript and
 * migration 0012 computed in SQL for the rows it converted; both must agree on every value a store can send,
 * or a converted row and a newly written one of the same group would be two groups. A worker skips recording
 * the groups its own batches committed, and only those.
 */
import pg from 'pg';
import { migrate } from '../../infra/migrate';
import { createBatchWriter, type MaintainViews } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { touchGroupId } from '../../pipeline/src/adapters/touch-groups';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { silentLogger } from '../../runtime/logger';
import type { Db } from '../../storage/db';
import { batchItem, queryThrough } from '../support/batch-items';
import { createTestStore, testDb, withFreshDatabase } from '../support/harness';
import { pageView } from '../support/journeys';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

const TRICKY: string[][] = [
  ['', '', '', '', ''],
  ['paid_social', 'facebook', 'paid_social', 'spring', '/'],
  // Separators inside values: the length prefixes keep these apart.
  ['a', '1:b', '', '', ''],
  ['a1:', 'b', '', '', ''],
  ['direct', '(direct)', '(none)', '', '/products/tee?x=1&y=2'],
  // Multi-byte and astral characters: lengths are counted in UTF-8 bytes on both sides.
  ['organic', 'müller.de', 'réf', '夏のセール', '/collections/😀-sale'],
  ['email', 'klaviyo', 'email', 'a\u0001b\tc"d\\e\'f', '/\u00a0'],
];

it('gives the same id in TypeScript as touch_group_id() in SQL', async () => {
  const rows = await db.query<{ id: string }>(
    'test.touch_group_ids',
    `select touch_group_id(c, s, m, ca, lp)::text as id
     from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) with ordinality as t(c, s, m, ca, lp, n)
     order by n`,
    [0, 1, 2, 3, 4].map((i) => TRICKY.map((v) => v[i])),
  );
  expect(rows.map((r) => r.id)).toEqual(TRICKY.map(touchGroupId));
  expect(new Set(rows.map((r) => r.id)).size).toBe(TRICKY.length);
});

it('migration 0012 moves the stored web rollups onto group ids without changing a figure', async () => {
  await withFreshDatabase('touch', async (url) => {
    const client = new pg.Client({ connectionString: url });
    try {
      const before = await migrate(url, 11);
      expect(before.at(-1)).toBe('0011_dashboard_key');
      await client.connect();
      // Rows as 0010 stored them: two groups of web_daily, span rows of two dimension sets.
      await client.query(`insert into web_daily values
      ('st_a', '2026-03-01', 'paid_social', 'facebook', 'paid_social', 'spring', '/', 3, 9, 2, 1),
      ('st_a', '2026-03-02', 'organic', 'google', 'organic', '', '/products/tee', 1, 4, 1, 0),
      ('st_b', '2026-03-01', 'paid_social', 'facebook', 'paid_social', 'spring', '/', 5, 5, 5, 5)`);
      await client.query(`insert into web_users values
      ('st_a', 1, '2026-03-01', 'paid_social', '', '', '', '', '-infinity', 2, 1, 1, 0, 0, 0),
      ('st_a', 1, '2026-03-02', 'paid_social', '', '', '', '', '2026-03-01', 1, 1, 0, 0, 0, 0),
      ('st_a', 0, '2026-03-01', '', '', '', '', '', '-infinity', 3, 2, 1, 1, 1, 1)`);
      expect(await migrate(url, 1)).toEqual(['0012_touch_groups']);

      const daily = await client.query<Record<string, string | number>>(
        `select d.store_id, to_char(day, 'YYYY-MM-DD') as day, channel, source, medium, campaign, landing_page,
              sessions::int, events::int, engaged_sessions::int, new_users::int
       from web_daily d join touch_groups g using (store_id, group_id) order by 1, 2`,
      );
      expect(daily.rows.map((r) => Object.values(r))).toEqual([
        ['st_a', '2026-03-01', 'paid_social', 'facebook', 'paid_social', 'spring', '/', 3, 9, 2, 1],
        ['st_a', '2026-03-02', 'organic', 'google', 'organic', '', '/products/tee', 1, 4, 1, 0],
        ['st_b', '2026-03-01', 'paid_social', 'facebook', 'paid_social', 'spring', '/', 5, 5, 5, 5],
      ]);
      const users = await client.query<{
        dims: number;
        day: string;
        channel: string;
        prev: string;
        users: number;
        purchase_users: number;
        id: string;
      }>(
        `select dims, to_char(day, 'YYYY-MM-DD') as day, channel, prev_day::text as prev, users, purchase_users,
              group_id::text as id
       from web_users u join touch_groups g using (store_id, group_id) order by 1, 2`,
      );
      expect(users.rows.map((r) => [r.dims, r.day, r.channel, r.prev, r.users, r.purchase_users])).toEqual([
        [0, '2026-03-01', '', '-infinity', 3, 1],
        [1, '2026-03-01', 'paid_social', '-infinity', 2, 0],
        [1, '2026-03-02', 'paid_social', '2026-03-01', 1, 0],
      ]);
      // The ids the pipeline will compute for the same groups.
      expect(users.rows[1]!.id).toBe(touchGroupId(['paid_social', '', '', '', '']));
      expect(users.rows[0]!.id).toBe(touchGroupId(['', '', '', '', '']));
      const indexes = await client.query<{ indexname: string }>(
        "select indexname from pg_indexes where tablename in ('web_daily', 'web_users') order by 1",
      );
      expect(indexes.rows.map((r) => r.indexname)).toEqual(['web_daily_pkey', 'web_users_pkey']);
      const groups = await client.query('select store_id, count(*)::int as n from touch_groups group by 1 order by 1');
      expect(groups.rows).toEqual([
        { store_id: 'st_a', n: 4 },
        { store_id: 'st_b', n: 1 },
      ]);
    } finally {
      await client.end().catch(() => undefined);
    }
  });
});

it('a worker records each touch group until one of its batches commits it, and never after a rollback', async () => {
  const { store } = await createTestStore(db);
  const s = store.store_id;
  const maintain = createViewMaintainer(silentLogger());
  const inserts: string[] = [];
  // The worker's own maintainer, noting the groups each batch inserts into touch_groups.
  const noting: MaintainViews = (tx, facts, afterCommit) =>
    maintain(
      queryThrough(tx, (tag, sql, params) => {
        if (tag === 'views.touch_groups_insert') inserts.push(...(params![1] as string[]));
        return tx(tag, sql, params);
      }),
      facts,
      afterCommit,
    );
  const visit = (client: string, at: string) =>
    batchItem(s, 0, 'page_viewed', pageView({ client, at, url: 'https://shop.example/?utm_source=news' }));
  const missing = async () =>
    (
      await db.query<{ n: number }>(
        'test.missing_groups',
        `select count(*)::int as n from (select group_id from web_daily where store_id = $1
                                         union select group_id from web_users where store_id = $1) r
         where not exists (select 1 from touch_groups g where g.store_id = $1 and g.group_id = r.group_id)`,
        [s],
      )
    )[0]!.n;
  const stored = async () =>
    (
      await db.query<{ n: number }>('test.groups', 'select count(*)::int as n from touch_groups where store_id = $1', [
        s,
      ])
    )[0]!.n;

  // A batch whose transaction rolls back after its views were written: its groups must not be remembered.
  const failing: MaintainViews = async (tx, facts, afterCommit) => {
    await noting(tx, facts, afterCommit);
    throw new Error('rolled back on purpose');
  };
  await expect(createBatchWriter(db, failing).applyBatch([visit('tg-1', '2026-03-02T10:00:00Z')])).rejects.toThrow(
    'rolled back on purpose',
  );
  const attempted = inserts.length;
  expect(attempted).toBeGreaterThan(0);
  expect(await stored()).toBe(0);

  // The same visit again: every group is inserted anew and committed.
  inserts.length = 0;
  const writer = createBatchWriter(db, noting);
  await writer.applyBatch([visit('tg-1', '2026-03-02T10:00:00Z')]);
  expect(inserts).toHaveLength(attempted);
  expect(await stored()).toBe(attempted);

  // Another visitor in the same groups on the same day: nothing left to record.
  inserts.length = 0;
  await writer.applyBatch([visit('tg-2', '2026-03-02T11:00:00Z')]);
  expect(inserts).toEqual([]);
  expect(await missing()).toBe(0);
  expect((await reconcileStore(db, s)).drift).toEqual([]);
});
