/**
 * Reports read whole months and weeks from the attribution rollups by period and only the days at the range's
 * edges from those by day (docs/decisions.md, Storage, "Weeks and months"). A property test asks
 * get-list and the web funnel for random ranges, models and dimension sets over four months of purchases, some
 * sent late, and holds every answer to the daily rollup summed directly; the reconciliation finds no drift in
 * the rollups by period, and finds their changed rows; the migrations that put the credit rollups' models side by
 * side give the rows the pipeline writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import request from 'supertest';
import type { StorefrontEvent } from '../../contracts/src/events';
import { DIMENSIONS, RULE_BASED_MODELS, MONEY_SCALE, WEIGHT_SCALE } from '../../contracts/src/attribution';
import { roundMoney, roundTo } from '../../contracts/src/metrics';
import type { AttributionRecord } from '../../contracts/src/reports';
import type { Db, Query } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import {
  createTestStore,
  pacer,
  startTestApi,
  startTestPipeline,
  testDb,
  type TestStore,
  waitFor,
} from '../support/harness';
import { checkoutCompleted, pageView, send } from '../support/journeys';
import { ATTRIBUTION_BY_AD } from '../../pipeline/src/domain/rollups/ad';
import { ATTRIBUTION_DAILY, ATTRIBUTION_ROLLUPS } from '../../pipeline/src/domain/rollups/attribution';
import { byModel } from '../support/attribution-by-model';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let shop: TestStore;

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const SPAN_DAYS = 125;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const LANDINGS = [
  'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand&gclid=g1',
  'https://shop.example/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring&fbclid=f1',
  'https://shop.example/?utm_source=klaviyo&utm_medium=email&utm_campaign=news',
  'https://shop.example/products/tee?utm_source=klaviyo&utm_medium=email&utm_campaign=news',
  'https://shop.example/blog',
  'https://shop.example/collections/summer?utm_source=tiktok&utm_medium=paid_social&utm_campaign=teens&ttclid=t1',
];
const PERSONS = 90;

const paced = pacer();
function post(path: string, body: object) {
  return paced(path, () => request(api.url).post(path).set('ApiKey', shop.credentials.api_key).send(body));
}

/** Person i: one or two visits some days apart, then a purchase; spread over the span by a fixed stride. */
function journey(i: number) {
  const client = `P${i}`;
  const buyDay = today - ((i * 37) % SPAN_DAYS) * DAY - DAY;
  const at = (ms: number) => new Date(ms).toISOString();
  const events: StorefrontEvent[] = [
    pageView({ client, at: at(buyDay - (i % 5) * DAY + 9 * 3600_000), url: LANDINGS[i % 6] }),
  ];
  if (i % 3 === 0) events.push(pageView({ client, at: at(buyDay + 10 * 3600_000), url: LANDINGS[(i + 1) % 6] }));
  events.push(
    checkoutCompleted(
      { client, at: at(buyDay + 11 * 3600_000) },
      { orderId: `p-${i}`, token: `tp-${i}`, amount: 10 + i, email: `p${i}@example.com` },
    ),
  );
  return events;
}

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { timezone: 'UTC' });
  const ingest = shop.credentials.ingest_key;
  const storeId = shop.store.store_id;
  // The recent persons first, then the older ones late, as a backfill would send them.
  const recentFirst = Array.from({ length: PERSONS }, (_, i) => i).sort(
    (a, b) => ((a * 37) % SPAN_DAYS) - ((b * 37) % SPAN_DAYS),
  );
  for (let from = 0; from < PERSONS; from += 30) {
    await send(api.url, ingest, db, storeId, recentFirst.slice(from, from + 30).flatMap(journey));
  }
  await waitFor(
    () =>
      db.query<{ n: string }>(
        'test.conversions',
        "select count(*) as n from conversions where store_id = $1 and goal = 'purchase'",
        [storeId],
      ),
    (rows) => Number(rows[0]!.n) === PERSONS,
  );
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await db.close();
});

/** What the daily rollup holds for [start, end) grouped by `dims`: conversions and value by joined key. */
async function fromDays(dims: readonly string[], model: string, start: string, end: string) {
  const rows = await db.query<Record<string, string>>(
    'test.days',
    `select ${dims.join(', ')}, sum(weight) as weight, sum(value_micros) as value_micros
     from ${byModel(ATTRIBUTION_DAILY)}
     where store_id = $1 and goal = 'purchase' and model = $2 and day >= $3::date and day < $4::date
     group by ${dims.join(', ')}`,
    [shop.store.store_id, model, start, end],
  );
  return new Map(
    rows.map((r) => [
      dims.map((d) => r[d]).join('|'),
      {
        conversions: roundTo(Number(r.weight) / WEIGHT_SCALE, 6),
        conversion_value: roundMoney(Number(r.value_micros) / MONEY_SCALE),
      },
    ]),
  );
}

