/**
 * Property: the credits the live views hold (conversion_credits, maintained batch by batch by the pipeline's
 * real batch writer and view maintainer in PostgreSQL, from shuffled streams in random batches) equal the
 * reference model of test/support/attribution-reference.ts, worked from the stored sessions, persons and
 * conversions and the store's settings alone, under every model (docs/product.md, Attribution). The views
 * property test compares the views with the pipeline's own recomputation; this one does not use it.
 */
import fc from 'fast-check';
import type { StorefrontEvent } from '../../contracts/src/events';
import type { ShopOrder } from '../../contracts/src/pushes';
import { RULE_BASED_MODELS } from '../../contracts/src/attribution';
import { PUSH_SUBJECT_NAMES } from '../../contracts/src/subjects';
import type { Db } from '../../storage/db';
import { silentLogger } from '../../runtime/logger';
import { createBatchWriter } from '../../pipeline/src/adapters/pg-batch-writer';
import { createViewMaintainer } from '../../pipeline/src/adapters/pg-view-maintainer';
import { batchItem } from '../support/batch-items';
import { createTestStore, testDb } from '../support/harness';
import { addToCart, checkoutCompleted, leadForm, order, pageView } from '../support/journeys';
import { referenceAttribution, type RefTouch } from '../support/attribution-reference';

let db: Db;
let writer: ReturnType<typeof createBatchWriter>;

beforeAll(() => {
  db = testDb();
  writer = createBatchWriter(db, createViewMaintainer(silentLogger()));
});
afterAll(() => db.close());

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-05T00:00:00Z');
const RECEIVED = Date.parse('2027-01-01T00:00:00Z');
const URLS = [
  'https://shop.example/',
  'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand',
  'https://shop.example/?utm_source=klaviyo&utm_medium=email&utm_campaign=news',
  'https://shop.example/products/tee',
  'https://shop.example/?ttclid=9',
  'https://shop.example/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring&utm_id=120&adset_id=1201&ad_id=12011',
];
const REFERRERS = ['', 'https://www.google.com/', 'https://blog.example.org/post', 'https://shop.example/'];

type Fact = { kind: 'event'; event: StorefrontEvent } | { kind: 'order'; order: ShopOrder };

/** A random store: its settings, then clients' visits, carts, leads and purchases, and orders pushed alone. */
const storeArb = fc
  .record({
    lookbackDays: fc.constantFrom(1, 7, 30),
    halfLifeDays: fc.constantFrom(0.1, 0.5, 3, 7, 365),
  })
  .chain((settings) => {
    const span = Math.ceil(settings.lookbackDays * 1.5 * DAY);
    // Some instants repeat (equal session starts on two clients) and some sit one window after another.
    const at = fc.oneof(
      fc.integer({ min: 0, max: span }),
      fc.constantFrom(0, DAY),
      fc.constantFrom(-1, 0, 1).map((d) => settings.lookbackDays * DAY + d),
    );
    const cents = fc.oneof(fc.integer({ min: 0, max: 50_000 }), fc.integer({ min: 0, max: 10_000_000_000 }));
    return fc.record({
      settings: fc.constant(settings),
      steps: fc.array(
        fc.record({
          client: fc.integer({ min: 0, max: 4 }),
          at,
          kind: fc.constantFrom('view', 'view', 'view', 'cart', 'purchase', 'lead'),
          url: fc.constantFrom(...URLS),
          referrer: fc.constantFrom(...REFERRERS),
          email: fc.integer({ min: 0, max: 2 }),
          cents,
        }),
        { minLength: 5, maxLength: 40 },
      ),
      pushed: fc.array(
        fc.record({
          at,
          email: fc.integer({ min: 0, max: 2 }),
          cents,
          landing: fc.constantFrom('', '/?utm_source=tiktok&utm_medium=cpc', '/p?fbclid=2'),
        }),
        { maxLength: 2 },
      ),
    });
  })
  .map(({ settings, steps, pushed }) => {
    const iso = (ms: number): string => new Date(T0 + ms).toISOString();
    const facts: Fact[] = steps.map((s, i): Fact => {
      const a = { client: `c${s.client}`, at: iso(s.at), url: s.url, referrer: s.referrer, id: `e${i}` };
      const email = `p${s.email}@example.com`;
      const amount = s.cents / 100;
      switch (s.kind) {
        case 'view':
          return { kind: 'event', event: pageView(a) };
        case 'cart':
          return { kind: 'event', event: addToCart(a, amount) };
        case 'lead':
          return { kind: 'event', event: leadForm(a, email) };
        case 'purchase': {
          const o = { orderId: String(900_000 + i), token: `t${i}`, amount, email };
          return { kind: 'event', event: checkoutCompleted(a, o) };
        }
      }
    });
    pushed.forEach((p, i) => {
      const o = order({
        id: String(990_000 + i),
        email: `p${p.email}@example.com`,
        total_price: (p.cents / 100).toFixed(2),
        currency: 'USD',
        created_at: iso(p.at),
        updated_at: iso(p.at + 1),
        landing_site: p.landing,
      });
      facts.push({ kind: 'order', order: o });
    });
    return { settings, facts };
  });

