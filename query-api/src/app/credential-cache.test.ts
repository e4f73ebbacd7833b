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
  /** A cache that hears every change (trusted), as the API's is while it listens. */
  const cache = (freshMs = 0, staleMs = 1000, maxEntries?: number) => {
    const c = new CredentialCache({ freshMs, staleMs, maxEntries, now: () => now });
    c.trust(true);
    return c;
  };
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

  it('asks the database every time while it does not hear the changes, and forgets what it heard before', async () => {
    const c = cache(500);
    const load = jest.fn(() => Promise.resolve(store('a')));
    await c.lookup('k', load);
    c.trust(false);
    await c.lookup('k', load);
    await c.lookup('k', load);
    expect(load).toHaveBeenCalledTimes(3);
    // Listening again: what was verified while deaf is looked up once more, then trusted.
    c.trust(true);
    await c.lookup('k', load);
    await c.lookup('k', load);
    expect(load).toHaveBeenCalledTimes(4);
  });

  it('looks every credential up again after a change is announced', async () => {
    const c = cache(500);
    await c.lookup('a', () => Promise.resolve(store('a')));
    await c.lookup('b', () => Promise.resolve(store('b')));
    c.forgetAll();
    const load = jest.fn().mockResolvedValueOnce(null).mockResolvedValueOnce(store('b'));
    expect(await c.lookup('a', load)).toBeNull();
    expect(await c.lookup('b', load)).toEqual(store('b'));
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('does not keep an answer read before a change that was announced while it was read', async () => {
    const c = cache(500);
    let answer: (s: StoreRecord) => void = () => undefined;
    const pending = c.lookup('k', () => new Promise<StoreRecord>((resolve) => (answer = resolve)));
    c.forgetAll(); // e.g. the key's revocation, committed after the lookup read its row
    answer(store('a'));
    expect(await pending).toEqual(store('a'));
    const load = jest.fn().mockResolvedValue(null);
    expect(await c.lookup('k', load)).toBeNull();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('counts the lookups it answers from memory', async () => {
    const onHit = jest.fn();
    const c = new CredentialCache({ freshMs: 500, staleMs: 1000, now: () => now, onHit });
    c.trust(true);
    await c.lookup('k', () => Promise.resolve(store('a')));
    await c.lookup('k', () => Promise.resolve(store('a')));
    await c.lookup('k', () => Promise.resolve(store('a')));
    expect(onHit).toHaveBeenCalledTimes(2);
  });
});
