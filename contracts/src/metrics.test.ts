import fc from 'fast-check';
import { computeMetrics, roundMoney, roundTo, type MetricInputs, type Metrics } from './metrics';

const BASE: MetricInputs = {
  conversions: 4,
  conversion_value: 1000,
  spend: 250,
  impressions: 50_000,
  clicks: 1000,
  ad_conversion_value: 900,
  cost_of_goods: 300,
};

describe('computeMetrics', () => {
  it.each<[string, Partial<MetricInputs>, Metrics]>([
    ['plain numbers', {}, { roas: 4, ad_roas: 3.6, cpa: 62.5, cpm: 5, cpc: 0.25, net_profit: 450, net_margin: 0.45 }],
    [
      'money to 2 decimals, ratios to 4',
      {
        conversions: 3,
        conversion_value: 2,
        spend: 3,
        impressions: 7,
        clicks: 7,
        ad_conversion_value: 1,
        cost_of_goods: 0,
      },
      // 2/3, 1/3, 3/3, 3000/7 = 428.571..., 3/7 = 0.428..., 2 - 3 = -1, -1/2
      { roas: 0.6667, ad_roas: 0.3333, cpa: 1, cpm: 428.57, cpc: 0.43, net_profit: -1, net_margin: -0.5 },
    ],
    [
      'fractional conversions (summed weights)',
      { conversions: 0.333333, spend: 1 },
      { roas: 1000, ad_roas: 900, cpa: 3, cpm: 0.02, cpc: 0, net_profit: 699, net_margin: 0.699 },
    ],
    [
      'negative net profit and margin',
      { conversion_value: 100, cost_of_goods: 80, spend: 50 },
      { roas: 2, ad_roas: 18, cpa: 12.5, cpm: 1, cpc: 0.05, net_profit: -30, net_margin: -0.3 },
    ],
    [
      'net profit exactly on a half cent rounds away from zero',
      { conversion_value: 0.01, cost_of_goods: 0, spend: 0.015 },
      { roas: 0.6667, ad_roas: 60000, cpa: 0, cpm: 0, cpc: 0, net_profit: -0.01, net_margin: -0.5 },
    ],
    [
      'spend 0: roas and ad_roas 0',
      { spend: 0 },
      { roas: 0, ad_roas: 0, cpa: 0, cpm: 0, cpc: 0, net_profit: 700, net_margin: 0.7 },
    ],
    [
      'conversions 0: cpa 0',
      { conversions: 0 },
      { roas: 4, ad_roas: 3.6, cpa: 0, cpm: 5, cpc: 0.25, net_profit: 450, net_margin: 0.45 },
    ],
    [
      'impressions 0: cpm 0',
      { impressions: 0 },
      { roas: 4, ad_roas: 3.6, cpa: 62.5, cpm: 0, cpc: 0.25, net_profit: 450, net_margin: 0.45 },
    ],
    [
      'clicks 0: cpc 0',
      { clicks: 0 },
      { roas: 4, ad_roas: 3.6, cpa: 62.5, cpm: 5, cpc: 0, net_profit: 450, net_margin: 0.45 },
    ],
    [
      'conversion_value 0: net_margin 0, net profit negative',
      { conversion_value: 0 },
      { roas: 0, ad_roas: 3.6, cpa: 62.5, cpm: 5, cpc: 0.25, net_profit: -550, net_margin: 0 },
    ],
    [
      'a row with no spend data (landing_page rows)',
      { spend: 0, impressions: 0, clicks: 0, ad_conversion_value: 0 },
      { roas: 0, ad_roas: 0, cpa: 0, cpm: 0, cpc: 0, net_profit: 700, net_margin: 0.7 },
    ],
    [
      'everything 0',
      {
        conversions: 0,
        conversion_value: 0,
        spend: 0,
        impressions: 0,
        clicks: 0,
        ad_conversion_value: 0,
        cost_of_goods: 0,
      },
      { roas: 0, ad_roas: 0, cpa: 0, cpm: 0, cpc: 0, net_profit: 0, net_margin: 0 },
    ],
  ])('%s', (_name, overrides, expected) => {
    const metrics = computeMetrics({ ...BASE, ...overrides });
    expect(metrics).toEqual(expected);
    for (const v of Object.values(metrics)) {
      expect(Number.isFinite(v)).toBe(true);
      expect(Object.is(v, -0)).toBe(false);
    }
  });

  it('never yields NaN, Infinity or -0 for inputs from the views (micro-unit multiples, integer counts)', () => {
    const micro = fc.integer({ min: -1e15, max: 1e15 }).map((m) => m / 1_000_000);
    const n = fc.oneof(fc.constant(0), micro, fc.integer({ min: 0, max: 1e12 }));
    fc.assert(
      fc.property(
        fc.record({
          conversions: n,
          conversion_value: n,
          spend: n,
          impressions: n,
          clicks: n,
          ad_conversion_value: n,
          cost_of_goods: n,
        }),
        (inputs) => {
          for (const v of Object.values(computeMetrics(inputs))) {
            expect(Number.isFinite(v)).toBe(true);
            expect(Object.is(v, -0)).toBe(false);
          }
        },
      ),
    );
  });
});

