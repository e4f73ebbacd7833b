import { parseServerTiming, serverTimingHeader } from './request-timing';

describe('Server-Timing', () => {
  it('writes the API and database durations in milliseconds and reads them back', () => {
    const header = serverTimingHeader(12.3456, 7.5);
    expect(header).toBe('app;dur=12.35, db;dur=7.50');
    expect(parseServerTiming(header)).toEqual({ app: 12.35, db: 7.5 });
  });

  it('reads what other servers write, and leaves out what has no duration', () => {
    expect(parseServerTiming('cache;desc="Cache Read";dur=23.2, miss, db;dur=53 ,total;dur=n/a')).toEqual({
      cache: 23.2,
      db: 53,
    });
    expect(parseServerTiming(null)).toEqual({});
    expect(parseServerTiming('')).toEqual({});
  });
});
