import fc from 'fast-check';
import { EVENT_NAMES } from '../../../contracts/src/events';
import {
  analyticsOfPerson,
  dimensionMask,
  NO_PREVIOUS_DAY,
  productShares,
  productUserKey,
  productUserSpans,
  WEB_DIMENSION_SETS,
  type WebRow,
  webUserKey,
  webUserSpanDelta,
  webUserSpans,
} from './analytics';
import { recomputePerson, type StoreRules } from './recompute-person';
import { makeEvent, ms, page, pageView, personFacts, UNIT } from '../../../test/support/fact-builders';

const UTC: StoreRules = { timezone: 'UTC', lookbackDays: 30, halfLifeDays: 7 };
const GOOGLE = page('/', 'utm_source=google&utm_medium=cpc&utm_campaign=brand');

function webRow(day: string, source: string, level: number): WebRow {
  return {
    day,
    channel: 'paid_search',
    source,
    medium: 'cpc',
    campaign: 'brand',
    landing_page: '/',
    sessions: 1,
    events: 1,
    engagedSessions: 0,
    newUsers: 0,
    level,
    eventCounts: new Array<number>(EVENT_NAMES.length).fill(0),
  };
}

/** Distinct persons of a group over [s, e) from span rows summed over persons. */
function distinct(
  spans: Map<string, number[]>,
  mask: number,
  values: string[],
  s: string,
  e: string,
  step = 0,
): number {
  let n = 0;
  for (const [k, counts] of spans) {
    const parts = k.split('\u0000');
    const [dims, day, prev] = [Number(parts[0]), parts[1]!, parts[7]!];
    if (dims !== mask || parts.slice(2, 7).join('|') !== values.join('|')) continue;
    if (day >= s && day < e && (prev === NO_PREVIOUS_DAY || prev < s)) n += counts[step]!;
  }
  return n;
}

describe('web spans', () => {
  it('change between two sets of rows by exactly the difference of their spans (property)', () => {
    const day = (d: number) => `2026-03-${String(d + 1).padStart(2, '0')}`;
    const rowsArb = fc.array(
      fc.record({ d: fc.integer({ min: 0, max: 9 }), source: fc.constantFrom('google', 'meta'), level: fc.nat(5) }),
      { maxLength: 10 },
    );
    const nonZero = (m: Map<string, number[]>): Array<[string, number[]]> =>
      [...m].filter(([, c]) => c.some((x) => x !== 0)).sort(([a], [b]) => (a < b ? -1 : 1));
    fc.assert(
      fc.property(rowsArb, rowsArb, (a, b) => {
        const before = a.map((r) => webRow(day(r.d), r.source, r.level));
        const after = b.map((r) => webRow(day(r.d), r.source, r.level));
        const expected = new Map<string, number[]>();
        for (const [spans, sign] of [
          [webUserSpans(after), 1],
          [webUserSpans(before), -1],
        ] as const) {
          for (const [k, c] of spans) {
            const cur = expected.get(k) ?? new Array<number>(c.length).fill(0);
            expected.set(
              k,
              cur.map((x, i) => x + sign * c[i]!),
            );
          }
        }
        expect(nonZero(webUserSpanDelta(before, after))).toEqual(nonZero(expected));
      }),
    );
  });

  it('retract and add only what follows the first changed day of a group', () => {
    const before = [webRow('2026-03-01', 'google', 0), webRow('2026-03-03', 'google', 0)];
    const after = [...before, webRow('2026-03-07', 'google', 0)];
    const delta = [...webUserSpanDelta(before, after)].filter(([, c]) => c.some((x) => x !== 0));
    // One new span row per dimension set (the group's 7th after its 3rd), nothing retracted.
    expect(delta).toHaveLength(WEB_DIMENSION_SETS.length);
    for (const [k, c] of delta) {
      expect(k.split('\u0000')[1]).toBe('2026-03-07');
      expect(k.split('\u0000')[7]).toBe('2026-03-03');
      expect(c).toEqual([1, 0, 0, 0, 0, 0]);
    }
  });
  it('count a person once over any range of days, and per funnel step', () => {
    // Active on the 1st (reached purchase), 3rd (visit only) and 7th (product view).
    const spans = webUserSpans([
      webRow('2026-03-01', 'google', 5),
      webRow('2026-03-03', 'google', 0),
      webRow('2026-03-07', 'google', 1),
    ]);
    const all = ['', '', '', '', ''];
    expect(spans.get(webUserKey(0, '2026-03-01', all, NO_PREVIOUS_DAY))).toEqual([1, 1, 1, 1, 1, 1]);
    expect(spans.get(webUserKey(0, '2026-03-03', all, '2026-03-01'))).toEqual([1, 0, 0, 0, 0, 0]);
    // The product-view step's days are the 1st and the 7th: its row of the 7th points back to the 1st.
    expect(spans.get(webUserKey(0, '2026-03-07', all, '2026-03-03'))).toEqual([1, 0, 0, 0, 0, 0]);
    expect(spans.get(webUserKey(0, '2026-03-07', all, '2026-03-01'))).toEqual([0, 1, 0, 0, 0, 0]);
    expect(distinct(spans, 0, all, '2026-03-01', '2026-03-31')).toBe(1);
    expect(distinct(spans, 0, all, '2026-03-02', '2026-03-08')).toBe(1);
    expect(distinct(spans, 0, all, '2026-03-04', '2026-03-07')).toBe(0);
    expect(distinct(spans, 0, all, '2026-03-02', '2026-03-31', 1)).toBe(1);
    expect(distinct(spans, 0, all, '2026-03-02', '2026-03-31', 5)).toBe(0);
    // By source: the same person in the google group.
    const bySource = dimensionMask(['source']);
    expect(distinct(spans, bySource, ['', 'google', '', '', ''], '2026-03-01', '2026-03-31')).toBe(1);
  });

  it('cover the 26 sets of 0 to 3 dimensions', () => {
    expect(WEB_DIMENSION_SETS).toHaveLength(26);
  });

  it('give, summed over persons, the number of distinct persons active in any range (property)', () => {
    const day = (d: number) => `2026-03-${String(d + 1).padStart(2, '0')}`;
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 8 }), { maxLength: 12 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 21 }),
        (persons, a, len) => {
          const s = day(a);
          const e = day(Math.min(a + len, 30));
          const total = new Map<string, number[]>();
          for (const days of persons) {
            for (const [k, c] of webUserSpans(days.map((d) => webRow(day(d), 'google', 0)))) {
              const cur = total.get(k) ?? [0, 0, 0, 0, 0, 0];
              total.set(
                k,
                cur.map((x, i) => x + c[i]!),
              );
            }
          }
          const expected = persons.filter((days) => days.some((d) => day(d) >= s && day(d) < e)).length;
          expect(distinct(total, 0, ['', '', '', '', ''], s, e)).toBe(expected);
        },
      ),
    );
  });
});

