import fc from 'fast-check';
import { dayInZone } from '../../../contracts/src/time';
import type { EventFact } from './facts';
import {
  ownHostsOf,
  REFERRAL_EXCLUSIONS,
  SESSION_GAP_MS,
  type Session,
  type SessionEvent,
  sessionize,
} from './sessionize';
import { makeEvent, MINUTE, ms, page, pageView, STORE_URL } from '../../../test/support/fact-builders';
import type { TrackingLinkInfo } from './touchpoint-types';

const T0 = ms('2026-03-01T10:00:00Z');
const LINKS: ReadonlyMap<string, TrackingLinkInfo> = new Map([
  ['spring', { campaign: 'Spring Drop', source: 'Instagram', medium: 'Influencer' }],
]);
const resolveLink = (code: string): TrackingLinkInfo | undefined => LINKS.get(code);

const GOOGLE_CPC = page('/', 'utm_source=google&utm_medium=cpc&utm_campaign=brand');
const NEWSLETTER = page('/sale', 'utm_source=newsletter&utm_medium=email&utm_campaign=april');

/** Sessionizes one client's events the way the recomputation does (own hosts from its page URLs). */
function run(events: readonly SessionEvent[]): Session[] {
  return sessionize('c1', events, ownHostsOf(events.map((e) => e.pageUrl)), resolveLink);
}

interface Summary {
  start: number;
  landing: string;
  source: string;
  medium: string;
  campaign: string;
}

/** [start offset from T0 in ms, landing event id, "source/medium/campaign"] */
type Expected = [number, string, string];

function summarize(sessions: readonly Session[]): Summary[] {
  return sessions.map((s) => ({
    start: s.startedAt,
    landing: s.landingEventId,
    source: s.touch.source,
    medium: s.touch.medium,
    campaign: s.touch.campaign,
  }));
}

function expected(rows: readonly Expected[]): Summary[] {
  return rows.map(([offset, landing, dims]) => {
    const [source = '', medium = '', campaign = ''] = dims.split('/');
    return { start: T0 + offset, landing, source, medium, campaign };
  });
}

const DIRECT = '(direct)/(none)/(direct)';

