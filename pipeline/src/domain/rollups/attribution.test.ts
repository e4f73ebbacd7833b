import fc from 'fast-check';
import { RULE_BASED_MODELS } from '../../../../contracts/src/attribution';
import { addToCart, DAY, ms, page, pageView, personFacts, UNIT } from '../../../../test/support/fact-builders';
import { type ConversionView, type Credit, recomputePerson } from '../recompute-person';
import {
  accumulateCredits,
  attributionRollupRows,
  type CreditRow,
  creditRowsOf,
  type RollupDelta,
} from './attribution';

/** The dimensions a credit row is grouped by, as one string. */
const dimsOf = (c: Credit): string =>
  [
    c.model,
    c.channel,
    c.source,
    c.medium,
    c.campaign,
    c.landingPage,
    c.platform,
    c.linkCode,
    c.campaignId,
    c.adSetId,
    c.adId,
  ].join('|');

const conversionWith = (credits: Credit[]): ConversionView => ({
  goal: 'purchase',
  key: 'o1',
  clientId: 'c1',
  at: 0,
  day: '2026-03-10',
  valueMicros: 0,
  valueOrig: null,
  currencyOrig: null,
  cogsMicros: 0,
  isNew: false,
  eventId: null,
  orderId: 'o1',
  variantIds: [],
  firstTouch: { campaign: '', channel: 'direct', source: '', medium: '', time: 0 },
  lastTouch: { campaign: '', channel: 'direct', source: '', medium: '', time: 0 },
  credits,
});

const creditArb: fc.Arbitrary<Credit> = fc.record({
  model: fc.constantFrom(...RULE_BASED_MODELS),
  channel: fc.constantFrom('direct' as const, 'paid_search' as const, 'organic_social' as const),
  source: fc.constantFrom('google', 'facebook', ''),
  medium: fc.constantFrom('cpc', ''),
  campaign: fc.constantFrom('brand', ''),
  landingPage: fc.constantFrom('/', '/a'),
  platform: fc.constantFrom('' as const, 'google' as const),
  linkCode: fc.constantFrom('', 'L1'),
  campaignId: fc.constantFrom('', '111'),
  adSetId: fc.constantFrom('', '222'),
  adId: fc.constantFrom('', '333'),
  index: fc.nat({ max: 50 }),
  weight: fc.integer({ min: -1_000_000, max: 1_000_000 }),
  newWeight: fc.integer({ min: -1_000_000, max: 1_000_000 }),
  valueMicros: fc.integer({ min: -1e9, max: 1e9 }),
  cogsMicros: fc.integer({ min: -1e9, max: 1e9 }),
});

/** Sums and touch counts by model and dimensions; first index of each group. */
function grouped(credits: Array<Credit & { touches?: number }>) {
  const out = new Map<string, { sums: number[]; touches: number; index: number }>();
  for (const c of credits) {
    const g = out.get(dimsOf(c)) ?? { sums: [0, 0, 0, 0], touches: 0, index: c.index };
    g.sums = [g.sums[0]! + c.weight, g.sums[1]! + c.newWeight, g.sums[2]! + c.valueMicros, g.sums[3]! + c.cogsMicros];
    g.touches += c.touches ?? 1;
    out.set(dimsOf(c), g);
  }
  return out;
}

