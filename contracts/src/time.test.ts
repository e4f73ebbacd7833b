import fc from 'fast-check';
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

  it('gives every instant of a quarter hour the day it has on its own, in zones with odd offsets too', () => {
    // dayInZone remembers one day per quarter hour; the check asks a fresh formatter about each instant.
    const zones = [
      'UTC',
      'Asia/Kathmandu',
      'Australia/Eucla',
      'Pacific/Chatham',
      'America/St_Johns',
      'Australia/Lord_Howe',
    ];
    const fresh = new Map(zones.map((z) => [z, new Intl.DateTimeFormat('en-CA', { timeZone: z })]));
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: Date.UTC(1980, 0, 1) / 900_000, max: Date.UTC(2100, 0, 1) / 900_000 }),
        fc.array(fc.integer({ min: 0, max: 899_999 }), { minLength: 1, maxLength: 4 }),
        (zone, quarter, offsets) => {
          for (const ms of offsets) {
            const at = quarter * 900_000 + ms;
            expect(dayInZone(at, zone)).toBe(fresh.get(zone)!.format(new Date(at)));
          }
        },
      ),
      { numRuns: 2000 },
    );
    // Local midnights of zones whose offsets are not whole hours, each side of the instant.
    for (const [iso, zone, before, after] of [
      ['2026-06-30T18:15:00Z', 'Asia/Kathmandu', '2026-06-30', '2026-07-01'],
      ['2026-06-30T11:15:00Z', 'Pacific/Chatham', '2026-06-30', '2026-07-01'],
      ['2026-07-01T02:30:00Z', 'America/St_Johns', '2026-06-30', '2026-07-01'],
    ] as const) {
      expect(dayInZone(Date.parse(iso) - 1, zone)).toBe(before);
      expect(dayInZone(Date.parse(iso), zone)).toBe(after);
    }
  });

  it('computes days before 1980 without the memo', () => {
    // Monrovia kept a local mean time of -0:44:30 until 1972: its midnight fell inside a quarter hour.
    expect(dayInZone(Date.parse('1970-06-01T00:44:29Z'), 'Africa/Monrovia')).toBe('1970-05-31');
    expect(dayInZone(Date.parse('1970-06-01T00:44:31Z'), 'Africa/Monrovia')).toBe('1970-06-01');
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