function toItem(storeId: string, f: Fact) {
  return f.kind === 'event'
    ? batchItem(storeId, 0, f.event.name, f.event, RECEIVED)
    : batchItem(storeId, 0, PUSH_SUBJECT_NAMES.orders, f.order, RECEIVED);
}

const DIMS = [
  'channel',
  'source',
  'medium',
  'campaign',
  'landing_page',
  'platform',
  'link_code',
  'campaign_id',
  'ad_set_id',
  'ad_id',
] as const;
type Dims = Record<(typeof DIMS)[number], string>;

/** The direct touchpoint that stands in when none is in the window (docs/product.md, Attribution). */
const STAND_IN: Dims = {
  channel: 'direct',
  source: '(direct)',
  medium: '(none)',
  campaign: '(direct)',
  landing_page: '',
  platform: '',
  link_code: '',
  campaign_id: '',
  ad_set_id: '',
  ad_id: '',
};

/** One stored credit row: a conversion's touchpoints of one model that share their dimensions, summed. */
interface CreditRow extends Dims {
  goal: string;
  conversion_key: string;
  model: string;
  touch_index: number;
  weight: string;
  new_weight: string;
  value_micros: string;
  cogs_micros: string;
  touches: number;
}

/** The credit rows the reference model gives for a store, worked from its stored sessions and conversions. */
async function referenceRows(storeId: string): Promise<CreditRow[]> {
  const [store] = await db.query<{ lookback_days: number; half_life_days: string }>(
    'test.store',
    'select lookback_days, half_life_days from stores where store_id = $1',
    [storeId],
  );
  const rules = { lookbackDays: store!.lookback_days, halfLifeDays: Number(store!.half_life_days) };
  const sessions = await db.query<Dims & { person_id: string; client_id: string; started_at: Date }>(
    'test.sessions',
    `select c.person_id, s.client_id, s.started_at, ${DIMS.map((d) => `s.${d}`).join(', ')}
     from sessions s join clients c using (store_id, client_id) where s.store_id = $1`,
    [storeId],
  );
  const touchesOf = new Map<string, Array<RefTouch & { dims: Dims }>>();
  for (const s of sessions) {
    const dims = Object.fromEntries(DIMS.map((d) => [d, s[d]])) as Dims;
    const touch = {
      start: s.started_at.getTime(),
      clientId: s.client_id,
      direct: s.source === '(direct)' && s.medium === '(none)',
      dims,
    };
    touchesOf.set(s.person_id, [...(touchesOf.get(s.person_id) ?? []), touch]);
  }
  const conversions = await db.query<{
    goal: string;
    conversion_key: string;
    person_id: string;
    occurred_at: Date;
    value_micros: string;
    cogs_micros: string;
    is_new: boolean;
  }>(
    'test.conversions',
    `select goal, conversion_key, person_id, occurred_at, value_micros, cogs_micros, is_new
     from conversions where store_id = $1`,
    [storeId],
  );
  const rows: CreditRow[] = [];
  for (const c of conversions) {
    const ref = referenceAttribution(
      touchesOf.get(c.person_id) ?? [],
      {
        at: c.occurred_at.getTime(),
        valueCents: Number(BigInt(c.value_micros) / 10_000n),
        cogsCents: Number(BigInt(c.cogs_micros) / 10_000n),
      },
      rules,
    );
    for (const model of RULE_BASED_MODELS) {
      // One row per distinct dimensions, at the first index, summing its touchpoints (docs/decisions.md,
      // Storage, "One credit row per distinct touchpoint"); touchpoints without a share have no row.
      const byDims = new Map<string, CreditRow>();
      ref.credits[model].forEach((k, index) => {
        if (k.share.num === 0n) return;
        const dims = ref.touches[index]?.dims ?? STAND_IN;
        const key = DIMS.map((d) => dims[d]).join('\u0000');
        const row = byDims.get(key);
        const weight = BigInt(k.weight);
        const add = {
          w: weight,
          n: c.is_new ? weight : 0n,
          v: BigInt(k.valueCents) * 10_000n,
          g: BigInt(k.cogsCents) * 10_000n,
        };
        if (row) {
          row.weight = String(BigInt(row.weight) + add.w);
          row.new_weight = String(BigInt(row.new_weight) + add.n);
          row.value_micros = String(BigInt(row.value_micros) + add.v);
          row.cogs_micros = String(BigInt(row.cogs_micros) + add.g);
          row.touches++;
          return;
        }
        byDims.set(key, {
          goal: c.goal,
          conversion_key: c.conversion_key,
          model,
          touch_index: index,
          ...dims,
          weight: String(add.w),
          new_weight: String(add.n),
          value_micros: String(add.v),
          cogs_micros: String(add.g),
          touches: 1,
        });
      });
      rows.push(...byDims.values());
    }
  }
  return rows.sort(byKey);
}

