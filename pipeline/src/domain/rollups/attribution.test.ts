import fc from 'fast-check';
import { MODELS, RULE_BASED_MODELS } from '../../../../contracts/src/attribution';
import { addToCart, DAY, ms, page, pageView, personFacts, UNIT } from '../../../../test/support/fact-builders';
import { type ConversionView, type Credit, recomputePerson } from '../recompute-person';
import { PERIOD_GRAINS, type PeriodGrain, periodStart } from '../../../../contracts/src/rollup-periods';
import {
  accumulateCredits,
  ATTRIBUTION_BY_SOURCE,
  ATTRIBUTION_PERIODS,
  attributionRollupRows,
  type CreditRow,
  creditRowsOf,
  MODEL_SUM_COLUMNS,
  ROLLUP_KEY,
  type RollupDelta,
  rollupValues,
} from './attribution';
import { keyOfTable } from './table';

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
    // Monday 2 March and Wednesday 4 March 2026: one week (starting Monday), one month. The first touch's
    // credit under the first-click model lies in the same row as its linear credit.
    const rows = attributionRollupRows(
      deltaOf([
        credit('2026-03-02', '/a', 600_000),
        credit('2026-03-04', '/b', 400_000),
        { ...credit('2026-03-02', '/a', 1_000_000), model: 'first' },
      ]),
    );
    const dims = {
      goal: 'purchase',
      channel: 'paid_search',
      source: 'google',
      medium: 'cpc',
      campaign: 'brand',
    };
    const none = Object.fromEntries(MODEL_SUM_COLUMNS.map((c) => [c.name, 0]));
    const sums = (linear: number, first = 0) => ({
      ...none,
      weight_linear: linear,
      value_micros_linear: linear * 20,
      weight_first: first,
      value_micros_first: first * 20,
    });
    const [daily, bySource, periods, bySourcePeriods] = rows.map((r) => r.rows);
    expect(daily).toEqual([
      { day: '2026-03-02', ...dims, landing_page: '/a', ...sums(600_000, 1_000_000) },
      { day: '2026-03-04', ...dims, landing_page: '/b', ...sums(400_000) },
    ]);
    expect(bySource).toEqual([
      { day: '2026-03-02', ...dims, ...sums(600_000, 1_000_000) },
      { day: '2026-03-04', ...dims, ...sums(400_000) },
    ]);
    expect(periods).toEqual(
      expect.arrayContaining([
        { grain: 'week', day: '2026-03-02', ...dims, landing_page: '/a', ...sums(600_000, 1_000_000) },
        { grain: 'week', day: '2026-03-02', ...dims, landing_page: '/b', ...sums(400_000) },
        { grain: 'month', day: '2026-03-01', ...dims, landing_page: '/a', ...sums(600_000, 1_000_000) },
        { grain: 'month', day: '2026-03-01', ...dims, landing_page: '/b', ...sums(400_000) },
      ]),
    );
    expect(periods).toHaveLength(4);
    // Without the landing page, the week and the month each sum both days.
    expect(bySourcePeriods).toEqual(
      expect.arrayContaining([
        { grain: 'week', day: '2026-03-02', ...dims, ...sums(1_000_000, 1_000_000) },
        { grain: 'month', day: '2026-03-01', ...dims, ...sums(1_000_000, 1_000_000) },
      ]),
    );
    expect(bySourcePeriods).toHaveLength(2);
  });

  it('sums the platforms of a group into its one row, as reports do not group by platform', () => {
    const [daily] = attributionRollupRows(
      deltaOf([credit('2026-03-02', '/a', 600_000), { ...credit('2026-03-02', '/a', 400_000), platform: '' }]),
    ).map((r) => r.rows);
    expect(daily).toHaveLength(1);
    expect(daily![0]).toMatchObject({ weight_linear: 1_000_000, value_micros_linear: 20_000_000 });
    expect(daily![0]).not.toHaveProperty('platform');
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
    // Each model's totals, from its own columns.
    const totals = (rows: ReadonlyArray<Record<string, unknown>>) =>
      MODELS.map((m) => COLUMNS.map((c) => rows.reduce((a, r) => a + Number(r[`${c}_${m}`]), 0)));
    fc.assert(
      fc.property(fc.array(creditRowArb, { maxLength: 40 }), (signed) => {
        const delta = new Map<string, RollupDelta>();
        for (const c of signed) accumulateCredits(delta, [c], c.sign);
        const expected = MODELS.map((m) =>
          COLUMNS.map((_, i) =>
            signed
              .filter((c) => c.model === m)
              .reduce((a, c) => a + c.sign * [c.weight, c.newWeight, c.valueMicros, c.cogsMicros][i]!, 0),
          ),
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
          // No row whose every sum is zero: a recomputation would not have it.
          for (const r of rows) expect(table.values.some((c) => r[c.name] !== 0)).toBe(true);
          // One row per group: the landing page dropped, its groups summed into one.
          expect(new Set(rows.map((r) => table.keys.map((c) => r[c.name]).join('|'))).size).toBe(rows.length);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('rollupValues', () => {
  const delta = (entries: Array<[string, string, number, string?]>): Map<string, RollupDelta> =>
    new Map(
      entries.map(([day, landingPage, weight, model = 'first']) => [
        ROLLUP_KEY.of({
          day,
          goal: 'purchase',
          model,
          channel: 'direct',
          source: '',
          medium: '',
          campaign: '',
          landingPage,
        }),
        { weight, newWeight: weight, valueMicros: 10 * weight, cogsMicros: 0 },
      ]),
    );
  /** Each group's day, its landing page where the table has one, and its first-click weight and value. */
  const sumsOf = (t: typeof ATTRIBUTION_PERIODS, m: Map<string, number[]>) => {
    const key = keyOfTable(t);
    const hasPage = t.keys.some((c) => c.name === 'landing_page');
    return [...m].map(([k, v]) => [
      key.get(k, 'day'),
      ...(hasPage ? [key.get(k, 'landing_page')] : []),
      v[MODEL_SUM_COLUMNS.findIndex((c) => c.name === 'weight_first')],
      v[MODEL_SUM_COLUMNS.findIndex((c) => c.name === 'value_micros_first')],
    ]);
  };

  it('sums the landing pages of a day into one group where the table has no landing page', () => {
    // 3 + 4 on the 2nd ('/a' and '/b'), 5 on the 3rd.
    const out = rollupValues(
      ATTRIBUTION_BY_SOURCE,
      delta([
        ['2026-03-02', '/a', 3],
        ['2026-03-02', '/b', 4],
        ['2026-03-03', '/a', 5],
      ]),
    );
    expect(sumsOf(ATTRIBUTION_BY_SOURCE, out)).toEqual([
      ['2026-03-02', 7, 70],
      ['2026-03-03', 5, 50],
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
    expect(sumsOf(ATTRIBUTION_PERIODS, rollupValues(ATTRIBUTION_PERIODS, d, 'week'))).toEqual([
      ['2026-02-23', '/', 1 + 2, 30],
      ['2026-03-02', '/', 4, 40],
      ['2026-03-30', '/', 8, 80],
    ]);
    expect(sumsOf(ATTRIBUTION_PERIODS, rollupValues(ATTRIBUTION_PERIODS, d, 'month'))).toEqual([
      ['2026-02-01', '/', 1, 10],
      ['2026-03-01', '/', 2 + 4 + 8, 140],
    ]);
  });

  it("puts each model's sums at its own columns of the group's one row", () => {
    const out = rollupValues(
      ATTRIBUTION_BY_SOURCE,
      delta([
        ['2026-03-02', '/a', 3, 'first'],
        ['2026-03-02', '/b', 4, 'linear'],
        ['2026-03-02', '/a', 5, 'data_driven'],
      ]),
    );
    expect(out.size).toBe(1);
    const [values] = [...out.values()];
    const named = Object.fromEntries(MODEL_SUM_COLUMNS.map((c, i) => [c.name, values![i]]));
    expect(named).toEqual({
      ...Object.fromEntries(MODEL_SUM_COLUMNS.map((c) => [c.name, 0])),
      weight_first: 3,
      new_weight_first: 3,
      value_micros_first: 30,
      weight_linear: 4,
      new_weight_linear: 4,
      value_micros_linear: 40,
      weight_data_driven: 5,
      new_weight_data_driven: 5,
      value_micros_data_driven: 50,
    });
  });

  it('names a model that has no columns instead of dropping its credit', () => {
    expect(() => rollupValues(ATTRIBUTION_BY_SOURCE, delta([['2026-03-02', '/a', 3, 'markov']]))).toThrow(
      'attribution_by_source: no columns for the model markov',
    );
  });
});
