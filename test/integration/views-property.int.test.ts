/**
 * Property: for random event streams, processing them shuffled, with duplicates and with
 * redelivered batches, and in batches shared with another store, gives views identical to processing them once
 * in order, and identical to the reconciliation's recomputation (zero drift). Batches go through the pipeline's real batch writer and
 * view maintainer against the real PostgreSQL; stream delivery itself is covered by the crash tests.
 * The streams carry paid landings with ad ids (Meta and Google style) and ad spend rows in two versions, and
 * the stores a random half-life, so the ad rollup and the time-decay credits are covered too.
 */
import fc from 'fast-check';
import type { StorefrontEvent } from '../../contracts/src/events';
import type { AdSpendRow, ShopOrder, ShopProduct } from '../../contracts/src/pushes';
import { PUSH_SUBJECT_NAMES } from '../../contracts/src/subjects';
import { sampleAdSpendRow, sampleProduct } from '../support/samples';
import type { Db } from '../../storage/db';
import { silentLogger } from '../../runtime/logger';
import { createBatchWriter } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import type { BatchItem } from '../../pipeline/src/stream/build-pipeline';
import { batchItem } from '../support/batch-items';
import { createTestStore, testDb } from '../support/harness';
import {
  addToCart,
  checkoutCompleted,
  checkoutStarted,
  leadForm,
  order,
  pageView,
  paymentInfo,
  productView,
} from '../support/journeys';
import {
  ATTRIBUTION_BY_SOURCE_PERIODS,
  ATTRIBUTION_DAILY,
  ATTRIBUTION_PERIODS,
} from '../../pipeline/src/domain/rollups/attribution';
import { ATTRIBUTION_BY_AD } from '../../pipeline/src/domain/rollups/ad';
import { byModel } from '../support/attribution-by-model';

/** The analytics views, compared without their store id. */
const ANALYTICS_TABLES = [
  'web_person_days',
  'product_person_days',
  'product_person_credits',
  'web_daily',
  'web_users',
  'product_daily',
  'product_users',
  'product_credits_daily',
] as const;

let db: Db;
let writer: ReturnType<typeof createBatchWriter>;
/** Persons the maintainer recomputed, by path (extended: credited only after what the views held). */
const recomputed = { extended: 0, full: 0, new: 0 };

beforeAll(() => {
  db = testDb();
  writer = createBatchWriter(
    db,
    createViewMaintainer(silentLogger(), {
      onRecomputed: (counts) => {
        for (const path of ['extended', 'full', 'new'] as const) recomputed[path] += counts[path];
      },
    }),
  );
});
afterAll(() => db.close());

type Fact =
  | { kind: 'event'; event: StorefrontEvent }
  | { kind: 'order'; order: ShopOrder }
  | { kind: 'product'; product: ShopProduct }
  | { kind: 'spend'; row: AdSpendRow };

const T0 = Date.parse('2026-02-01T00:00:00Z');
const URLS = [
  'https://shop.example/',
  'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand',
  'https://shop.example/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring&fbclid=1',
  'https://shop.example/?utm_source=klaviyo&utm_medium=email&utm_campaign=news',
  'https://shop.example/products/tee',
  'https://shop.example/?ttclid=9',
  'https://shop.example/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring&utm_id=120&adset_id=1201&ad_id=12011',
  'https://shop.example/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring&utm_id=120&adset_id=1201&ad_id=12012',
  'https://shop.example/?gclid=3&campaignid=205&adgroupid=1512&creative=6901',
  'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand&campaignid=205&adgroupid=1513&creative=6902',
];
const REFERRERS = [
  '',
  'https://www.google.com/',
  'https://l.facebook.com/',
  'https://blog.example.org/post',
  'https://shop.example/',
];
/** Ads with spend rows: platform, campaign id, ad set id, ad id, utm campaign (two of them match URLS). */
const SPEND_ADS: ReadonlyArray<[string, string, string, string, string]> = [
  ['facebook', '120', '1201', '12011', 'spring'],
  ['facebook', '120', '1201', '12012', 'spring'],
  ['google', '205', '1512', '6901', 'brand'],
];
const VARIANTS = ['45737128657113', '45737128689881'];

