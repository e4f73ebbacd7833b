import { dayInZone, localDateTime, zonedToEpoch } from './time';

describe('time zones', () => {
  it.each([
    ['2026-03-01T23:30:00Z', 'UTC', '2026-03-01'],
    ['2026-03-01T23:30:00Z', 'Europe/Paris', '2026-03-02'],
    ['2026-03-02T04:59:59Z', 'America/New_York', '2026-03-01'],
    ['2026-03-02T05:00:00Z', 'America/New_York', '2026-03-02'],
    ['2026-03-01T14:00:00Z', 'Pacific/Auckland', '2026-03-02'],
  ])('%s is day %s in %s', (iso, tz, day) => {
    expect(dayInZone(Date.parse(iso), tz)).toBe(day);
  });

  it('formats local date-times', () => {
    expect(localDateTime(Date.parse('2026-07-04T12:34:56.789Z'), 'America/Los_Angeles')).toBe('2026-07-04 05:34:56');
    expect(localDateTime(Date.parse('2026-12-31T23:00:00Z'), 'Europe/Berlin')).toBe('2027-01-01 00:00:00');
  });

  it.each([
    ['2026-03-02', 'America/New_York', '2026-03-02T05:00:00.000Z'],
    ['2026-07-01 00:00:00', 'America/New_York', '2026-07-01T04:00:00.000Z'],
    ['2026-10-25 12:00:00', 'Europe/Paris', '2026-10-25T11:00:00.000Z'],
    ['2026-01-01', 'UTC', '2026-01-01T00:00:00.000Z'],
    ['2026-03-29 02:30:00', 'Europe/Paris', '2026-03-29T01:30:00.000Z'],
  ])('local %s in %s is %s', (local, tz, iso) => {
    expect(new Date(zonedToEpoch(local, tz)!).toISOString()).toBe(iso);
  });

  it('rejects malformed or impossible local times', () => {
    expect(zonedToEpoch('2026-02-30', 'UTC')).toBeNull();
    expect(zonedToEpoch('2026-1-01', 'UTC')).toBeNull();
    expect(zonedToEpoch('2026-01-01 24:00:00', 'UTC')).toBeNull();
  });

  it('round-trips local times to instants and back', () => {
    for (const tz of ['UTC', 'Asia/Kolkata', 'America/Sao_Paulo', 'Australia/Lord_Howe']) {
      for (
        let t = Date.parse('2026-01-01T00:00:00Z');
        t < Date.parse('2027-01-01T00:00:00Z');
        t += 7 * 3600_000 + 13_000
      ) {
        const local = localDateTime(t, tz);
        expect(localDateTime(zonedToEpoch(local, tz)!, tz)).toBe(local);
      }
    }
  });
});