describe('sessionize', () => {
  it.each<[string, EventFact[], Expected[]]>([
    ['no events: no session', [], []],
    [
      'one event: one session, touchpoint from its URL',
      [pageView('e1', T0, GOOGLE_CPC)],
      [[0, 'e1', 'google/cpc/brand']],
    ],
    ['one direct event', [pageView('e1', T0, page('/products/mug'))], [[0, 'e1', DIRECT]]],
    [
      'exactly 30 minutes without events continues the session',
      [pageView('e1', T0, GOOGLE_CPC), pageView('e2', T0 + 30 * MINUTE, page('/cart'))],
      [[0, 'e1', 'google/cpc/brand']],
    ],
    [
      '30 minutes + 1 ms without events starts a new session (direct: its own first page has no source)',
      [pageView('e1', T0, GOOGLE_CPC), pageView('e2', T0 + 30 * MINUTE + 1, page('/cart'))],
      [
        [0, 'e1', 'google/cpc/brand'],
        [30 * MINUTE + 1, 'e2', DIRECT],
      ],
    ],
    [
      'the gap is measured from the previous event, not from the session start (70 minutes, one session)',
      [
        pageView('e1', T0, GOOGLE_CPC),
        pageView('e2', T0 + 25 * MINUTE, page('/a')),
        pageView('e3', T0 + 50 * MINUTE, page('/b')),
        pageView('e4', T0 + 70 * MINUTE, page('/c')),
      ],
      [[0, 'e1', 'google/cpc/brand']],
    ],
    [
      'a new session after a gap takes the touchpoint of its own first event',
      [pageView('e1', T0, GOOGLE_CPC), pageView('e2', T0 + 2 * 60 * MINUTE, NEWSLETTER)],
      [
        [0, 'e1', 'google/cpc/brand'],
        [2 * 60 * MINUTE, 'e2', 'newsletter/email/april'],
      ],
    ],
    [
      'a page view with a different campaign source mid-session starts a new session',
      [
        pageView('e1', T0, GOOGLE_CPC),
        pageView('e2', T0 + 5 * MINUTE, page('/p')),
        pageView('e3', T0 + 10 * MINUTE, NEWSLETTER),
        pageView('e4', T0 + 12 * MINUTE, page('/q')),
      ],
      [
        [0, 'e1', 'google/cpc/brand'],
        [10 * MINUTE, 'e3', 'newsletter/email/april'],
      ],
    ],
    [
      'a page view naming the same source mid-session continues the session',
      [
        pageView('e1', T0, GOOGLE_CPC),
        pageView('e2', T0 + 5 * MINUTE, page('/other', 'utm_source=Google&utm_medium=CPC&utm_campaign=Brand')),
      ],
      [[0, 'e1', 'google/cpc/brand']],
    ],
    [
      'a page view from an external referrer mid-session (search engine) starts a new session',
      [
        pageView('e1', T0, GOOGLE_CPC),
        pageView('e2', T0 + 5 * MINUTE, page('/blog'), 'https://www.bing.com/search?q=mug'),
      ],
      [
        [0, 'e1', 'google/cpc/brand'],
        [5 * MINUTE, 'e2', 'bing/organic/(organic)'],
      ],
    ],
    [
      'a tracking link mid-session starts a new session with the link’s campaign',
      [pageView('e1', T0, GOOGLE_CPC), pageView('e2', T0 + MINUTE, page('/', 'ab_lnk=spring'))],
      [
        [0, 'e1', 'google/cpc/brand'],
        [MINUTE, 'e2', 'instagram/influencer/spring drop'],
      ],
    ],
    [
      'self-referral from the store’s own host mid-session does not start a session',
      [
        pageView('e1', T0, GOOGLE_CPC),
        pageView('e2', T0 + MINUTE, page('/p'), `${STORE_URL}/`),
        pageView('e3', T0 + 2 * MINUTE, page('/q'), 'https://www.shop.example.com/p'),
      ],
      [[0, 'e1', 'google/cpc/brand']],
    ],
    [
      'self-referral from checkout.shopify.com mid-session does not start a session',
      [
        pageView('e1', T0, GOOGLE_CPC),
        pageView('e2', T0 + 3 * MINUTE, page('/account'), 'https://checkout.shopify.com/12345/checkouts/abc'),
      ],
      [[0, 'e1', 'google/cpc/brand']],
    ],
    [
      'a session starting on a self-referral is direct',
      [pageView('e1', T0, page('/thanks'), 'https://checkout.shopify.com/12345/checkouts/abc')],
      [[0, 'e1', DIRECT]],
    ],
    [
      'a direct page view mid-session (no parameters, no referrer) does not start a session',
      [pageView('e1', T0, NEWSLETTER), pageView('e2', T0 + MINUTE, page('/'))],
      [[0, 'e1', 'newsletter/email/april']],
    ],
    [
      'a non-page_viewed event carrying UTM parameters mid-session does not split',
      [
        pageView('e1', T0, GOOGLE_CPC),
        makeEvent({ eventId: 'e2', at: T0 + MINUTE, name: 'product_viewed', pageUrl: NEWSLETTER }),
        makeEvent({ eventId: 'e3', at: T0 + 2 * MINUTE, name: 'product_added_to_cart', pageUrl: NEWSLETTER }),
        makeEvent({
          eventId: 'e4',
          at: T0 + 3 * MINUTE,
          name: 'collection_viewed',
          pageUrl: page('/c', 'gclid=xyz'),
          referrer: 'https://www.facebook.com/',
        }),
      ],
      [[0, 'e1', 'google/cpc/brand']],
    ],
    [
      'a session may start on a non-page_viewed event; its URL gives the touchpoint',
      [makeEvent({ eventId: 'e1', at: T0, name: 'product_viewed', pageUrl: NEWSLETTER })],
      [[0, 'e1', 'newsletter/email/april']],
    ],
    [
      'a direct session is split by a later page view that names a source',
      [pageView('e1', T0, page('/')), pageView('e2', T0 + 10 * MINUTE, GOOGLE_CPC)],
      [
        [0, 'e1', DIRECT],
        [10 * MINUTE, 'e2', 'google/cpc/brand'],
      ],
    ],
    [
      'after a split, the 30-minute gap runs from the last event (split session continues, then times out)',
      [
        pageView('e1', T0, GOOGLE_CPC),
        pageView('e2', T0 + 10 * MINUTE, NEWSLETTER),
        pageView('e3', T0 + 40 * MINUTE, page('/a')),
        pageView('e4', T0 + 70 * MINUTE + 1, page('/b')),
      ],
      [
        [0, 'e1', 'google/cpc/brand'],
        [10 * MINUTE, 'e2', 'newsletter/email/april'],
        [70 * MINUTE + 1, 'e4', DIRECT],
      ],
    ],
  ])('%s', (_name, events, rows) => {
    expect(summarize(run(events))).toEqual(expected(rows));
  });

  it('keeps one session across midnight in the store time zone (sessions run on event time, not days)', () => {
    // 22:50Z is 23:50 in Paris on 2026-03-01; 23:10Z is 00:10 in Paris on 2026-03-02; 20 minutes apart.
    const before = ms('2026-03-01T22:50:00Z');
    const after = ms('2026-03-01T23:10:00Z');
    expect(dayInZone(before, 'Europe/Paris')).toBe('2026-03-01');
    expect(dayInZone(after, 'Europe/Paris')).toBe('2026-03-02');
    const sessions = run([pageView('e1', before, GOOGLE_CPC), pageView('e2', after, page('/checkout'))]);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.startedAt).toBe(before);
  });

  it('returns the full session: client, start, landing event and touchpoint', () => {
    const [session] = run([pageView('e1', T0, page('/products/mug', 'utm_source=google&utm_medium=cpc&gclid=abc'))]);
    expect(session).toEqual<Session>({
      clientId: 'c1',
      startedAt: T0,
      landingEventId: 'e1',
      touch: {
        origin: 'utm',
        channel: 'paid_search',
        source: 'google',
        medium: 'cpc',
        campaign: '(not set)',
        landingPage: '/products/mug',
        platform: 'google',
        content: '',
        term: '',
        utmId: '',
        linkCode: '',
        clickIdParam: 'gclid',
        campaignId: '',
        adSetId: '',
        adId: '',
      },
    });
  });

  it('breaks equal timestamps by event id, whatever the input order', () => {
    // Same instant: e-a is processed first and lands the session.
    const a = pageView('e-a', T0, GOOGLE_CPC);
    const b = pageView('e-b', T0, NEWSLETTER);
    expect(summarize(run([b, a]))).toEqual(expected([[0, 'e-a', 'google/cpc/brand']]));
    expect(summarize(run([a, b]))).toEqual(expected([[0, 'e-a', 'google/cpc/brand']]));
  });

  it('does not modify its input', () => {
    const events = [pageView('e2', T0 + MINUTE), pageView('e1', T0, GOOGLE_CPC)];
    const copy = structuredClone(events);
    run(events);
    expect(events).toEqual(copy);
  });

  it('SESSION_GAP_MS is 30 minutes', () => {
    expect(SESSION_GAP_MS).toBe(30 * MINUTE);
  });

  describe('input order does not matter', () => {
    const journey: EventFact[] = [
      pageView('e1', T0, GOOGLE_CPC),
      makeEvent({ eventId: 'e2', at: T0 + MINUTE, name: 'product_viewed', pageUrl: page('/products/mug') }),
      pageView('e3', T0 + 5 * MINUTE, NEWSLETTER),
      makeEvent({ eventId: 'e4', at: T0 + 5 * MINUTE, name: 'product_added_to_cart', pageUrl: NEWSLETTER }),
      pageView('e5', T0 + 35 * MINUTE, page('/'), `${STORE_URL}/cart`),
      pageView('e6', T0 + 65 * MINUTE + 1, page('/'), 'https://www.google.com/'),
      pageView('e7', T0 + 66 * MINUTE, page('/', 'ab_lnk=spring')),
      pageView('e8', T0 + 66 * MINUTE, page('/x')),
    ];

    it('a fixed journey: shuffled events give deep-equal sessions', () => {
      const reference = run(journey);
      expect(summarize(reference)).toEqual(
        expected([
          [0, 'e1', 'google/cpc/brand'],
          [5 * MINUTE, 'e3', 'newsletter/email/april'],
          [65 * MINUTE + 1, 'e6', 'google/organic/(organic)'],
          [66 * MINUTE, 'e7', 'instagram/influencer/spring drop'],
        ]),
      );
      fc.assert(
        fc.property(
          fc.shuffledSubarray(journey, { minLength: journey.length, maxLength: journey.length }),
          (shuffled) => {
            expect(run(shuffled)).toEqual(reference);
          },
        ),
      );
    });

    const URLS = [GOOGLE_CPC, NEWSLETTER, page('/'), page('/p', 'ab_lnk=spring'), page('/q', 'fbclid=1')];
    const REFERRERS = ['', `${STORE_URL}/`, 'https://www.google.com/', 'https://checkout.shopify.com/1/checkouts/x'];
    const NAMES = ['page_viewed', 'product_viewed', 'product_added_to_cart'] as const;
    const arbEvents = fc
      .array(
        fc.record({
          offset: fc.integer({ min: 0, max: 4 * 60 }),
          ms: fc.constantFrom(0, 1),
          name: fc.constantFrom(...NAMES),
          url: fc.constantFrom(...URLS),
          referrer: fc.constantFrom(...REFERRERS),
        }),
        { maxLength: 25 },
      )
      .map((rows) =>
        rows.map((r, i) =>
          makeEvent({
            eventId: `e${String(i).padStart(2, '0')}`,
            at: T0 + r.offset * MINUTE + r.ms,
            name: r.name,
            pageUrl: r.url,
            referrer: r.referrer,
          }),
        ),
      );

    it('random journeys: any permutation gives deep-equal sessions', () => {
      fc.assert(
        fc.property(
          arbEvents.chain((events) =>
            fc.tuple(
              fc.constant(events),
              fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }),
            ),
          ),
          ([events, shuffled]) => {
            expect(run(shuffled)).toEqual(run(events));
          },
        ),
      );
    });

    it('random journeys: sessions start at input events, in strictly increasing time, the first at the earliest event', () => {
      fc.assert(
        fc.property(arbEvents, (events) => {
          const sessions = run(events);
          if (events.length === 0) {
            expect(sessions).toEqual([]);
            return;
          }
          const byId = new Map(events.map((e) => [e.eventId, e]));
          expect(sessions[0]!.startedAt).toBe(Math.min(...events.map((e) => e.at)));
          sessions.forEach((s, i) => {
            expect(byId.get(s.landingEventId)?.at).toBe(s.startedAt);
            if (i > 0) expect(s.startedAt).toBeGreaterThan(sessions[i - 1]!.startedAt);
          });
        }),
      );
    });
  });
});

describe('ownHostsOf', () => {
  it('is the referral exclusions plus the hosts of the pages (without www.)', () => {
    const hosts = ownHostsOf([`${STORE_URL}/a`, 'https://www.shop.example.com/b', 'not a url', '']);
    expect(hosts).toEqual(expect.arrayContaining([...REFERRAL_EXCLUSIONS, 'shop.example.com']));
    expect(hosts).toHaveLength(REFERRAL_EXCLUSIONS.length + 1);
    expect(REFERRAL_EXCLUSIONS).toContain('checkout.shopify.com');
  });
});