const iso = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

/** A random small world: a few clients and emails, sessions, carts, checkouts, purchases, orders, products. */
const worldArb = fc
  .record({
    steps: fc.array(
      fc.record({
        client: fc.integer({ min: 0, max: 3 }),
        minute: fc.integer({ min: 0, max: 60 * 24 * 12 }),
        kind: fc.constantFrom(
          'view',
          'view',
          'view',
          'product',
          'product',
          'cart',
          'checkout',
          'payment',
          'purchase',
          'lead',
        ),
        url: fc.integer({ min: 0, max: URLS.length - 1 }),
        ref: fc.integer({ min: 0, max: REFERRERS.length - 1 }),
        email: fc.integer({ min: 0, max: 2 }),
        token: fc.integer({ min: 0, max: 3 }),
        amount: fc.integer({ min: 1, max: 500 }),
        variant: fc.integer({ min: 0, max: 1 }),
        firstOrder: fc.constantFrom<boolean | null>(true, false, null),
      }),
      { minLength: 5, maxLength: 40 },
    ),
    orderEdits: fc.array(
      fc.record({ which: fc.nat(), refund: fc.integer({ min: 0, max: 50 }), cancel: fc.boolean() }),
      { maxLength: 3 },
    ),
    costs: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 0, maxLength: 3 }),
    spend: fc.array(
      fc.record({
        ad: fc.integer({ min: 0, max: SPEND_ADS.length - 1 }),
        day: fc.integer({ min: 0, max: 11 }),
        cents: fc.integer({ min: 0, max: 50_000 }),
        clicks: fc.integer({ min: 0, max: 300 }),
      }),
      { maxLength: 4 },
    ),
  })
  .map(({ steps, orderEdits, costs, spend }) => {
    const facts: Fact[] = [];
    const orders: ShopOrder[] = [];
    steps.forEach((s, i) => {
      const at = {
        client: `c${s.client}`,
        at: iso(s.minute),
        url: URLS[s.url],
        referrer: REFERRERS[s.ref],
        id: `e${i}`,
      };
      const email = `p${s.email}@example.com`;
      const token = `tok${s.token}`;
      switch (s.kind) {
        case 'view':
          facts.push({ kind: 'event', event: pageView(at) });
          break;
        case 'product':
          facts.push({ kind: 'event', event: productView(at, s.variant as 0 | 1) });
          break;
        case 'cart':
          facts.push({ kind: 'event', event: addToCart(at, s.amount, VARIANTS[s.variant]) });
          break;
        case 'checkout':
          facts.push({ kind: 'event', event: checkoutStarted(at, token, s.amount, email) });
          break;
        case 'payment':
          facts.push({ kind: 'event', event: paymentInfo(at, token, s.amount, email) });
          break;
        case 'lead':
          facts.push({ kind: 'event', event: leadForm(at, email) });
          break;
        case 'purchase': {
          const orderId = String(900000 + i);
          facts.push({
            kind: 'event',
            event: checkoutCompleted(at, {
              orderId,
              token: `ptok${i}`,
              amount: s.amount,
              email,
              firstOrder: s.firstOrder,
            }),
          });
          const o = order({
            id: orderId,
            email,
            total_price: `${s.amount}.00`,
            currency: 'USD',
            created_at: at.at,
            updated_at: iso(s.minute + 1),
            line_items: [
              {
                id: String(i + 1),
                variant_id: VARIANTS[s.variant]!,
                product_id: '8950316581081',
                quantity: 2,
                price: '10.00',
              },
            ],
          });
          orders.push(o);
          facts.push({ kind: 'order', order: o });
          break;
        }
      }
    });
    orderEdits.forEach((e, n) => {
      const base = orders[e.which % Math.max(1, orders.length)];
      if (!base) return;
      const refunds = e.refund
        ? [
            {
              id: String(70000 + n),
              created_at: base.updated_at,
              transactions: [{ amount: `${e.refund}.00`, kind: 'refund', status: 'success' }],
            },
          ]
        : [];
      facts.push({
        kind: 'order',
        order: {
          ...base,
          updated_at: new Date(Date.parse(base.updated_at) + (n + 1) * 3600_000).toISOString(),
          refunds,
          cancelled_at: e.cancel ? base.updated_at : null,
        },
      });
    });
    // An order pushed with no checkout event (server-side fallback), and product cost versions.
    facts.push({
      kind: 'order',
      order: order({
        id: '990001',
        email: 'p1@example.com',
        total_price: '33.00',
        currency: 'USD',
        created_at: iso(600),
        updated_at: iso(601),
        landing_site: '/?utm_source=tiktok&utm_medium=cpc',
      }),
    });
    costs.forEach((c, n) => {
      const p = sampleProduct({ updated_at: new Date(T0 + n * 60_000).toISOString() });
      facts.push({ kind: 'product', product: { ...p, variants: p.variants.map((v) => ({ ...v, cost: `${c}.50` })) } });
    });
    // Ad spend rows of the ads above; a row of the same ad and day pushed again later replaces the earlier one.
    spend.forEach((x, n) => {
      const [platform, campaignId, adsetId, adId, campaign] = SPEND_ADS[x.ad]!;
      facts.push({
        kind: 'spend',
        row: sampleAdSpendRow({
          date: new Date(T0 + x.day * 86_400_000).toISOString().slice(0, 10),
          platform,
          campaign_id: campaignId,
          adset_id: adsetId,
          ad_id: adId,
          source: platform,
          medium: platform === 'google' ? 'cpc' : 'paid_social',
          campaign,
          spend: x.cents / 100,
          clicks: x.clicks,
          impressions: x.clicks * 40,
          updated_at: new Date(T0 + (20 + n) * 86_400_000).toISOString(),
        }),
      });
    });
    return facts;
  });

