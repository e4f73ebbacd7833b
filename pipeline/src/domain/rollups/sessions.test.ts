import fc from 'fast-check';
import type { Session } from '../sessionize';
import { diffSessions, SESSION_KEY, type StoredSession, storedSessionOf } from './sessions';

const touch = (source: string): Session['touch'] =>
  ({
    origin: 'utm',
    channel: 'paid_search',
    source,
    medium: 'cpc',
    campaign: 'brand',
    landingPage: '/',
    platform: 'google',
    content: '',
    term: '',
    linkCode: '',
    clickIdParam: '',
    campaignId: '',
    adSetId: '',
    adId: '',
  }) as Session['touch'];

const session = (clientId: string, startedAt: number, source = 'google'): Session => ({
  clientId,
  startedAt,
  landingEventId: `${clientId}-${startedAt}`,
  touch: touch(source),
});

describe('diffSessions', () => {
  it('leaves equal rows alone, replaces a changed one, deletes a gone one and inserts a new one', () => {
    const stored = [session('a', 1), session('a', 2), session('b', 1)].map(storedSessionOf);
    const fresh = [session('a', 1), session('a', 2, 'bing'), session('b', 5)];
    const { deleted, inserted } = diffSessions(stored, fresh);
    // a@1 is the same; a@2 changed its source (deleted and inserted); b@1 is gone; b@5 is new.
    expect(deleted.map((r) => SESSION_KEY.of(r)).sort()).toEqual(
      [SESSION_KEY.ofParts(['a', 2]), SESSION_KEY.ofParts(['b', 1])].sort(),
    );
    // The changed row goes as it was stored (google), and comes back as recomputed (bing).
    expect(deleted.map((r) => [r.client_id, r.started_at, r.source])).toEqual([
      ['a', 2, 'google'],
      ['b', 1, 'google'],
    ]);
    expect(inserted.map((r) => [r.client_id, r.started_at, r.source])).toEqual([
      ['a', 2, 'bing'],
      ['b', 5, 'google'],
    ]);
  });

  it('stores every field of a session under its column name', () => {
    const s = session('a', 1);
    expect(storedSessionOf(s)).toEqual({
      client_id: 'a',
      started_at: 1,
      landing_event_id: 'a-1',
      origin: 'utm',
      channel: 'paid_search',
      source: 'google',
      medium: 'cpc',
      campaign: 'brand',
      landing_page: '/',
      platform: 'google',
      content: '',
      term: '',
      link_code: '',
      click_id_param: '',
      campaign_id: '',
      ad_set_id: '',
      ad_id: '',
    });
    // A change in any one stored field, the touchpoint's or the session's own, makes the row differ.
    const stored = [storedSessionOf(s)];
    const touchFields = Object.keys(s.touch) as Array<keyof Session['touch']>;
    for (const f of touchFields) {
      const changed = { ...s, touch: { ...s.touch, [f]: `${String(s.touch[f])}x` } };
      expect([f, diffSessions(stored, [changed]).inserted.length]).toEqual([f, 1]);
    }
    expect(diffSessions(stored, [{ ...s, landingEventId: 'other' }]).deleted).toEqual(stored);
    // utm_id is not stored (it is read as the campaign id): a change in it alone leaves the row alone.
    expect(diffSessions(stored, [{ ...s, touch: { ...s.touch, utmId: '42' } }])).toEqual({ deleted: [], inserted: [] });
  });

  it('applied to the stored rows, gives exactly the fresh sessions; against itself, nothing', () => {
    const sessionArb = fc
      .tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 6 }), fc.constantFrom('google', 'bing'))
      .map(([c, t, s]) => session(c, t, s));
    // One session per client and start, as sessionize makes them.
    const unique = (xs: Session[]) => [...new Map(xs.map((s) => [`${s.clientId}@${s.startedAt}`, s])).values()];
    fc.assert(
      fc.property(fc.array(sessionArb), fc.array(sessionArb), (old, now) => {
        const stored = unique(old).map(storedSessionOf);
        const fresh = unique(now);
        const { deleted, inserted } = diffSessions(stored, fresh);
        const sig = (r: StoredSession) => JSON.stringify(r);
        const after = new Map(stored.map((r) => [sig(r), r]));
        for (const r of deleted) after.delete(sig(r));
        for (const r of inserted) after.set(sig(r), r);
        expect([...after.keys()].sort()).toEqual(fresh.map((s) => sig(storedSessionOf(s))).sort());
        expect(diffSessions(fresh.map(storedSessionOf), fresh)).toEqual({ deleted: [], inserted: [] });
      }),
    );
  });
});
