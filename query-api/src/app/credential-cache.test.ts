import type { StoreRecord } from '../../../storage/store-registry';
import { CredentialCache } from './credential-cache';

const store = (id: string): StoreRecord => ({
  store_id: id,
  name: id,
  timezone: 'UTC',
  currency: 'USD',
  lookback_days: 30,
  half_life_days: 7,
  created_at: new Date(0),
});

describe('CredentialCache', () => {
  let now = 0;
  const cache = (freshMs = 0, staleMs = 1000, maxEntries?: number) =>
    new CredentialCache({ freshMs, staleMs, maxEntries, now: () => now });
  const down = (): Promise<never> => Promise.reject(new Error('connect ECONNREFUSED'));
  beforeEach(() => (now = 0));

  it('asks the database every time when freshMs is 0, so a revocation works at once', async () => {
    const c = cache();
    const load = jest.fn().mockResolvedValueOnce(store('a')).mockResolvedValueOnce(null);
    expect(await c.lookup('k', load)).toEqual(store('a'));
    expect(await c.lookup('k', load)).toBeNull();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('trusts a verified credential while the database cannot answer, up to staleMs', async () => {
    const c = cache(0, 1000);
    await c.lookup('k', () => Promise.resolve(store('a')));
    now = 999;
    expect(await c.lookup('k', down)).toEqual(store('a'));
    now = 1000;
    await expect(c.lookup('k', down)).rejects.toThrow('ECONNREFUSED');
  });

  it('never caches an unknown credential, and forgets a revoked one', async () => {
    const c = cache(0, 1000);
    expect(await c.lookup('u', () => Promise.resolve(null))).toBeNull();
    await expect(c.lookup('u', down)).rejects.toThrow();
    await c.lookup('k', () => Promise.resolve(store('a')));
    await c.lookup('k', () => Promise.resolve(null));
    await expect(c.lookup('k', down)).rejects.toThrow();
  });

  it('serves a fresh entry without a lookup, and keeps at most maxEntries', async () => {
    const c = cache(500, 1000, 2);
    await c.lookup('a', () => Promise.resolve(store('a')));
    await c.lookup('b', () => Promise.resolve(store('b')));
    await c.lookup('c', () => Promise.resolve(store('c')));
    const load = jest.fn(() => Promise.resolve(store('x')));
    expect(await c.lookup('c', load)).toEqual(store('c'));
    expect(load).not.toHaveBeenCalled();
    // The oldest verification was dropped.
    await expect(c.lookup('a', down)).rejects.toThrow();
  });
});