/** When a fact happened: an event's time, an order's or product's update, an ad spend row's push. */
function timeOf(f: Fact): number {
  switch (f.kind) {
    case 'event':
      return Date.parse(f.event.timestamp);
    case 'order':
      return Date.parse(f.order.updated_at);
    case 'product':
      return Date.parse(f.product.updated_at);
    case 'spend':
      return Date.parse(f.row.updated_at ?? f.row.date);
  }
}

function toItem(storeId: string, f: Fact): BatchItem {
  const [name, body] =
    f.kind === 'event'
      ? [f.event.name, f.event]
      : f.kind === 'order'
        ? [PUSH_SUBJECT_NAMES.orders, f.order]
        : f.kind === 'product'
          ? [PUSH_SUBJECT_NAMES.products, f.product]
          : [PUSH_SUBJECT_NAMES['ad-spend'], f.row];
  return batchItem(storeId, 0, name, body, Date.parse('2026-03-01T00:00:00Z'));
}

async function apply(storeId: string, facts: Fact[], sizes: number[]): Promise<void> {
  let i = 0;
  let s = 0;
  while (i < facts.length) {
    const n = Math.max(1, sizes[s++ % Math.max(1, sizes.length)] ?? 1);
    await writer.applyBatch(facts.slice(i, i + n).map((f) => toItem(storeId, f)));
    i += n;
  }
}

/**
 * Applies the facts of several stores in shared batches: each batch takes the next few facts of every store, as
 * the daemon's batches hold every store whose events came meanwhile.
 */
async function applyTogether(stores: Array<{ storeId: string; facts: Fact[] }>, sizes: number[]): Promise<void> {
  const at = stores.map(() => 0);
  let s = 0;
  while (stores.some((st, k) => at[k]! < st.facts.length)) {
    const n = Math.max(1, sizes[s++ % Math.max(1, sizes.length)] ?? 1);
    const items = stores.flatMap(({ storeId, facts }, k) => {
      const chunk = facts.slice(at[k], at[k]! + n);
      at[k] = at[k]! + n;
      return chunk.map((f) => toItem(storeId, f));
    });
    await writer.applyBatch(items);
  }
}