describe('creditRowsOf', () => {
  it('writes one row per model and distinct dimensions, summing its touchpoints, at the first one', () => {
    fc.assert(
      fc.property(fc.array(creditArb, { maxLength: 60 }), (credits) => {
        const rows = creditRowsOf(conversionWith(credits));
        // One row per group, each group's sums and touches exactly those of its credits.
        expect(new Set(rows.map(dimsOf)).size).toBe(rows.length);
        expect(grouped(rows)).toEqual(grouped(credits));
        for (const r of rows) expect([r.goal, r.key, r.day]).toEqual(['purchase', 'o1', '2026-03-10']);
        // Each model's touches add up to its credits.
        for (const model of RULE_BASED_MODELS) {
          const touches = rows.filter((r) => r.model === model).reduce((a, r) => a + r.touches, 0);
          expect(touches).toBe(credits.filter((c) => c.model === model).length);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("groups a returning visitor's identical sessions into one row per model", () => {
    // Five sessions a day apart, each landing on the home page from the same google ad, then an add to cart:
    // every model credits the same dimensions, so each writes one row of the five touchpoints (first and last
    // one, as only one touchpoint has a share).
    const T = ms('2026-03-10T12:00:00Z');
    const ad = page('/', 'utm_source=google&utm_medium=cpc&utm_campaign=brand');
    const views = [0, 1, 2, 3, 4].map((d) => pageView(`v${d}`, T + d * DAY, ad));
    const facts = personFacts([...views, addToCart('a1', T + 4 * DAY + 60_000, 20 * UNIT)]);
    const [conversion] = recomputePerson(facts, { timezone: 'UTC', lookbackDays: 30, halfLifeDays: 7 }).conversions;
    expect(conversion!.credits).toHaveLength(2 + 3 * 5);
    const rows = creditRowsOf(conversion!);
    expect(rows.map((r) => [r.model, r.source, r.index, r.touches, r.weight])).toEqual([
      ['first', 'google', 0, 1, 1_000_000],
      ['last', 'google', 4, 1, 1_000_000],
      ['linear', 'google', 0, 5, 1_000_000],
      ['position', 'google', 0, 5, 1_000_000],
      ['time_decay', 'google', 0, 5, 1_000_000],
    ]);
  });
});

describe('attributionRollupRows', () => {
  const credit = (day: string, landingPage: string, weight: number): CreditRow => ({
    goal: 'purchase',
    key: `o-${day}`,
    day,
    model: 'linear',
    channel: 'paid_search',
    source: 'google',
    medium: 'cpc',
    campaign: 'brand',
    landingPage,
    platform: 'google',
    linkCode: '',
    campaignId: '',
    adSetId: '',
    adId: '',
    index: 0,
    weight,
    newWeight: 0,
    valueMicros: weight * 20,
    cogsMicros: 0,
    touches: 1,
  });
  const deltaOf = (credits: CreditRow[]): Map<string, RollupDelta> => {
    const d = new Map<string, RollupDelta>();
    accumulateCredits(d, credits, 1);
    return d;
  };

  it('writes the daily rows, the rows without the landing page, and the week and month rows', () => {
    // Monday 2 March and Wednesday 4 March 2026: one week (starting Monday), one month.
    const rows = attributionRollupRows(
      deltaOf([credit('2026-03-02', '/a', 600_000), credit('2026-03-04', '/b', 400_000)]),
    );
    const dims = {
      goal: 'purchase',
      model: 'linear',
      channel: 'paid_search',
      source: 'google',
      medium: 'cpc',
      campaign: 'brand',
      platform: 'google',
    };
    const sums = (w: number) => ({ weight: w, new_weight: 0, value_micros: w * 20, cogs_micros: 0 });
    const [daily, bySource, periods, bySourcePeriods] = rows.map((r) => r.rows);
    expect(daily).toEqual([
      { day: '2026-03-02', ...dims, landing_page: '/a', ...sums(600_000) },
      { day: '2026-03-04', ...dims, landing_page: '/b', ...sums(400_000) },
    ]);
    expect(bySource).toEqual([
      { day: '2026-03-02', ...dims, ...sums(600_000) },
      { day: '2026-03-04', ...dims, ...sums(400_000) },
    ]);
    expect(periods).toEqual(
      expect.arrayContaining([
        { grain: 'week', day: '2026-03-02', ...dims, landing_page: '/a', ...sums(600_000) },
        { grain: 'week', day: '2026-03-02', ...dims, landing_page: '/b', ...sums(400_000) },
        { grain: 'month', day: '2026-03-01', ...dims, landing_page: '/a', ...sums(600_000) },
        { grain: 'month', day: '2026-03-01', ...dims, landing_page: '/b', ...sums(400_000) },
      ]),
    );
    expect(periods).toHaveLength(4);
    // Without the landing page, the week and the month each sum both days.
    expect(bySourcePeriods).toEqual(
      expect.arrayContaining([
        { grain: 'week', day: '2026-03-02', ...dims, ...sums(1_000_000) },
        { grain: 'month', day: '2026-03-01', ...dims, ...sums(1_000_000) },
      ]),
    );
    expect(bySourcePeriods).toHaveLength(2);
  });

  it('sums to the credits in every table, and names no landing page where the table has none', () => {
    const creditRowArb = fc
      .tuple(
        fc.constantFrom('2026-02-27', '2026-03-01', '2026-03-02', '2026-03-31'),
        fc.constantFrom('/', '/a', '/b'),
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
      )
      .map(([day, lp, w]) => credit(day, lp, w));
    fc.assert(
      fc.property(fc.array(creditRowArb, { maxLength: 40 }), (credits) => {
        const total = credits.reduce((a, c) => a + c.weight, 0);
        for (const { table, rows } of attributionRollupRows(deltaOf(credits))) {
          const grains = table.keys.some((c) => c.name === 'grain') ? 2 : 1;
          expect(rows.reduce((a, r) => a + Number(r.weight), 0)).toBe(total * grains);
          expect(rows.every((r) => 'landing_page' in r === table.keys.some((c) => c.name === 'landing_page'))).toBe(
            true,
          );
        }
      }),
      { numRuns: 200 },
    );
  });
});
