import fc from 'fast-check';
import { RULE_BASED_MODELS } from '../../../../contracts/src/attribution';
import { addToCart, DAY, ms, page, pageView, personFacts, UNIT } from '../../../../test/support/fact-builders';
import { type ConversionView, type Credit, recomputePerson } from '../recompute-person';
import { creditRowsOf } from './attribution';

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