/** Everything the views hold for a store, in a store-independent form. */
async function snapshot(storeId: string): Promise<Record<string, unknown[]>> {
  const rows = (sql: string) => db.query('test.snapshot', sql, [storeId]);
  const analytics: Record<string, string[]> = {};
  for (const t of ANALYTICS_TABLES) {
    analytics[t] = (await rows(`select * from ${t} where store_id = $1`))
      .map(({ store_id: _, ...r }) => JSON.stringify(r))
      .sort();
  }
  return {
    attribution: await rows(
      `select to_char(day,'YYYY-MM-DD') d, goal, model, channel, source, medium, campaign, landing_page, weight, new_weight, value_micros, cogs_micros
       from ${byModel(ATTRIBUTION_DAILY)} where store_id = $1 order by 1,2,3,4,5,6,7,8`,
    ),
    attributionPeriods: await rows(
      `select grain, to_char(day,'YYYY-MM-DD') d, goal, model, channel, source, medium, campaign, landing_page,
              weight, new_weight, value_micros, cogs_micros
       from ${byModel(ATTRIBUTION_PERIODS)} where store_id = $1 order by 1,2,3,4,5,6,7,8,9,10`,
    ),
    attributionBySourcePeriods: await rows(
      `select grain, to_char(day,'YYYY-MM-DD') d, goal, model, channel, source, medium, campaign,
              weight, new_weight, value_micros, cogs_micros
       from ${byModel(ATTRIBUTION_BY_SOURCE_PERIODS)} where store_id = $1 order by 1,2,3,4,5,6,7,8,9`,
    ),
    conversions: await rows(
      `select goal, conversion_key, person_id, client_id, value_micros, cogs_micros, is_new, first_touch, last_touch, digest
       from conversions where store_id = $1 order by 1,2`,
    ),
    adRollup: await rows(
      `select to_char(day,'YYYY-MM-DD') d, goal, model, channel, platform, campaign, campaign_id, ad_set_id, ad_id, weight,
              new_weight, value_micros, cogs_micros
       from ${byModel(ATTRIBUTION_BY_AD)} where store_id = $1 order by 1,2,3,4,5,6,7,8,9`,
    ),
    spend: await rows(
      `select to_char(day,'YYYY-MM-DD') d, platform, channel, source, medium, campaign, spend_micros, impressions, clicks
       from ad_spend_daily where store_id = $1 order by 1,2,3,4,5,6`,
    ),
    credits: await rows(
      `select goal, conversion_key, model, touch_index, channel, source, campaign, campaign_id, ad_set_id, ad_id, weight,
              new_weight, value_micros, cogs_micros, touches
       from conversion_credits where store_id = $1 order by 1,2,3,4`,
    ),
    sessions: await rows(
      `select client_id, started_at, source, medium, campaign, landing_page, campaign_id, ad_set_id, ad_id
       from sessions where store_id = $1 order by 1,2`,
    ),
    clients: await rows(`select client_id, person_id from clients where store_id = $1 order by 1`),
    ...analytics,
  };
}

/** The stored credits of paid touchpoints summed by the ad rollup's key (an independent path to the rollup). */
async function paidCreditsByAd(storeId: string): Promise<unknown[]> {
  return db.query(
    'test.paid_credits',
    `select to_char(day,'YYYY-MM-DD') d, goal, model, channel, platform, campaign, campaign_id, ad_set_id, ad_id,
            sum(weight)::bigint::text as weight, sum(new_weight)::bigint::text as new_weight,
            sum(value_micros)::bigint::text as value_micros, sum(cogs_micros)::bigint::text as cogs_micros
     from conversion_credits where store_id = $1 and platform <> ''
     group by 1,2,3,4,5,6,7,8,9
     having sum(weight) <> 0 or sum(new_weight) <> 0 or sum(value_micros) <> 0 or sum(cogs_micros) <> 0
     order by 1,2,3,4,5,6,7,8,9`,
    [storeId],
  );
}