it('reads the rollups by week and month for any range as the days would sum', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: SPAN_DAYS + 10 }),
      fc.integer({ min: 1, max: SPAN_DAYS + 10 }),
      fc.shuffledSubarray([...DIMENSIONS], { minLength: 1, maxLength: 3 }),
      fc.constantFrom(...RULE_BASED_MODELS),
      async (back, length, dims, model) => {
        const start = dayOf(today - back * DAY);
        const end = dayOf(today - back * DAY + length * DAY);
        const res = await post('/v2-4-2/api/all-attribution/get-list', {
          start_date: start,
          end_date: end,
          dimensions: dims,
          model,
          goal: 'purchase',
          page: 1,
          page_size: 100,
        });
        expect(res.status).toBe(200);
        const records = res.body.data.records as AttributionRecord[];
        const got = new Map(
          records.map((r) => [
            dims.map((d) => r[d as keyof AttributionRecord]).join('|'),
            { conversions: r.conversions, conversion_value: r.conversion_value },
          ]),
        );
        expect(got).toEqual(await fromDays(dims, model, start, end));
        expect(res.body.data.total).toBe(got.size);
      },
    ),
    { numRuns: 40 },
  );
});

it.each([[['source', 'landing_page']], [['channel', 'medium']]])(
  "gives the web funnel's purchases by %j over months and weeks as the days would sum",
  async (dims) => {
    const start = dayOf(today - SPAN_DAYS * DAY);
    const end = dayOf(today);
    const res = await post('/v2-4-2/api/get/web-analysis/list', {
      start_date: start,
      end_date: end,
      dimensions: dims,
      page_size: 100,
    });
    expect(res.status).toBe(200);
    const expected = await fromDays(dims, 'last', start, end);
    const got = new Map(
      (res.body.data.records as Array<Record<string, string | number>>)
        .filter((r) => Number(r.purchases) > 0)
        .map((r) => [dims.map((d) => r[d]).join('|'), r.purchases]),
    );
    expect(got).toEqual(new Map([...expected].map(([k, v]) => [k, v.conversions])));
    expect([...got.values()].reduce((s, n) => Number(s) + Number(n), 0)).toBe(PERSONS);
  },
);

it('holds the rollups by week and month to the recomputation: no drift, a changed row found and repaired', async () => {
  const storeId = shop.store.store_id;
  const clean = await reconcileStore(db, storeId);
  expect(clean.driftCount).toBe(0);
  await db.query(
    'test.tamper',
    "update attribution_periods set weight_last = weight_last + 1 where store_id = $1 and grain = 'month'",
    [storeId],
  );
  await db.query(
    'test.tamper',
    "delete from attribution_by_source_periods where store_id = $1 and grain = 'week' and weight_first <> 0",
    [storeId],
  );
  const found = await reconcileStore(db, storeId);
  expect(new Set(found.drift.map((d) => d.view))).toEqual(
    new Set(['attribution_periods', 'attribution_by_source_periods']),
  );
  for (const d of found.drift) {
    if (d.view === 'attribution_periods') expect(d.key).toMatch(/^month\|/);
    else expect([d.key, d.actual]).toEqual([expect.stringMatching(/^week\|/), null]);
  }
  await reconcileStore(db, storeId, { repair: true });
  expect((await reconcileStore(db, storeId)).driftCount).toBe(0);
});

/** The migrations that put each credit rollup's models side by side, and the rows by group the store has at least. */
const SIDE_BY_SIDE = [
  ...ATTRIBUTION_ROLLUPS.map((t) => [t.table, t, '0026_attribution_models_side_by_side.sql', 50] as const),
  [ATTRIBUTION_BY_AD.table, ATTRIBUTION_BY_AD, '0027_ad_rollup_models_side_by_side.sql', 20] as const,
];

it.each(SIDE_BY_SIDE)(
  "puts each model's sums of %s in its own columns as the pipeline does (the models side by side migration's select)",
  async (table, t, migration, atLeast) => {
    // The migration turned each table's rows by model into rows by group once; its select, run on this store's
    // rows as they were by model, must give the rows the pipeline has written since.
    const sql = fs.readFileSync(path.join(__dirname, '../../infra/migrations', migration), 'utf8');
    const from = sql.indexOf(`insert into ${table}\n`) + `insert into ${table}\n`.length;
    const select = sql.slice(from, sql.indexOf(';', from)).trim();
    expect(select).toMatch(new RegExp(`^select .*\\sfrom ${table}_by_model\\s+group by [^;]*$`, 's'));
    const rows = (q: Query, source: string) =>
      q<{ r: unknown }>('test.fill', `select to_jsonb(f) - 'store_id' as r from (${source}) f where store_id = $1`, [
        shop.store.store_id,
      ]).then((rs) => rs.map((r) => JSON.stringify(r.r)).sort());
    const [filled, written] = await db.session(async (q) => {
      // The rows by model, under the name the migration reads them from (a temporary table comes first).
      await q('test.by_model', `create temporary table ${table}_by_model as select * from ${byModel(t)}`);
      try {
        return [await rows(q, select), await rows(q, `select * from ${table}`)];
      } finally {
        await q('test.by_model', `drop table pg_temp.${table}_by_model`);
      }
    });
    expect(filled.length).toBeGreaterThan(atLeast);
    expect(filled).toEqual(written);
  },
);
