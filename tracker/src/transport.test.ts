import { backoffMs, isRetryable, retryAfterMs } from './transport';

describe('retryAfterMs', () => {
  const now = Date.parse('2026-03-01T10:00:00Z');
  it('reads seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs('Sun, 01 Mar 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Sun, 01 Mar 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBe(0);
    expect(retryAfterMs('', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBe(0);
  });
});

describe('backoffMs', () => {
  it('doubles from 1 s up to 60 s, jittered between half and all of the step', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 1))).toEqual([1000, 2000, 4000, 8000]);
    expect([1, 2, 3].map((n) => backoffMs(n, 0))).toEqual([500, 1000, 2000]);
    expect(backoffMs(20, 1)).toBe(60_000);
    expect(backoffMs(20, 0)).toBe(30_000);
  });
});

describe('isRetryable', () => {
  it('retries network errors, 408, 429 and 5xx, never other 4xx', () => {
    expect([0, 408, 429, 500, 502, 503].every(isRetryable)).toBe(true);
    expect([200, 400, 401, 404, 413, 415].some(isRetryable)).toBe(false);
  });
});
