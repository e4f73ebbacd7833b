import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  it('serves a value for its time to live, then loads again', async () => {
    let t = 0;
    let loads = 0;
    const cache = new TtlCache<number>(1000, 10, () => t);
    const load = () => Promise.resolve(++loads);
    expect(await cache.get('k', load)).toBe(1);
    t = 999;
    expect(await cache.get('k', load)).toBe(1);
    t = 1000;
    expect(await cache.get('k', load)).toBe(2);
  });

  it('shares one load between concurrent callers and forgets failures', async () => {
    let loads = 0;
    const cache = new TtlCache<number>(1000, 10);
    const slow = () => new Promise<number>((r) => setTimeout(() => r(++loads), 10));
    expect(await Promise.all([cache.get('k', slow), cache.get('k', slow)])).toEqual([1, 1]);
    await expect(cache.get('bad', () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await new Promise((r) => setTimeout(r, 0));
    expect(await cache.get('bad', () => Promise.resolve(7))).toBe(7);
  });

  it('evicts the oldest entries beyond its size, and is off with a zero time to live', async () => {
    let loads = 0;
    const cache = new TtlCache<number>(1000, 2);
    const load = () => Promise.resolve(++loads);
    await cache.get('a', load);
    await cache.get('b', load);
    await cache.get('c', load);
    expect(await cache.get('a', load)).toBe(4);
    const off = new TtlCache<number>(0, 2);
    expect(await off.get('a', load)).toBe(5);
    expect(await off.get('a', load)).toBe(6);
  });
});
