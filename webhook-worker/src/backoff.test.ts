import {
  DEFAULT_BACKOFF_MS,
  DEFAULT_BACKOFF_POLICY,
  parseBackoffList,
  parseRetryAfter,
  retryDelayMs,
  type BackoffPolicy,
} from './backoff';

const NOW = Date.parse('2025-03-01T12:00:00Z');
const noJitter: BackoffPolicy = { ...DEFAULT_BACKOFF_POLICY, jitter: 0 };
const mid = (): number => 0.5;

describe('retryDelayMs', () => {
  it('follows docs/product.md, Identity events and destinations: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h', () => {
    expect(DEFAULT_BACKOFF_MS).toEqual([5e3, 3e5, 1.8e6, 7.2e6, 1.8e7, 3.6e7, 8.64e7]);
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, noJitter, mid))).toEqual(DEFAULT_BACKOFF_MS);
  });

  it('gives up after the last entry (eight attempts in all)', () => {
    expect(retryDelayMs(8, DEFAULT_BACKOFF_POLICY, mid)).toBeNull();
    expect(retryDelayMs(50, DEFAULT_BACKOFF_POLICY, mid)).toBeNull();
    expect(retryDelayMs(2, { ...noJitter, scheduleMs: [100] }, mid)).toBeNull();
    expect(retryDelayMs(1, { ...noJitter, scheduleMs: [] }, mid)).toBeNull();
  });

  it('ignores attempt numbers that make no sense', () => {
    expect(retryDelayMs(0, DEFAULT_BACKOFF_POLICY, mid)).toBeNull();
    expect(retryDelayMs(1.5, DEFAULT_BACKOFF_POLICY, mid)).toBeNull();
  });

  it('jitters within ±jitter', () => {
    const p: BackoffPolicy = { ...DEFAULT_BACKOFF_POLICY, jitter: 0.2 };
    expect(retryDelayMs(1, p, () => 0)).toBe(4000);
    expect(retryDelayMs(1, p, () => 0.5)).toBe(5000);
    expect(retryDelayMs(1, p, () => 0.999999)).toBe(6000);
    for (let i = 0; i < 200; i++) {
      const d = retryDelayMs(3, p, Math.random)!;
      expect(d).toBeGreaterThanOrEqual(1.8e6 * 0.8);
      expect(d).toBeLessThanOrEqual(1.8e6 * 1.2);
    }
  });

  it('honours a longer Retry-After, exactly, and ignores a shorter one', () => {
    expect(retryDelayMs(1, noJitter, mid, 60_000)).toBe(60_000);
    expect(retryDelayMs(2, noJitter, mid, 60_000)).toBe(300_000);
    expect(retryDelayMs(1, noJitter, mid, 0)).toBe(5000);
  });

  it('caps Retry-After', () => {
    expect(retryDelayMs(1, { ...noJitter, maxRetryAfterMs: 3_600_000 }, mid, 10 * 86_400_000)).toBe(3_600_000);
  });

  it('does not retry past the schedule even when Retry-After asks to', () => {
    expect(retryDelayMs(8, noJitter, mid, 1000)).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['120', 120_000],
    [' 1 ', 1000],
    ['0', 0],
    ['Sat, 01 Mar 2025 12:00:30 GMT', 30_000],
    ['Sat, 01 Mar 2025 11:00:00 GMT', 0],
  ])('%j -> %d ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it.each([null, undefined, '', '-5', '1.5', 'soon', 'Mon, 99 Foo 2025 99:99:99 GMT'])('%j -> null', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeNull();
  });
});

describe('parseBackoffList', () => {
  it('reads comma-separated milliseconds', () => {
    expect(parseBackoffList('200, 200,1000')).toEqual([200, 200, 1000]);
    expect(parseBackoffList('0')).toEqual([0]);
  });

  it.each(['', '5s', '100,,200', '-1', '1.5'])('rejects %j', (text) => {
    expect(() => parseBackoffList(text)).toThrow(/comma-separated/);
  });
});