const byKey = (a: CreditRow, b: CreditRow): number =>
  a.goal.localeCompare(b.goal) ||
  a.conversion_key.localeCompare(b.conversion_key) ||
  a.model.localeCompare(b.model) ||
  a.touch_index - b.touch_index;

async function storedRows(storeId: string): Promise<CreditRow[]> {
  const rows = await db.query<CreditRow>(
    'test.credits',
    `select goal, conversion_key, model, touch_index, ${DIMS.join(', ')}, weight::text as weight,
            new_weight::text as new_weight, value_micros::text as value_micros, cogs_micros::text as cogs_micros, touches
     from conversion_credits where store_id = $1`,
    [storeId],
  );
  return rows.sort(byKey);
}

it('the live views credit every conversion as the reference model does, under every model', async () => {
  let conversions = 0;
  await fc.assert(
    fc.asyncProperty(
      storeArb.chain(({ settings, facts }) =>
        fc.record({
          settings: fc.constant(settings),
          shuffled: fc.shuffledSubarray(facts, { minLength: facts.length, maxLength: facts.length }),
          sizes: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 5 }),
        }),
      ),
      async ({ settings, shuffled, sizes }) => {
        const storeId = (await createTestStore(db, { timezone: 'Europe/Paris', ...settings })).store.store_id;
        for (let i = 0, s = 0; i < shuffled.length; s++) {
          const n = sizes[s % sizes.length]!;
          await writer.applyBatch(shuffled.slice(i, i + n).map((f) => toItem(storeId, f)));
          i += n;
        }
        const want = await referenceRows(storeId);
        expect(await storedRows(storeId)).toEqual(want);
        conversions += new Set(want.map((r) => `${r.goal}\u0000${r.conversion_key}`)).size;
      },
    ),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 15), endOnFailure: true },
  );
  // The stores converted: the comparison ran on many conversions, not on none.
  expect(conversions).toBeGreaterThan(50);
});
