import fc from 'fast-check';
import { RULE_BASED_MODELS } from '../../../../contracts/src/attribution';
import { addToCart, DAY, ms, page, pageView, personFacts, UNIT } from '../../../../test/support/fact-builders';
import { type ConversionView, type Credit, recomputePerson } from '../recompute-person';
import { PERIOD_GRAINS, type PeriodGrain, periodStart } from '../../../../contracts/src/rollup-periods';
import {
  accumulateCredits,
  attributionRollupRows,
  byPeriod,
  type CreditRow,
  creditRowsOf,
  ROLLUP_KEY,
  type RollupDelta,
  withoutLandingPage,
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

  it('sums to the credits in every table and period grain, and names no landing page where the table has none', () => {
    const creditRowArb = fc
      .record({
        // Across a week boundary (Sunday 1 / Monday 2 March) and a month boundary (Friday 27 February / 1 March).
        day: fc.constantFrom('2026-02-27', '2026-03-01', '2026-03-02', '2026-03-31'),
        landingPage: fc.constantFrom('/', '/a', '/b'),
        model: fc.constantFrom(...RULE_BASED_MODELS),
        source: fc.constantFrom('google', 'bing'),
        weight: fc.integer({ min: -1_000_000, max: 1_000_000 }),
        newWeight: fc.integer({ min: -1_000_000, max: 1_000_000 }),
        valueMicros: fc.integer({ min: -1e9, max: 1e9 }),
        cogsMicros: fc.integer({ min: -1e9, max: 1e9 }),
        sign: fc.constantFrom(1 as const, -1 as const),
      })
      .map(({ day, landingPage, sign, ...rest }) => ({ ...credit(day, landingPage, 0), ...rest, sign }));
    const COLUMNS = ['weight', 'new_weight', 'value_micros', 'cogs_micros'];
    const totals = (rows: ReadonlyArray<Record<string, unknown>>) =>
      COLUMNS.map((c) => rows.reduce((a, r) => a + Number(r[c]), 0));
    fc.assert(
      fc.property(fc.array(creditRowArb, { maxLength: 40 }), (signed) => {
        const delta = new Map<string, RollupDelta>();
        for (const c of signed) accumulateCredits(delta, [c], c.sign);
        const expected = COLUMNS.map((_, i) =>
          signed.reduce((a, c) => a + c.sign * [c.weight, c.newWeight, c.valueMicros, c.cogsMicros][i]!, 0),
        );
        for (const { table, rows } of attributionRollupRows(delta)) {
          const hasPage = table.keys.some((c) => c.name === 'landing_page');
          expect(table.table.includes('by_source')).toBe(!hasPage);
          if (table.keys.some((c) => c.name === 'grain')) {
            for (const grain of PERIOD_GRAINS) expect(totals(rows.filter((r) => r.grain === grain))).toEqual(expected);
            // A period row's day is its period's first: a Monday, or the 1st of a month.
            for (const r of rows) expect(r.day).toBe(periodStart(r.grain as PeriodGrain, String(r.day)));
          } else expect(totals(rows)).toEqual(expected);
          // Every row has exactly the table's columns: the by-source tables never a landing page.
          for (const r of rows)
            expect(Object.keys(r).sort()).toEqual([...table.keys, ...table.values].map((c) => c.name).sort());
          expect(rows.every((r) => 'landing_page' in r === hasPage)).toBe(true);
          // One row per group: the landing page dropped, its groups summed into one.
          expect(new Set(rows.map((r) => table.keys.map((c) => r[c.name]).join('|'))).size).toBe(rows.length);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('withoutLandingPage and byPeriod', () => {
  const delta = (entries: Array<[string, string, number]>): Map<string, RollupDelta> =>
    new Map(
      entries.map(([day, landingPage, weight]) => [
        ROLLUP_KEY.of({
          day,
          goal: 'purchase',
          model: 'first',
          channel: 'direct',
          source: '',
          medium: '',
          campaign: '',
          landingPage,
          platform: '',
        }),
        { weight, newWeight: weight, valueMicros: 10 * weight, cogsMicros: 0 },
      ]),
    );
  const sumsOf = (m: Map<string, RollupDelta>) =>
    [...m].map(([k, d]) => [ROLLUP_KEY.get(k, 'day'), ROLLUP_KEY.get(k, 'landingPage'), d.weight, d.valueMicros]);

  it('sums the landing pages of a day into one group with the page ""', () => {
    // 3 + 4 on the 2nd ('/a' and '/b'), 5 on the 3rd.
    const out = withoutLandingPage(
      delta([
        ['2026-03-02', '/a', 3],
        ['2026-03-02', '/b', 4],
        ['2026-03-03', '/a', 5],
      ]),
    );
    expect(sumsOf(out)).toEqual([
      ['2026-03-02', '', 7, 70],
      ['2026-03-03', '', 5, 50],
    ]);
  });

  it('moves each day to the first of its week (a Monday) or month, summing the days of one period', () => {
    // Friday 27 Feb and Sunday 1 Mar: week of Monday 23 Feb, different months. Monday 2 and Tuesday 31 Mar:
    // weeks of 2 and 30 March, month of March with Sunday 1 March.
    const d = delta([
      ['2026-02-27', '/', 1],
      ['2026-03-01', '/', 2],
      ['2026-03-02', '/', 4],
      ['2026-03-31', '/', 8],
    ]);
    expect(sumsOf(byPeriod(d, 'week'))).toEqual([
      ['2026-02-23', '/', 1 + 2, 30],
      ['2026-03-02', '/', 4, 40],
      ['2026-03-30', '/', 8, 80],
    ]);
    expect(sumsOf(byPeriod(d, 'month'))).toEqual([
      ['2026-02-01', '/', 1, 10],
      ['2026-03-01', '/', 2 + 4 + 8, 140],
    ]);
  });
});
