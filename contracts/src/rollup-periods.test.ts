import fc from 'fast-check';
import { coverRange, monthStart, periodEnd, type RangePart, weekStart } from './rollup-periods';

const DAY_MS = 86_400_000;
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const daysOf = (from: string, to: string): string[] => {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); day(t) < to; t += DAY_MS) out.push(day(t));
  return out;
};

/** The days a part covers: each day of a day part, every day of each period a period part names. */
function coveredDays(part: RangePart): string[] {
  if (part.grain === 'day') return daysOf(part.from, part.to);
  const grain = part.grain;
  return daysOf(part.from, part.to)
    .filter((d) => (grain === 'week' ? weekStart(d) : monthStart(d)) === d)
    .flatMap((start) => daysOf(start, periodEnd(grain, start)!));
}

describe('rollup periods', () => {
  it.each([
    ['2026-11-23', '2026-11-23'], // a Monday
    ['2026-11-29', '2026-11-23'], // a Sunday
    ['2026-11-01', '2026-10-26'], // across a month
    ['2027-01-01', '2026-12-28'], // across a year
    ['2024-02-29', '2024-02-26'],
  ])('the week of %s starts on %s', (d, start) => {
    expect(weekStart(d)).toBe(start);
  });

  it.each([
    ['week', '2026-12-28', '2027-01-04'],
    ['month', '2026-12-01', '2027-01-01'],
    ['month', '2024-02-01', '2024-03-01'],
    ['month', '0100-12-01', '0101-01-01'],
    ['week', '9999-12-20', '9999-12-27'],
    ['week', '9999-12-27', null],
    ['month', '9999-12-01', null],
  ] as const)('a %s from %s ends before %s (null: after the year 9999)', (grain, start, end) => {
    expect(periodEnd(grain, start)).toBe(end);
  });

  it('covers ranges at the ends of the calendar that reports accept', () => {
    expect(coverRange('9999-12-30', '9999-12-31')).toEqual([{ grain: 'day', from: '9999-12-30', to: '9999-12-31' }]);
    expect(coverRange('9999-10-15', '9999-12-31')).toEqual([
      { grain: 'day', from: '9999-10-15', to: '9999-10-18' },
      { grain: 'week', from: '9999-10-18', to: '9999-11-01' },
      { grain: 'month', from: '9999-11-01', to: '9999-12-01' },
      { grain: 'day', from: '9999-12-01', to: '9999-12-06' },
      { grain: 'week', from: '9999-12-06', to: '9999-12-27' },
      { grain: 'day', from: '9999-12-27', to: '9999-12-31' },
    ]);
  });

  it("covers the api bench's 90 days with two months, three weeks and eight days", () => {
    expect(coverRange('2026-08-30', '2026-11-28')).toEqual([
      { grain: 'day', from: '2026-08-30', to: '2026-09-01' },
      { grain: 'month', from: '2026-09-01', to: '2026-11-01' },
      { grain: 'day', from: '2026-11-01', to: '2026-11-02' },
      { grain: 'week', from: '2026-11-02', to: '2026-11-23' },
      { grain: 'day', from: '2026-11-23', to: '2026-11-28' },
    ]);
  });

  it('reads days alone when no whole week fits, and nothing for an empty range', () => {
    expect(coverRange('2026-11-24', '2026-11-30')).toEqual([{ grain: 'day', from: '2026-11-24', to: '2026-11-30' }]);
    expect(coverRange('2026-11-24', '2026-11-24')).toEqual([]);
  });

  it('covers every day of any range exactly once, and nothing outside it', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: Date.UTC(2020, 0, 1) / DAY_MS, max: Date.UTC(2030, 0, 1) / DAY_MS }),
          // The first and last years a report's dates can name (parseDay refuses years under 100).
          fc.integer({ min: Date.UTC(100, 0, 1) / DAY_MS, max: Date.UTC(101, 0, 1) / DAY_MS }),
          fc.integer({ min: Date.UTC(9998, 10, 1) / DAY_MS, max: Date.UTC(9999, 11, 31) / DAY_MS }),
        ),
        fc.integer({ min: 0, max: 400 }),
        (first, length) => {
          const start = day(first * DAY_MS);
          const end = day(Math.min(first + length, Date.UTC(9999, 11, 31) / DAY_MS) * DAY_MS);
          const parts = coverRange(start, end);
          expect(parts.flatMap(coveredDays)).toEqual(daysOf(start, end));
          for (const p of parts) expect(p.from < p.to).toBe(true);
          // At most days, weeks, days, a month run, days, weeks, days.
          expect(parts.length).toBeLessThanOrEqual(7);
        },
      ),
    );
  });
});
