import { defaultDateRange, previousPeriod, resolveDateRange } from './defaults';

describe('default date range', () => {
  it('is the last 7 full days in UTC, end exclusive', () => {
    expect(defaultDateRange(new Date('2026-03-10T00:00:00Z'))).toEqual({
      start_date: '2026-03-03',
      end_date: '2026-03-10',
    });
    expect(defaultDateRange(new Date('2026-03-10T23:59:59.999Z'))).toEqual({
      start_date: '2026-03-03',
      end_date: '2026-03-10',
    });
  });

  it('follows the UTC calendar across months, years and leap days', () => {
    expect(defaultDateRange(new Date('2026-01-03T12:00:00Z'))).toEqual({
      start_date: '2025-12-27',
      end_date: '2026-01-03',
    });
    expect(defaultDateRange(new Date('2028-03-02T08:00:00+05:00'))).toEqual({
      start_date: '2028-02-24',
      end_date: '2028-03-02',
    });
    expect(defaultDateRange(new Date('2028-03-02T01:00:00+05:00'))).toEqual({
      start_date: '2028-02-23',
      end_date: '2028-03-01',
    });
  });

  it('fills only what the caller left out', () => {
    const now = new Date('2026-03-10T10:00:00Z');
    expect(resolveDateRange({}, now)).toEqual({ start_date: '2026-03-03', end_date: '2026-03-10' });
    expect(resolveDateRange({ end_date: '2026-02-01' }, now)).toEqual({
      start_date: '2026-01-25',
      end_date: '2026-02-01',
    });
    expect(resolveDateRange({ start_date: '2026-02-20' }, now)).toEqual({
      start_date: '2026-02-20',
      end_date: '2026-03-10',
    });
    expect(resolveDateRange({ start_date: '2026-01-01', end_date: '2026-02-01' }, now)).toEqual({
      start_date: '2026-01-01',
      end_date: '2026-02-01',
    });
  });

  it('gives the previous period of equal length', () => {
    expect(previousPeriod({ start_date: '2026-03-03', end_date: '2026-03-10' })).toEqual({
      start_date: '2026-02-24',
      end_date: '2026-03-03',
    });
    expect(previousPeriod({ start_date: '2026-03-01', end_date: '2026-04-01' })).toEqual({
      start_date: '2026-01-29',
      end_date: '2026-03-01',
    });
  });
});