describe('product spans', () => {
  it('count viewers and cart adders per product and for any product', () => {
    const row = (day: string, productId: string, views: number, addToCart: number) => ({
      day,
      productId,
      views,
      addToCart,
      checkouts: 0,
      purchases: 0,
      units: 0,
      revenueMicros: 0,
      cogsMicros: 0,
      newCustomerPurchases: 0,
    });
    const spans = productUserSpans([row('2026-03-01', 'tee', 2, 0), row('2026-03-02', 'socks', 1, 1)]);
    expect(spans.get(productUserKey('2026-03-01', 'tee', NO_PREVIOUS_DAY))).toEqual([1, 0]);
    expect(spans.get(productUserKey('2026-03-02', 'socks', NO_PREVIOUS_DAY))).toEqual([1, 1]);
    expect(spans.get(productUserKey('2026-03-01', '', NO_PREVIOUS_DAY))).toEqual([1, 0]);
    expect(spans.get(productUserKey('2026-03-02', '', '2026-03-01'))).toEqual([1, 0]);
    expect(spans.get(productUserKey('2026-03-02', '', NO_PREVIOUS_DAY))).toEqual([0, 1]);
  });
});

describe('product shares', () => {
  it('split a purchase value over its products by line amounts, in whole cents, exactly', () => {
    // 10.00 over lines of 2.00 and 1.00 (and 1.00 of the same product): 5.00 and 5.00.
    const shares = productShares(
      10 * UNIT,
      [
        ['a', 'va', 1, 200],
        ['b', 'vb', 1, 100],
        ['b', 'vb', 1, 100],
      ],
      (v) => (v === 'va' ? 3 * UNIT : undefined),
    );
    expect(shares).toEqual([
      { productId: 'a', units: 1, cogsMicros: 3 * UNIT, valueCents: 500 },
      { productId: 'b', units: 2, cogsMicros: 0, valueCents: 500 },
    ]);
    // 1.00 over three equal lines: 34 + 33 + 33 cents.
    const thirds = productShares(
      UNIT,
      [
        ['a', '', 1, 100],
        ['b', '', 1, 100],
        ['c', '', 1, 100],
      ],
      () => undefined,
    );
    expect(thirds.map((s) => s.valueCents)).toEqual([34, 33, 33]);
  });
});

describe('a person’s analytics', () => {
  it('counts sessions, engagement, the first session and the funnel step by day and touchpoint', () => {
    const facts = personFacts([
      pageView('e1', ms('2026-03-01T10:00:00Z'), GOOGLE),
      makeEvent({
        eventId: 'e2',
        clientId: 'c1',
        name: 'product_viewed',
        at: ms('2026-03-01T10:01:00Z'),
        pageUrl: page('/products/tee'),
        items: [['tee', 'v1', 1, 2500]],
      }),
      pageView('e3', ms('2026-03-02T09:00:00Z'), page('/')),
    ]);
    const view = recomputePerson(facts, UTC);
    const a = analyticsOfPerson(facts, view, 'UTC');
    expect(a.web).toHaveLength(2);
    const [first, second] = [...a.web].sort((x, y) => (x.day < y.day ? -1 : 1));
    expect(first).toMatchObject({
      day: '2026-03-01',
      source: 'google',
      sessions: 1,
      events: 2,
      engagedSessions: 1,
      newUsers: 1,
      level: 1,
    });
    expect(first!.eventCounts[EVENT_NAMES.indexOf('product_viewed')]).toBe(1);
    expect(second).toMatchObject({
      day: '2026-03-02',
      sessions: 1,
      events: 1,
      engagedSessions: 0,
      newUsers: 0,
      level: 0,
    });
    expect(a.products).toEqual([
      expect.objectContaining({ day: '2026-03-01', productId: 'tee', views: 1, addToCart: 0, purchases: 0 }),
    ]);
  });
});