it('views do not depend on order, duplication or redelivery, and equal the recomputation', async () => {
  const before = { ...recomputed };
  await fc.assert(
    fc.asyncProperty(
      worldArb.chain((facts) =>
        fc.record({
          facts: fc.constant(facts),
          halfLifeDays: fc.constantFrom(0.5, 3, 7),
          shuffled: fc.shuffledSubarray(facts, { minLength: facts.length, maxLength: facts.length }),
          duplicates: fc.array(fc.nat({ max: facts.length - 1 }), { maxLength: 8 }),
          sizesA: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 5 }),
          sizesB: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 5 }),
          redeliver: fc.array(fc.nat(), { maxLength: 3 }),
        }),
      ),
      async ({ facts, halfLifeDays, shuffled, duplicates, sizesA, sizesB, redeliver }) => {
        const settings = { timezone: 'Europe/Paris', lookbackDays: 7, halfLifeDays };
        const a = (await createTestStore(db, settings)).store.store_id;
        const b = (await createTestStore(db, settings)).store.store_id;
        const c = (await createTestStore(db, settings)).store.store_id;

        await apply(a, facts, sizesA);
        // Store c in time order, as a live store sends them: persons are mostly extended, not recomputed in
        // full. Store b shuffled, with duplicated facts spliced in. The two share their batches, so every
        // statement a batch writes for several stores at once is covered.
        const noisy = [...shuffled];
        for (const d of duplicates) noisy.splice(d % (noisy.length + 1), 0, facts[d]!);
        await applyTogether(
          [
            { storeId: b, facts: noisy },
            { storeId: c, facts: [...facts].sort((x, y) => timeOf(x) - timeOf(y)) },
          ],
          sizesB,
        );
        // Some of b's batches delivered twice.
        for (const r of redeliver) {
          const start = r % noisy.length;
          await apply(b, noisy.slice(start, start + 5), [5]);
        }

        const [sa, sb, sc] = await Promise.all([snapshot(a), snapshot(b), snapshot(c)]);
        expect(sb).toEqual(sa);
        expect(sc).toEqual(sa);
        // The ad rollup is the paid credits summed by ad, and time decay credits every conversion exactly once.
        expect(sa.adRollup).toEqual(await paidCreditsByAd(a));
        const decay = await db.query<{ bad: string }>(
          'test.decay',
          `select count(*) as bad from (select goal, conversion_key from conversion_credits
             where store_id = $1 and model = 'time_decay' group by 1, 2 having sum(weight) <> 1000000) x`,
          [a],
        );
        expect(Number(decay[0]!.bad)).toBe(0);
        const [ra, rb, rc] = await Promise.all([reconcileStore(db, a), reconcileStore(db, b), reconcileStore(db, c)]);
        expect(ra.drift).toEqual([]);
        expect(rb.drift).toEqual([]);
        expect(rc.drift).toEqual([]);
      },
    ),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 30), endOnFailure: true },
  );
  // The runs exercised both paths: persons extended, and persons with stored facts recomputed in full.
  expect(recomputed.extended - before.extended).toBeGreaterThan(20);
  expect(recomputed.full - before.full).toBeGreaterThan(20);
});

it('the reconciliation reports drift in the analytics rollups, and a repair restores them', async () => {
  const [facts] = fc.sample(worldArb, { numRuns: 1, seed: 13 });
  const storeId = (await createTestStore(db, { timezone: 'Europe/Paris', lookbackDays: 7 })).store.store_id;
  await apply(storeId, facts!, [7]);
  const before = await snapshot(storeId);
  expect(before.web_daily!.length).toBeGreaterThan(0);
  expect(before.web_users!.length).toBeGreaterThan(0);

  await db.query('test.corrupt', 'update web_users set users = users + 1 where store_id = $1 and dims = 0', [storeId]);
  await db.query('test.corrupt', 'delete from web_daily where store_id = $1', [storeId]);
  const drifted = await reconcileStore(db, storeId);
  const views = new Set(drifted.drift.map((d) => d.view));
  expect(views).toEqual(new Set(['web_users', 'web_daily']));

  await reconcileStore(db, storeId, { repair: true });
  expect(await snapshot(storeId)).toEqual(before);
  expect((await reconcileStore(db, storeId)).drift).toEqual([]);

  // A rollup row naming a group that touch_groups does not hold is reported under the group's id.
  await db.query(
    'test.corrupt',
    'update web_users set group_id = 42 where ctid = (select ctid from web_users where store_id = $1 limit 1)',
    [storeId],
  );
  const unknown = await reconcileStore(db, storeId);
  expect(unknown.drift.some((d) => d.view === 'web_users' && d.key.includes('unknown touch group 42'))).toBe(true);
  await reconcileStore(db, storeId, { repair: true });
  expect((await reconcileStore(db, storeId)).drift).toEqual([]);
});
