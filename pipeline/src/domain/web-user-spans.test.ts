import fc from 'fast-check';
import { EVENT_NAMES } from '../../../contracts/src/events';
import {
  dimensionMask,
  FUNNEL_LEVELS,
  NO_PREVIOUS_DAY,
  WEB_DIMENSION_SETS,
  WEB_DIMENSIONS,
  type WebRow,
} from './analytics';
import { webUserKey, WebUserSums } from './web-user-spans';

/** A person's web_users rows by webUserKey. */
function webUserSpans(rows: readonly WebRow[]): Map<string, number[]> {
  const sums = new WebUserSums();
  sums.addSpans(rows, 1);
  return sums.entries();
}

/** The change in a person's web_users rows when its web rows go from `before` to `after`, by webUserKey. */
function webUserSpanDelta(before: readonly WebRow[], after: readonly WebRow[]): Map<string, number[]> {
  const sums = new WebUserSums();
  sums.addSpanDelta(before, after);
  return sums.entries();
}

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

/** The span rows as their definition reads, group by group (the reference for WebUserSums). */
function referenceSpans(rows: readonly WebRow[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const dims of WEB_DIMENSION_SETS) {
    const groups = new Map<string, Map<string, number>>();
    for (const r of rows) {
      const values = WEB_DIMENSIONS.map((d, i) => (dims & (1 << i) ? r[d] : ''));
      const days = groups.get(values.join('|')) ?? new Map<string, number>();
      days.set(r.day, Math.max(days.get(r.day) ?? 0, r.level));
      groups.set(values.join('|'), days);
    }
    for (const [g, days] of groups) {
      const ordered = [...days].sort(([a], [b]) => (a < b ? -1 : 1));
      for (let step = 0; step < FUNNEL_LEVELS; step++) {
        let prev = NO_PREVIOUS_DAY;
        for (const [day, level] of ordered) {
          if (level < step) continue;
          const key = webUserKey(dims, day, g.split('|'), prev);
          const counts = out.get(key) ?? new Array<number>(FUNNEL_LEVELS).fill(0);
          counts[step]!++;
          out.set(key, counts);
          prev = day;
        }
      }
    }
  }
  return out;
}

describe('web user sums', () => {
  const rowArb = fc.record({
    d: fc.integer({ min: 0, max: 9 }),
    channel: fc.constantFrom('paid_search', 'direct'),
    source: fc.constantFrom('google', 'meta', ''),
    landing: fc.constantFrom('/', '/sale', '/p/tee'),
    level: fc.nat(5),
  });
  const toRow = (r: { d: number; channel: string; source: string; landing: string; level: number }): WebRow => ({
    ...webRow(`2026-03-${String(r.d + 1).padStart(2, '0')}`, r.source, r.level),
    channel: r.channel,
    landing_page: r.landing,
  });

  it('sum, over persons and signs, what the spans of each person are by definition (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(rowArb, { maxLength: 8 }), fc.boolean()), { maxLength: 6 }), (persons) => {
        const sums = new WebUserSums();
        const expected = new Map<string, number[]>();
        for (const [rows, positive] of persons) {
          const sign = positive ? 1 : -1;
          sums.addSpans(rows.map(toRow), sign);
          for (const [k, c] of referenceSpans(rows.map(toRow))) {
            const cur = expected.get(k) ?? new Array<number>(FUNNEL_LEVELS).fill(0);
            expected.set(
              k,
              cur.map((x, i) => x + sign * c[i]!),
            );
          }
        }
        const nonZero = [...expected].filter(([, c]) => c.some((x) => x !== 0));
        expect(new Map(nonZero)).toEqual(sums.entries());
      }),
    );
  });

  it('change by the difference of the definitions when a person’s rows change (property)', () => {
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 8 }), fc.array(rowArb, { maxLength: 8 }), (a, b) => {
        const before = a.map(toRow);
        const after = b.map(toRow);
        const expected = referenceSpans(after);
        for (const [k, c] of referenceSpans(before)) {
          const cur = expected.get(k) ?? new Array<number>(FUNNEL_LEVELS).fill(0);
          expected.set(
            k,
            cur.map((x, i) => x - c[i]!),
          );
        }
        const nonZero = [...expected].filter(([, c]) => c.some((x) => x !== 0));
        expect(webUserSpanDelta(before, after)).toEqual(new Map(nonZero));
      }),
    );
  });
});