describe('roundMoney', () => {
  it.each<[number, number]>([
    [1.005, 1.01],
    [-1.005, -1.01],
    [1.004, 1],
    [1.0049, 1],
    [2.675, 2.68],
    [1.255, 1.26],
    [10.235, 10.24],
    [8.345, 8.35],
    [0.125, 0.13],
    [-0.125, -0.13],
    [0.005, 0.01],
    [0.0049999, 0],
    [0.05 * 0.7, 0.04], // 0.034999999999999996
    [0.1 + 0.2, 0.3], // 0.30000000000000004
    [1005000 / 1_000_000, 1.01], // micro-units converted to currency
    [123456789.995, 123456790],
    [12345678901.235, 12345678901.24],
    [1.5e-7, 0],
    [-0.001, 0],
    [42, 42],
    [0, 0],
    [-0, 0],
    [1e21, 1e21],
  ])('roundMoney(%p) = %p', (x, expected) => {
    const r = roundMoney(x);
    expect(r).toBe(expected);
    expect(Object.is(r, -0)).toBe(false);
  });

  it('rounds every value with 3 decimals like integer arithmetic does (half away from zero)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 }), (thousandths) => {
        const abs = Math.abs(thousandths);
        const cents = Math.trunc(abs / 10) + (abs % 10 >= 5 ? 1 : 0);
        const expected = cents === 0 ? 0 : Math.sign(thousandths) * Number(`${cents}e-2`);
        expect(roundMoney(thousandths / 1000)).toBe(expected);
      }),
    );
  });

  it('is idempotent and keeps at most 2 decimals', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e12, max: 1e12, noNaN: true }), (x) => {
        const r = roundMoney(x);
        expect(roundMoney(r)).toBe(r);
        expect(r).toBe(Number(r.toFixed(2)));
        // roundTo reads x at 15 significant digits first, which can move it by half a unit of the 15th
        // digit before the cents are rounded (only for values above about 1e10 that carry a fraction).
        expect(Math.abs(r - x)).toBeLessThanOrEqual(0.005 + Math.abs(x) * 5e-15 + 1e-6);
      }),
      { examples: [[117924800636.0045]] },
    );
  });
});

describe('roundTo', () => {
  it.each<[number, number, number]>([
    [2.5, 0, 3],
    [-2.5, 0, -3],
    [1.45, 1, 1.5],
    [0.00005, 4, 0.0001],
    [0.66666666, 4, 0.6667],
    [1234.5678, 4, 1234.5678],
    [0.99999, 4, 1],
    [9.995, 2, 10],
  ])('roundTo(%p, %p) = %p', (x, digits, expected) => {
    expect(roundTo(x, digits)).toBe(expected);
  });

  it('passes non-finite values through', () => {
    expect(roundTo(Number.NaN, 2)).toBeNaN();
    expect(roundTo(Number.POSITIVE_INFINITY, 2)).toBe(Number.POSITIVE_INFINITY);
    expect(roundTo(Number.NEGATIVE_INFINITY, 2)).toBe(Number.NEGATIVE_INFINITY);
  });

  it.each([-1, 1.5, 16, Number.NaN])('throws on digits = %p', (digits) => {
    expect(() => roundTo(1, digits)).toThrow(RangeError);
  });
});

describe('roundTo fast path', () => {
  /** The exact decimal rounding roundTo always did: 15 significant digits, then half away from zero. */
  function exactRoundTo(x: number, digits: number): number {
    if (x === 0) return 0;
    const exp = Number(Math.abs(x).toPrecision(15)).toExponential();
    const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(exp)!;
    const mantissa = m[1]! + (m[2] ?? '');
    const kept = Number(m[3]) + 1 + digits;
    if (kept < 0) return 0;
    let scaled = BigInt(kept === 0 ? '0' : mantissa.slice(0, kept).padEnd(kept, '0'));
    if (mantissa.charAt(kept) >= '5') scaled += 1n;
    return scaled === 0n ? 0 : (x < 0 ? -1 : 1) * Number(`${scaled}e-${digits}`);
  }

  it('gives the exact decimal rounding for every kind of value', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ min: -1e12, max: 1e12, noNaN: true }),
          fc.integer({ min: -1e12, max: 1e12 }).map((n) => n / 1000),
          fc.integer({ min: -1e9, max: 1e9 }).map((n) => n / 100 + 0.005),
        ),
        fc.constantFrom(0, 2, 4, 6),
        (x, digits) => {
          expect(roundTo(x, digits)).toBe(exactRoundTo(x, digits));
        },
      ),
      { numRuns: 20000 },
    );
  });
});
