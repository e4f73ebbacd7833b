import fc from 'fast-check';
import { type Goal, type Model, RULE_BASED_MODELS, WEIGHT_SCALE } from '../../../contracts/src/attribution';
import { type EventFact, type OrderFact, toOrderFact } from './facts';
import {
  type ConversionView,
  type Credit,
  type PersonView,
  recomputePerson,
  type StoreRules,
  unchangedThrough,
} from './recompute-person';
import {
  addToCart,
  checkoutCompleted,
  checkoutEvent,
  DAY,
  HOUR,
  makeEvent,
  makeOrder,
  makeShopOrder,
  MINUTE,
  ms,
  page,
  pageView,
  personFacts,
  type PersonOptions,
  STORE_URL,
  UNIT,
} from '../../../test/support/fact-builders';
import type { TrackingLinkInfo } from './touchpoint-types';

const PARIS: StoreRules = { timezone: 'Europe/Paris', lookbackDays: 30, halfLifeDays: 7 };
const LINKS: ReadonlyMap<string, TrackingLinkInfo> = new Map([
  ['spring', { campaign: 'Spring Drop', source: 'Instagram', medium: 'Influencer' }],
]);

const GOOGLE_CPC = page('/', 'utm_source=google&utm_medium=cpc&utm_campaign=brand');
const NEWSLETTER = page('/sale', 'utm_source=newsletter&utm_medium=email&utm_campaign=april');

/** A conversion instant well inside March 2026 (Paris is UTC+1 then). */
const T = ms('2026-03-10T12:00:00Z');

function recompute(
  events: readonly EventFact[],
  orders: readonly OrderFact[] = [],
  rules: Omit<StoreRules, 'halfLifeDays'> & Partial<StoreRules> = PARIS,
  options: PersonOptions = {},
): PersonView {
  return recomputePerson(personFacts(events, orders, { links: LINKS, ...options }), { halfLifeDays: 7, ...rules });
}

function only(view: PersonView, goal?: Goal): ConversionView {
  const found = view.conversions.filter((c) => goal === undefined || c.goal === goal);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** A credit as `[source, weight, value micros, cogs micros]`, in index order. */
type CreditRow = [string, number, number, number];

function rows(c: ConversionView, model: Model): CreditRow[] {
  return c.credits.filter((k) => k.model === model).map((k) => [k.source, k.weight, k.valueMicros, k.cogsMicros]);
}

/** The credited touchpoints of a conversion (`linear` credits every one of them), as `source/medium/campaign`. */
function touchesOf(c: ConversionView): string[] {
  return c.credits.filter((k) => k.model === 'linear').map((k) => `${k.source}/${k.medium}/${k.campaign}`);
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

describe('recomputePerson: hand-worked attribution', () => {
  it('two touches, purchase across midnight in Paris (hand-worked case 1)', () => {
    // S1 2026-02-20 10:00Z google/cpc/brand (paid_search), 9 days before the purchase: in the 30-day window.
    // S2 2026-03-01 23:10Z from l.facebook.com: facebook/social/(referral) (organic_social).
    // Purchase 23:30Z = 00:30 on 2026-03-02 in Paris (UTC+1 in March): day 2026-03-02, inside S2 (20 min).
    // Value 100.00 EUR = 100_000_000 micros. Cost of goods: 2 x v1 at 12.50 + 1 x v2 at 5.00 = 30.00 = 30_000_000.
    // n = 2: first -> S1 all; last -> S2 all; linear and position (0.5/0.5 for n = 2) -> half each:
    //   weight 500_000, value 50_000_000, cogs 15_000_000 to each.
    // No earlier purchase and no isFirstOrder: new, so newWeight = weight.
    // time_decay, H = 7 days: S1 is 9 d 13 h 10 min = 13_750 min older than S2, so it weighs
    //   r = 2^(-13_750/10_080) = 0.388480 against S2's 1: shares r/(1+r) = 0.279788 and 0.720212 ->
    //   weight [279_788, 720_212]; value 10_000 cents -> 2_797.88 / 7_202.12 -> [2_798, 7_202] cents;
    //   cogs 3_000 cents -> 839.36 / 2_160.64 -> [839, 2_161] cents.
    const s1 = ms('2026-02-20T10:00:00Z');
    const s2 = ms('2026-03-01T23:10:00Z');
    const at = ms('2026-03-01T23:30:00Z');
    const view = recompute(
      [
        pageView('e1', s1, GOOGLE_CPC),
        pageView('e2', s2, page('/products/mug'), 'https://l.facebook.com/'),
        checkoutCompleted('e3', at, 'o1', {
          valueMicros: 100 * UNIT,
          lines: [
            ['v1', 2],
            ['v2', 1],
          ],
        }),
      ],
      [],
      PARIS,
      {
        costs: new Map([
          ['v1', 12_500_000],
          ['v2', 5 * UNIT],
        ]),
      },
    );

    expect(view.personId).toBe('p1');
    expect(view.sessions.map((s) => [s.landingEventId, s.startedAt])).toEqual([
      ['e1', s1],
      ['e2', s2],
    ]);
    const c = only(view);
    expect(c).toMatchObject({
      goal: 'purchase',
      key: 'o1',
      clientId: 'c1',
      at,
      day: '2026-03-02',
      valueMicros: 100_000_000,
      valueOrig: 100,
      currencyOrig: 'EUR',
      cogsMicros: 30_000_000,
      isNew: true,
      eventId: 'e3',
      orderId: 'o1',
      variantIds: ['v1', 'v2'],
      firstTouch: { campaign: 'brand', channel: 'paid_search', source: 'google', medium: 'cpc', time: s1 },
      lastTouch: { campaign: '(referral)', channel: 'organic_social', source: 'facebook', medium: 'social', time: s2 },
    });

    const google = {
      channel: 'paid_search',
      source: 'google',
      medium: 'cpc',
      campaign: 'brand',
      landingPage: '/',
      platform: 'google',
      linkCode: '',
      campaignId: '',
      adSetId: '',
      adId: '',
    } as const;
    const facebook = {
      channel: 'organic_social',
      source: 'facebook',
      medium: 'social',
      campaign: '(referral)',
      landingPage: '/products/mug',
      platform: '',
      linkCode: '',
      campaignId: '',
      adSetId: '',
      adId: '',
    } as const;
    const all = { weight: 1_000_000, newWeight: 1_000_000, valueMicros: 100_000_000, cogsMicros: 30_000_000 };
    const half = { weight: 500_000, newWeight: 500_000, valueMicros: 50_000_000, cogsMicros: 15_000_000 };
    expect(c.credits).toEqual<Credit[]>([
      { ...google, model: 'first', index: 0, ...all },
      { ...facebook, model: 'last', index: 1, ...all },
      { ...google, model: 'linear', index: 0, ...half },
      { ...facebook, model: 'linear', index: 1, ...half },
      { ...google, model: 'position', index: 0, ...half },
      { ...facebook, model: 'position', index: 1, ...half },
      {
        ...google,
        model: 'time_decay',
        index: 0,
        weight: 279_788,
        newWeight: 279_788,
        valueMicros: 27_980_000,
        cogsMicros: 8_390_000,
      },
      {
        ...facebook,
        model: 'time_decay',
        index: 1,
        weight: 720_212,
        newWeight: 720_212,
        valueMicros: 72_020_000,
        cogsMicros: 21_610_000,
      },
    ]);
  });

  it('three touches, a direct one dropped, uneven split (hand-worked case 2)', () => {
    // Sessions: S1 T-20d newsletter/email/april, S2 T-10d direct, S3 T-5d bing organic, S4 T-10min google/cpc/brand.
    // add_to_cart at T inside S4, value 10.00 = 10_000_000, one v1 at 1.00: cogs 1_000_000.
    // A non-direct touch exists, so the direct S2 is dropped: n = 3 (S1, S3, S4).
    // Weights are split in millionths of a conversion, money in whole cents (value 1_000 cents, cogs 100 cents).
    // linear 1/3: weight 1_000_000/3 = 333_333 r 1/3 each; one unit left, equal remainders -> lowest index:
    //   weight [333_334, 333_333, 333_333];
    //   value 1_000/3 = 333 r 1/3 -> [334, 333, 333] cents = [3_340_000, 3_330_000, 3_330_000] micros;
    //   cogs 100/3 = 33 r 1/3 -> [34, 33, 33] cents = [340_000, 330_000, 330_000] micros.
    // position n = 3: 2/5, 1/5, 2/5, all exact -> weight [400_000, 200_000, 400_000];
    //   value [4_000_000, 2_000_000, 4_000_000]; cogs [400_000, 200_000, 400_000].
    const view = recompute(
      [
        pageView('e1', T - 20 * DAY, NEWSLETTER),
        pageView('e2', T - 10 * DAY, page('/')),
        pageView('e3', T - 5 * DAY, page('/blog'), 'https://www.bing.com/search?q=mug'),
        pageView('e4', T - 10 * MINUTE, GOOGLE_CPC),
        addToCart('e5', T, 10 * UNIT, [['v1', 1]]),
      ],
      [],
      PARIS,
      { costs: new Map([['v1', UNIT]]) },
    );
    expect(view.sessions).toHaveLength(4);
    const c = only(view, 'add_to_cart');
    expect(c).toMatchObject({ key: 'e5', day: '2026-03-10', valueMicros: 10_000_000, cogsMicros: 1_000_000 });
    expect(rows(c, 'first')).toEqual([['newsletter', 1_000_000, 10_000_000, 1_000_000]]);
    expect(rows(c, 'last')).toEqual([['google', 1_000_000, 10_000_000, 1_000_000]]);
    expect(rows(c, 'linear')).toEqual([
      ['newsletter', 333_334, 3_340_000, 340_000],
      ['bing', 333_333, 3_330_000, 330_000],
      ['google', 333_333, 3_330_000, 330_000],
    ]);
    expect(rows(c, 'position')).toEqual([
      ['newsletter', 400_000, 4_000_000, 400_000],
      ['bing', 200_000, 2_000_000, 200_000],
      ['google', 400_000, 4_000_000, 400_000],
    ]);
    expect(c.firstTouch).toEqual({
      campaign: 'april',
      channel: 'email',
      source: 'newsletter',
      medium: 'email',
      time: T - 20 * DAY,
    });
    expect(c.lastTouch).toEqual({
      campaign: 'brand',
      channel: 'paid_search',
      source: 'google',
      medium: 'cpc',
      time: T - 10 * MINUTE,
    });
  });

  it('four touches over two clients of the person, uneven middle split (hand-worked case 3)', () => {
    // Journey (docs/product.md, Identity: all clients of the person), in time order:
    //   T-3d c2 google organic, T-2d c1 fbclid (facebook/social/(not set)), T-1d c2 newsletter, T-5min c1 link.
    // checkout_started at T on c1, value 123.45 = 12_345 cents = 123_450_000 micros, no cost known: cogs 0.
    // linear 1/4: 12_345/4 = 3_086 r 1/4 each; 1 cent left, equal remainders -> index 0:
    //   [3_087, 3_086, 3_086, 3_086] cents = [30_870_000, 30_860_000, 30_860_000, 30_860_000]; weight 250_000 each.
    // position n = 4: 4/10, 1/10, 1/10, 4/10.
    //   12_345*4/10 = 4_938 exactly (first, last); 12_345/10 = 1_234 r 5/10 (each middle).
    //   floors sum 12_344, 1 cent left: remainders [0, 5, 5, 0] -> the lower of the two middles, index 1:
    //   [4_938, 1_235, 1_234, 4_938] cents = [49_380_000, 12_350_000, 12_340_000, 49_380_000];
    //   weight [400_000, 100_000, 100_000, 400_000].
    const value = 123_450_000;
    const view = recompute([
      pageView('a1', T - 3 * DAY, page('/'), 'https://www.google.com/', 'c2'),
      pageView('b1', T - 2 * DAY, page('/p', 'fbclid=abc'), '', 'c1'),
      pageView('a2', T - 1 * DAY, NEWSLETTER, '', 'c2'),
      pageView('b2', T - 5 * MINUTE, page('/', 'ab_lnk=spring'), '', 'c1'),
      checkoutEvent('checkout_started', 'b3', T, 'tok-A', { valueMicros: value }),
    ]);
    const c = only(view, 'checkout_start');
    expect(c).toMatchObject({ key: 'tok-A', clientId: 'c1', eventId: 'b3', valueMicros: value, cogsMicros: 0 });
    expect(touchesOf(c)).toEqual([
      'google/organic/(organic)',
      'facebook/social/(not set)',
      'newsletter/email/april',
      'instagram/influencer/spring drop',
    ]);
    expect(rows(c, 'linear')).toEqual([
      ['google', 250_000, 30_870_000, 0],
      ['facebook', 250_000, 30_860_000, 0],
      ['newsletter', 250_000, 30_860_000, 0],
      ['instagram', 250_000, 30_860_000, 0],
    ]);
    expect(rows(c, 'position')).toEqual([
      ['google', 400_000, 49_380_000, 0],
      ['facebook', 100_000, 12_350_000, 0],
      ['newsletter', 100_000, 12_340_000, 0],
      ['instagram', 400_000, 49_380_000, 0],
    ]);
    expect(c.credits.find((k) => k.model === 'last')).toMatchObject({ linkCode: 'spring', landingPage: '/', index: 3 });
    expect(c.firstTouch.time).toBe(T - 3 * DAY);
    expect(c.lastTouch.time).toBe(T - 5 * MINUTE);
  });
});

describe('recomputePerson: which touchpoints a conversion is credited to', () => {
  // One long session starting more than a day before the conversion: events every 25 minutes for 25 hours.
  const longSession: EventFact[] = [
    pageView('l000', T - 25 * HOUR, GOOGLE_CPC),
    ...Array.from({ length: 60 }, (_, i) =>
      makeEvent({
        eventId: `l${String(i + 1).padStart(3, '0')}`,
        at: T - 25 * HOUR + (i + 1) * 25 * MINUTE,
        name: 'product_viewed',
        pageUrl: page('/products/mug'),
      }),
    ),
  ];

  it.each<[string, EventFact[], number, string[]]>([
    [
      'one touch',
      [pageView('e1', T - HOUR, NEWSLETTER), addToCart('e2', T - HOUR + MINUTE, UNIT)],
      30,
      ['newsletter/email/april'],
    ],
    [
      'two touches, in time order',
      [pageView('e1', T - 2 * DAY, GOOGLE_CPC), pageView('e2', T - MINUTE, NEWSLETTER), addToCart('e3', T, UNIT)],
      30,
      ['google/cpc/brand', 'newsletter/email/april'],
    ],
    [
      'all direct: every direct touch is kept',
      [pageView('e1', T - 2 * DAY, page('/a')), pageView('e2', T - MINUTE, page('/b')), addToCart('e3', T, UNIT)],
      30,
      ['(direct)/(none)/(direct)', '(direct)/(none)/(direct)'],
    ],
    [
      'direct touches are dropped when one is not direct',
      [
        pageView('e1', T - 3 * DAY, page('/a')),
        pageView('e2', T - 2 * DAY, GOOGLE_CPC),
        pageView('e3', T - MINUTE, page('/b')),
        addToCart('e4', T, UNIT),
      ],
      30,
      ['google/cpc/brand'],
    ],
    [
      'lookback boundary: a session starting exactly at T - lookback is credited',
      [pageView('e1', T - 7 * DAY, NEWSLETTER), pageView('e2', T - MINUTE, page('/b')), addToCart('e3', T, UNIT)],
      7,
      ['newsletter/email/april'],
    ],
    [
      'lookback boundary: 1 ms earlier it is not (the direct session holding the conversion remains)',
      [pageView('e1', T - 7 * DAY - 1, NEWSLETTER), pageView('e2', T - MINUTE, page('/b')), addToCart('e3', T, UNIT)],
      7,
      ['(direct)/(none)/(direct)'],
    ],
    [
      'a session starting after the conversion is not credited',
      [
        pageView('e1', T - HOUR, NEWSLETTER),
        addToCart('e2', T - HOUR + MINUTE, UNIT),
        pageView('e3', T - HOUR + 2 * MINUTE, GOOGLE_CPC),
      ],
      30,
      ['newsletter/email/april'],
    ],
    [
      'no touch in the window (a 25-hour session, 1-day lookback): one direct touchpoint stands in',
      [...longSession, addToCart('zz', T, UNIT)],
      1,
      ['(direct)/(none)/(direct)'],
    ],
  ])('%s', (_name, events, lookbackDays, expected) => {
    const c = only(recompute(events, [], { timezone: 'Europe/Paris', lookbackDays }), 'add_to_cart');
    expect(touchesOf(c)).toEqual(expected);
  });

  it('no touch: the stand-in is direct with no landing page, at the conversion time', () => {
    const c = only(recompute([...longSession, addToCart('zz', T, 3 * UNIT)], [], { timezone: 'UTC', lookbackDays: 1 }));
    const direct = { campaign: '(direct)', channel: 'direct', source: '(direct)', medium: '(none)', time: T };
    expect(c.firstTouch).toEqual(direct);
    expect(c.lastTouch).toEqual(direct);
    for (const model of RULE_BASED_MODELS) {
      expect(c.credits.filter((k) => k.model === model)).toEqual<Credit[]>([
        {
          channel: 'direct',
          source: '(direct)',
          medium: '(none)',
          campaign: '(direct)',
          landingPage: '',
          platform: '',
          linkCode: '',
          campaignId: '',
          adSetId: '',
          adId: '',
          model,
          index: 0,
          weight: WEIGHT_SCALE,
          newWeight: WEIGHT_SCALE,
          valueMicros: 3 * UNIT,
          cogsMicros: 0,
        },
      ]);
    }
  });

  it('all direct: the real direct sessions are credited with their own landing pages and times', () => {
    const c = only(
      recompute([
        pageView('e1', T - 2 * DAY, page('/a')),
        pageView('e2', T - MINUTE, page('/b')),
        addToCart('e3', T, UNIT),
      ]),
    );
    expect(c.credits.filter((k) => k.model === 'linear').map((k) => [k.landingPage, k.weight])).toEqual([
      ['/a', 500_000],
      ['/b', 500_000],
    ]);
    expect(c.firstTouch.time).toBe(T - 2 * DAY);
    expect(c.lastTouch.time).toBe(T - MINUTE);
  });
});

describe('recomputePerson: conversion day in the store time zone', () => {
  it.each<[string, string, string]>([
    ['2026-03-01T23:30:00Z', 'Europe/Paris', '2026-03-02'],
    ['2026-03-01T22:59:59.999Z', 'Europe/Paris', '2026-03-01'],
    ['2026-03-01T23:00:00Z', 'Europe/Paris', '2026-03-02'],
    ['2026-07-01T22:00:00Z', 'Europe/Paris', '2026-07-02'],
    ['2026-03-01T23:30:00Z', 'UTC', '2026-03-01'],
    ['2026-03-02T04:30:00Z', 'America/New_York', '2026-03-01'],
  ])('a purchase at %s in %s is on day %s', (iso, timezone, day) => {
    const at = ms(iso);
    const view = recompute([pageView('e1', at - 20 * MINUTE, GOOGLE_CPC), checkoutCompleted('e2', at, 'o1')], [], {
      timezone,
      lookbackDays: 30,
    });
    expect(only(view).day).toBe(day);
  });

  it('a session across local midnight is one touchpoint; the purchase day is the local day of the purchase', () => {
    // 23:50 Paris (22:50Z) on 2026-03-01; add to cart 00:05 and purchase 00:20 Paris on 2026-03-02.
    const start = ms('2026-03-01T22:50:00Z');
    const view = recompute([
      pageView('e1', start, GOOGLE_CPC),
      addToCart('e2', start + 15 * MINUTE, UNIT),
      checkoutCompleted('e3', start + 30 * MINUTE, 'o1'),
    ]);
    expect(view.sessions).toHaveLength(1);
    expect(view.conversions.map((c) => [c.goal, c.day, c.firstTouch.time, c.firstTouch.source])).toEqual([
      ['add_to_cart', '2026-03-02', start, 'google'],
      ['purchase', '2026-03-02', start, 'google'],
    ]);
  });
});

describe('recomputePerson: one conversion per key', () => {
  it.each<[string, EventFact[], [Goal, string, string, number][]]>([
    [
      'two checkout_started of one token: the earliest wins (its event, client and value)',
      [
        checkoutEvent('checkout_started', 'e-late', T, 'tok1', { valueMicros: 70 * UNIT }),
        checkoutEvent('checkout_started', 'e-early', T - MINUTE, 'tok1', { valueMicros: 60 * UNIT, clientId: 'c2' }),
      ],
      [['checkout_start', 'tok1', 'e-early', 60 * UNIT]],
    ],
    [
      'same instant: the smaller event id wins',
      [
        checkoutEvent('checkout_started', 'e-b', T, 'tok1', { valueMicros: 70 * UNIT }),
        checkoutEvent('checkout_started', 'e-a', T, 'tok1', { valueMicros: 60 * UNIT }),
      ],
      [['checkout_start', 'tok1', 'e-a', 60 * UNIT]],
    ],
    [
      'two tokens: two conversions',
      [checkoutEvent('checkout_started', 'e1', T - HOUR, 'tok1'), checkoutEvent('checkout_started', 'e2', T, 'tok2')],
      [
        ['checkout_start', 'tok1', 'e1', 50 * UNIT],
        ['checkout_start', 'tok2', 'e2', 50 * UNIT],
      ],
    ],
    [
      'payment_info_submitted: one per token, independent of checkout_started',
      [
        checkoutEvent('checkout_started', 'e1', T - 2 * MINUTE, 'tok1'),
        checkoutEvent('payment_info_submitted', 'e2', T - MINUTE, 'tok1', { valueMicros: 55 * UNIT }),
        checkoutEvent('payment_info_submitted', 'e3', T, 'tok1', { valueMicros: 99 * UNIT }),
      ],
      [
        ['checkout_start', 'tok1', 'e1', 50 * UNIT],
        ['payment_info_submitted', 'tok1', 'e2', 55 * UNIT],
      ],
    ],
    [
      'add_to_cart: one per event',
      [addToCart('e1', T - MINUTE, 10 * UNIT), addToCart('e2', T, 12 * UNIT)],
      [
        ['add_to_cart', 'e1', 'e1', 10 * UNIT],
        ['add_to_cart', 'e2', 'e2', 12 * UNIT],
      ],
    ],
    [
      'two checkout_completed of one order: one purchase, the earliest event',
      [
        checkoutCompleted('e-late', T, 'o1', { valueMicros: 80 * UNIT }),
        checkoutCompleted('e-early', T - MINUTE, 'o1', { valueMicros: 75 * UNIT }),
      ],
      [['purchase', 'o1', 'e-early', 75 * UNIT]],
    ],
    [
      'other checkout steps convert nothing',
      [
        makeEvent({ eventId: 'e1', at: T, name: 'checkout_contact_info_submitted', checkoutToken: 'tok1' }),
        makeEvent({ eventId: 'e2', at: T, name: 'checkout_shipping_info_submitted', checkoutToken: 'tok1' }),
        makeEvent({ eventId: 'e3', at: T, name: 'lead_form_submitted', email: 'a@b.example' }),
      ],
      [],
    ],
  ])('%s', (_name, events, expected) => {
    const view = recompute(events);
    expect(view.conversions.map((c) => [c.goal, c.key, c.eventId, c.valueMicros])).toEqual(expected);
  });

  it('a conversion at the same instant as the earliest event of its key keeps that event’s client', () => {
    const c = only(
      recompute([
        checkoutEvent('checkout_started', 'e-late', T, 'tok1'),
        checkoutEvent('checkout_started', 'e-early', T - MINUTE, 'tok1', { clientId: 'c2' }),
      ]),
    );
    expect([c.clientId, c.at]).toEqual(['c2', T - MINUTE]);
  });
});

describe('recomputePerson: purchases from checkout_completed and pushed orders', () => {
  const costs = new Map([
    ['v1', 10 * UNIT],
    ['v2', 4 * UNIT],
  ]);

  it('checkout_completed alone: value and lines from the event', () => {
    const c = only(
      recompute([checkoutCompleted('e1', T, 'o1', { valueMicros: 42 * UNIT, lines: [['v2', 3]] })], [], PARIS, {
        costs,
      }),
    );
    expect(c).toMatchObject({
      goal: 'purchase',
      key: 'o1',
      orderId: 'o1',
      eventId: 'e1',
      clientId: 'c1',
      at: T,
      valueMicros: 42 * UNIT,
      valueOrig: 42,
      currencyOrig: 'EUR',
      cogsMicros: 12 * UNIT,
      variantIds: ['v2'],
    });
  });

  it('checkout_completed and the pushed order: the order’s value (less refunds) and lines win, the event’s time and client stay', () => {
    // Order total 120.00, refunds: 15.50 + 4.50 successful (a failed one and a sale are ignored) -> 100.00.
    // Lines of the order: 2 x v1 (cost 10.00) -> cogs 20.00; a custom line without variant is ignored.
    const { fact: order } = toOrderFact(
      makeShopOrder({
        id: 'o1',
        created_at: '2026-03-10T12:05:00Z',
        total_price: '120.00',
        line_items: [
          { id: 'l1', variant_id: 'v1', quantity: 2, price: '50.00' },
          { id: 'l2', variant_id: null, quantity: 1, price: '20.00' },
        ],
        refunds: [
          {
            id: 'r1',
            created_at: '2026-03-11T09:00:00Z',
            transactions: [
              { amount: '15.50', kind: 'refund', status: 'success' },
              { amount: '100.00', kind: 'refund', status: 'failure' },
              { amount: '30.00', kind: 'sale', status: 'success' },
            ],
          },
          {
            id: 'r2',
            created_at: '2026-03-12T09:00:00Z',
            transactions: [{ amount: '4.50', kind: 'refund', status: 'success' }],
          },
        ],
      }),
      'EUR',
      () => undefined,
    );
    expect(order).toMatchObject({
      valueMicros: 100 * UNIT,
      refundedMicros: 20 * UNIT,
      valueOrig: 120,
      cancelled: false,
    });

    const view = recompute(
      [
        pageView('e0', T - 10 * MINUTE, GOOGLE_CPC),
        checkoutCompleted('e1', T, 'o1', { valueMicros: 120 * UNIT, lines: [['v2', 1]] }),
      ],
      [order],
      PARIS,
      { costs },
    );
    // No fallback session for an order an event reported.
    expect(view.sessions.map((s) => s.clientId)).toEqual(['c1']);
    const c = only(view);
    expect(c).toMatchObject({
      key: 'o1',
      clientId: 'c1',
      eventId: 'e1',
      at: T,
      valueMicros: 100 * UNIT,
      valueOrig: 120,
      currencyOrig: 'EUR',
      cogsMicros: 20 * UNIT,
      variantIds: ['v1'],
    });
    expect(sum(c.credits.filter((k) => k.model === 'linear').map((k) => k.valueMicros))).toBe(100 * UNIT);
  });

  it('a fully refunded order that is not cancelled still converts, with value 0', () => {
    const { fact: order } = toOrderFact(
      makeShopOrder({
        id: 'o1',
        created_at: '2026-03-10T12:00:00Z',
        total_price: '30.00',
        refunds: [
          {
            id: 'r1',
            created_at: '2026-03-11T09:00:00Z',
            transactions: [{ amount: '30.00', kind: 'refund', status: 'success' }],
          },
        ],
      }),
      'EUR',
      () => undefined,
    );
    const c = only(recompute([checkoutCompleted('e1', T, 'o1', { valueMicros: 30 * UNIT })], [order]));
    expect(c.valueMicros).toBe(0);
    expect(sum(c.credits.filter((k) => k.model === 'first').map((k) => k.weight))).toBe(WEIGHT_SCALE);
  });

  it('a cancelled order converts nothing, with or without its checkout_completed event; other goals stay', () => {
    const { fact: cancelled } = toOrderFact(
      makeShopOrder({ id: 'o1', created_at: '2026-03-10T12:00:00Z', cancelled_at: '2026-03-10T13:00:00Z' }),
      'EUR',
      () => undefined,
    );
    expect(cancelled.cancelled).toBe(true);
    const withEvent = recompute(
      [checkoutEvent('checkout_started', 'e0', T - MINUTE, 'tok-o1'), checkoutCompleted('e1', T, 'o1')],
      [cancelled],
    );
    expect(withEvent.conversions.map((c) => c.goal)).toEqual(['checkout_start']);
    const withoutEvent = recompute([], [makeOrder({ orderId: 'o2', createdAt: T, cancelled: true })]);
    expect(withoutEvent.conversions).toEqual([]);
  });

  it('an order without event converts at created_at with a fallback session from landing_site and referring_site', () => {
    const createdAt = ms('2026-03-01T23:30:00Z');
    const view = recompute(
      [],
      [
        makeOrder({
          orderId: 'o9',
          createdAt,
          valueMicros: 80 * UNIT,
          valueOrig: 80,
          landingSite: '/products/mug?utm_source=Newsletter&utm_medium=email&utm_campaign=April',
          referringSite: 'https://www.google.com/',
          lines: [['v1', 1]],
        }),
      ],
      PARIS,
      { costs },
    );
    expect(view.sessions).toEqual([
      {
        clientId: 'order:o9',
        startedAt: createdAt,
        landingEventId: 'order:o9',
        touch: expect.objectContaining({
          origin: 'utm',
          source: 'newsletter',
          medium: 'email',
          campaign: 'april',
          channel: 'email',
          landingPage: '/products/mug',
        }),
      },
    ]);
    expect(only(view)).toMatchObject({
      goal: 'purchase',
      key: 'o9',
      clientId: 'order:o9',
      eventId: null,
      orderId: 'o9',
      at: createdAt,
      day: '2026-03-02',
      valueMicros: 80 * UNIT,
      cogsMicros: 10 * UNIT,
      isNew: true,
      firstTouch: { source: 'newsletter', medium: 'email', campaign: 'april', channel: 'email', time: createdAt },
    });
  });

  it.each<[string, Partial<OrderFact>, string, string]>([
    [
      'referring_site only: a search engine',
      { referringSite: 'https://www.google.com/search?q=mug' },
      'google/organic/(organic)',
      '/',
    ],
    [
      'absolute landing_site with a click id',
      { landingSite: 'https://shop.example.com/p?gclid=1' },
      'google/cpc/(not set)',
      '/p',
    ],
    [
      'protocol-relative landing_site',
      { landingSite: '//shop.example.com/q?utm_source=tiktok&utm_medium=paid' },
      'tiktok/paid/(not set)',
      '/q',
    ],
    ['nothing: direct', {}, '(direct)/(none)/(direct)', '/'],
    [
      'referring_site on the store’s own landing host: direct',
      { landingSite: `${STORE_URL}/x`, referringSite: `${STORE_URL}/` },
      '(direct)/(none)/(direct)',
      '/x',
    ],
  ])('fallback touchpoint: %s', (_name, fields, dims, landingPage) => {
    const view = recompute([], [makeOrder({ orderId: 'o1', createdAt: T, ...fields })]);
    const c = only(view);
    expect(touchesOf(c)).toEqual([dims]);
    expect(view.sessions[0]!.touch.landingPage).toBe(landingPage);
  });

  it('fallback touchpoint: a relative landing_site referred by a host the person’s events show as the store: direct', () => {
    const view = recompute(
      [pageView('e1', T - 5 * DAY, page('/'), '', 'c1')],
      [makeOrder({ orderId: 'o1', createdAt: T, landingSite: '/products/mug', referringSite: `${STORE_URL}/cart` })],
    );
    const fallback = view.sessions.find((s) => s.clientId === 'order:o1');
    expect(fallback?.touch).toMatchObject({ origin: 'direct', landingPage: '/products/mug' });
  });

  it('an order without event joins the person’s journey: its direct fallback gives way to an earlier campaign', () => {
    const view = recompute(
      [pageView('e1', T - 2 * DAY, NEWSLETTER, '', 'c1')],
      [makeOrder({ orderId: 'o1', createdAt: T })],
    );
    expect(view.sessions.map((s) => s.clientId)).toEqual(['c1', 'order:o1']);
    expect(touchesOf(only(view))).toEqual(['newsletter/email/april']);
  });
});

describe('recomputePerson: refund events and identity links (the Segment-compatible source)', () => {
  const refund = (eventId: string, at: number, orderId: string, valueMicros: number | null): EventFact =>
    makeEvent({ eventId, at, name: 'order_refunded', orderId, valueMicros, pageUrl: 'https://server.invalid/' });

  it('order_refunded events take their amounts off an event-only purchase; a null amount takes it all', () => {
    const bought = checkoutCompleted('e1', T, 'o1', { valueMicros: 80 * UNIT });
    // 80.00 - 12.50 - 7.50 = 60.00; a refund of another order changes nothing.
    const partial = recompute([
      bought,
      refund('r1', T + 1000, 'o1', 12.5 * UNIT),
      refund('r2', T + 2000, 'o1', 7.5 * UNIT),
      refund('r3', T + 2000, 'o2', 50 * UNIT),
    ]);
    expect(only(partial, 'purchase').valueMicros).toBe(60 * UNIT);
    const whole = recompute([bought, refund('r1', T + 1000, 'o1', 10 * UNIT), refund('r2', T + 2000, 'o1', null)]);
    expect(only(whole, 'purchase').valueMicros).toBe(0);
    // Never below zero.
    expect(only(recompute([bought, refund('r1', T + 1, 'o1', 99 * UNIT)]), 'purchase').valueMicros).toBe(0);
  });

  it('a pushed order decides its value alone: refund events do not take from it twice', () => {
    const { fact: order } = toOrderFact(
      makeShopOrder({ id: 'o1', created_at: '2026-03-10T12:05:00Z', total_price: '100.00', line_items: [] }),
      'EUR',
      () => 1,
    );
    const c = only(recompute([checkoutCompleted('e1', T, 'o1'), refund('r1', T + 1000, 'o1', 30 * UNIT)], [order]));
    expect(c.valueMicros).toBe(100 * UNIT);
  });

  it('identity links and refunds open no session: the campaign visit stays the only touch', () => {
    const view = recompute([
      pageView('p1', T - 3 * 3600_000, NEWSLETTER),
      // Two hours later, a server-side identify and a refund: no page, no new direct session.
      makeEvent({
        eventId: 'id1',
        at: T - 3600_000,
        name: 'user_identified',
        customerId: 'u1',
        pageUrl: 'https://server.invalid/',
      }),
      refund('r1', T - 3600_000, 'o0', null),
      checkoutCompleted('e1', T - 3 * 3600_000 + 60_000, 'o1'),
    ]);
    expect(view.sessions.map((s) => s.landingEventId)).toEqual(['p1']);
  });

  it('an added refund may change an earlier purchase: unchangedThrough gives null', () => {
    const stored = [pageView('p1', T - 60_000), checkoutCompleted('e1', T, 'o1')];
    // On a page of the store's own host: only the refund can make the stored purchase change.
    const added = { ...refund('r1', T + 3600_000, 'o1', UNIT), pageUrl: page('/account') };
    const facts = personFacts([...stored, added]);
    expect(unchangedThrough(facts, { eventIds: new Set(['r1']), orderIds: new Set() })).toBeNull();
  });
});

describe('recomputePerson: new leads', () => {
  /** [goal, key, isNew] of every conversion. */
  it.each<[string, EventFact[], OrderFact[], [Goal, string, boolean][]]>([
    [
      'isFirstOrder false from the event: not new, although no earlier purchase is known',
      [checkoutCompleted('e1', T, 'o1', { isFirstOrder: false })],
      [],
      [['purchase', 'o1', false]],
    ],
    [
      'isFirstOrder true from the event: new, although an earlier purchase is known',
      [checkoutCompleted('e1', T - DAY, 'o1'), checkoutCompleted('e2', T, 'o2', { isFirstOrder: true })],
      [],
      [
        ['purchase', 'o1', true],
        ['purchase', 'o2', true],
      ],
    ],
    [
      'no isFirstOrder: the first purchase is new, the second is not',
      [checkoutCompleted('e2', T, 'o2'), checkoutCompleted('e1', T - DAY, 'o1')],
      [],
      [
        ['purchase', 'o1', true],
        ['purchase', 'o2', false],
      ],
    ],
    [
      'an earlier pushed order without event counts as an earlier purchase',
      [checkoutCompleted('e2', T, 'o2')],
      [makeOrder({ orderId: 'o1', createdAt: T - DAY })],
      [
        ['purchase', 'o1', true],
        ['purchase', 'o2', false],
      ],
    ],
    [
      'an earlier cancelled order is no purchase',
      [checkoutCompleted('e2', T, 'o2')],
      [makeOrder({ orderId: 'o1', createdAt: T - DAY, cancelled: true })],
      [['purchase', 'o2', true]],
    ],
    [
      'other goals: new before the first purchase and at its instant, not after it',
      [
        addToCart('a1', T - HOUR, UNIT),
        checkoutEvent('checkout_started', 'a2', T - MINUTE, 'tok-o1'),
        addToCart('a3', T, UNIT),
        checkoutCompleted('p1', T, 'o1'),
        addToCart('a4', T + 1, UNIT),
        checkoutEvent('payment_info_submitted', 'a5', T + HOUR, 'tok-2'),
      ],
      [],
      [
        ['add_to_cart', 'a1', true],
        ['add_to_cart', 'a3', true],
        ['add_to_cart', 'a4', false],
        ['checkout_start', 'tok-o1', true],
        ['payment_info_submitted', 'tok-2', false],
        ['purchase', 'o1', true],
      ],
    ],
  ])('%s', (_name, events, orders, expected) => {
    const view = recompute(events, orders);
    expect(view.conversions.map((c) => [c.goal, c.key, c.isNew])).toEqual(expected);
    for (const c of view.conversions) {
      for (const k of c.credits) expect(k.newWeight).toBe(c.isNew ? k.weight : 0);
    }
  });
});

describe('recomputePerson: cost of goods', () => {
  it.each<[string, EventFact[], OrderFact[], number, string[]]>([
    [
      'unit cost x quantity, summed over lines (3 x 2.50 + 1 x 10.00 = 17.50)',
      [
        addToCart('e1', T, 30 * UNIT, [
          ['v1', 3],
          ['v2', 1],
        ]),
      ],
      [],
      17_500_000,
      ['v1', 'v2'],
    ],
    [
      'a variant without a known cost counts 0',
      [
        addToCart('e1', T, 30 * UNIT, [
          ['v1', 2],
          ['unknown', 5],
        ]),
      ],
      [],
      5 * UNIT,
      ['unknown', 'v1'],
    ],
    [
      'the same variant on two lines',
      [
        checkoutEvent('checkout_started', 'e1', T, 'tok', {
          lines: [
            ['v1', 1],
            ['v1', 2],
          ],
        }),
      ],
      [],
      7_500_000,
      ['v1'],
    ],
    [
      'a purchase with a pushed order uses the order lines',
      [checkoutCompleted('e1', T, 'o1', { lines: [['v2', 9]] })],
      [makeOrder({ orderId: 'o1', createdAt: T, lines: [['v1', 4]] })],
      10 * UNIT,
      ['v1'],
    ],
    ['no lines', [addToCart('e1', T, UNIT)], [], 0, []],
  ])('%s', (_name, events, orders, cogs, variants) => {
    const costs = new Map([
      ['v1', 2_500_000],
      ['v2', 10 * UNIT],
    ]);
    const c = only(recompute(events, orders, PARIS, { costs }));
    expect(c.cogsMicros).toBe(cogs);
    expect(c.variantIds).toEqual(variants);
    for (const model of RULE_BASED_MODELS) {
      expect(sum(c.credits.filter((k) => k.model === model).map((k) => k.cogsMicros))).toBe(cogs);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Properties over random persons: exact credits and independence from input order.

const URLS = [GOOGLE_CPC, NEWSLETTER, page('/'), page('/p', 'ab_lnk=spring'), page('/q', 'fbclid=1')];
const REFERRERS = ['', `${STORE_URL}/`, 'https://www.google.com/', 'https://checkout.shopify.com/1/checkouts/x'];
const BASE = ms('2026-01-01T00:00:00Z');
/** Stored amounts are whole cents (`toMicros`). */
const CENT = 10_000;

const arbEventOn = (urls: readonly string[], referrers: readonly string[]) =>
  fc.record({
    clientId: fc.constantFrom('c1', 'c2'),
    minute: fc.integer({ min: 0, max: 60 * 24 * 60 }),
    kind: fc.constantFrom('pv', 'pv', 'pv', 'cart', 'start', 'pay', 'done'),
    url: fc.constantFrom(...urls),
    referrer: fc.constantFrom(...referrers),
    token: fc.constantFrom('t1', 't2'),
    order: fc.constantFrom('o1', 'o2', 'o3'),
    cents: fc.integer({ min: 0, max: 50_000 }),
    variant: fc.constantFrom('v1', 'v2', 'v3'),
    qty: fc.integer({ min: 1, max: 5 }),
    first: fc.constantFrom(null, true, false),
  });
const arbEvent = arbEventOn(URLS, REFERRERS);
type ArbEvent = typeof arbEvent extends fc.Arbitrary<infer T> ? T : never;

function eventOf(e: ArbEvent, eventId: string, at: number): EventFact {
  const value = e.cents * CENT;
  const fields = { clientId: e.clientId, valueMicros: value, lines: [[e.variant, e.qty]] as [string, number][] };
  switch (e.kind) {
    case 'pv':
      return pageView(eventId, at, e.url, e.referrer, e.clientId);
    case 'cart':
      return addToCart(eventId, at, value, fields.lines, { clientId: e.clientId, pageUrl: e.url });
    case 'start':
      return checkoutEvent('checkout_started', eventId, at, e.token, fields);
    case 'pay':
      return checkoutEvent('payment_info_submitted', eventId, at, e.token, fields);
    case 'done':
      return checkoutCompleted(eventId, at, e.order, { ...fields, isFirstOrder: e.first });
  }
}

const arbOrder = fc.record({
  minute: fc.integer({ min: 0, max: 60 * 24 * 60 }),
  cancelled: fc.boolean(),
  cents: fc.integer({ min: 0, max: 50_000 }),
  landing: fc.constantFrom('', '/?utm_source=google&utm_medium=cpc', '/p?fbclid=2'),
  referring: fc.constantFrom('', 'https://www.bing.com/'),
});

const arbPersonOf = (arbEvents: fc.Arbitrary<ArbEvent>) =>
  fc
    .record({
      events: fc.array(arbEvents, { maxLength: 30 }),
      orders: fc.uniqueArray(fc.tuple(fc.constantFrom('o1', 'o2', 'o3'), arbOrder), {
        maxLength: 3,
        selector: ([id]) => id,
      }),
      lookbackDays: fc.constantFrom(1, 7, 30),
    })
    .map(({ events, orders, lookbackDays }) => ({
      lookbackDays,
      events: events.map((e, i) => eventOf(e, `e${String(i).padStart(2, '0')}`, BASE + e.minute * MINUTE)),
      orders: orders.map(([orderId, o]): OrderFact =>
        makeOrder({
          orderId,
          createdAt: BASE + o.minute * MINUTE,
          cancelled: o.cancelled,
          valueMicros: o.cents * CENT,
          landingSite: o.landing,
          referringSite: o.referring,
          lines: [['v1', 2]],
        }),
      ),
    }));
const arbPerson = arbPersonOf(arbEvent);

/** Unit costs in whole cents, as `toVariantCosts` stores them. */
const COSTS = new Map([
  ['v1', 3_330_000],
  ['v2', 1_010_000],
]);

function recomputeRandom(p: { events: EventFact[]; orders: OrderFact[]; lookbackDays: number }): PersonView {
  return recompute(p.events, p.orders, { timezone: 'Europe/Paris', lookbackDays: p.lookbackDays }, { costs: COSTS });
}

describe('recomputePerson: properties', () => {
  it('credits sum exactly to WEIGHT_SCALE, the value and the cost of goods per conversion and model', () => {
    fc.assert(
      fc.property(arbPerson, (p) => {
        const view = recomputeRandom(p);
        for (const c of view.conversions) {
          for (const model of RULE_BASED_MODELS) {
            const credits = c.credits.filter((k) => k.model === model);
            expect(sum(credits.map((k) => k.weight))).toBe(WEIGHT_SCALE);
            expect(sum(credits.map((k) => k.newWeight))).toBe(c.isNew ? WEIGHT_SCALE : 0);
            expect(sum(credits.map((k) => k.valueMicros))).toBe(c.valueMicros);
            expect(sum(credits.map((k) => k.cogsMicros))).toBe(c.cogsMicros);
            for (const k of credits) {
              expect(Number.isSafeInteger(k.weight) && Number.isSafeInteger(k.valueMicros)).toBe(true);
            }
            const indices = credits.map((k) => k.index);
            expect(indices).toEqual([...indices].sort((a, b) => a - b));
            if (model === 'first' || model === 'last') expect(credits).toHaveLength(1);
          }
        }
      }),
    );
  });

  it('firstTouch/lastTouch are the touchpoints the first and last models credit, with times in the window', () => {
    fc.assert(
      fc.property(arbPerson, (p) => {
        const view = recomputeRandom(p);
        for (const c of view.conversions) {
          const dims = (k: Credit): string[] => [k.campaign, k.channel, k.source, k.medium];
          const first = c.credits.find((k) => k.model === 'first')!;
          const last = c.credits.find((k) => k.model === 'last')!;
          const linear = c.credits.filter((k) => k.model === 'linear');
          expect([c.firstTouch.campaign, c.firstTouch.channel, c.firstTouch.source, c.firstTouch.medium]).toEqual(
            dims(first),
          );
          expect([c.lastTouch.campaign, c.lastTouch.channel, c.lastTouch.source, c.lastTouch.medium]).toEqual(
            dims(last),
          );
          expect(first.index).toBe(0);
          expect(last.index).toBe(linear.length - 1);
          expect(c.firstTouch.time).toBeLessThanOrEqual(c.lastTouch.time);
          expect(c.firstTouch.time).toBeGreaterThanOrEqual(c.at - p.lookbackDays * DAY);
          expect(c.lastTouch.time).toBeLessThanOrEqual(c.at);
          // Direct touches only when every credited touch is direct.
          const directs = linear.filter((k) => k.channel === 'direct' && k.source === '(direct)').length;
          expect(directs === 0 || directs === linear.length).toBe(true);
        }
      }),
    );
  });

  it('shuffled events and orders give a deep-equal view', () => {
    fc.assert(
      fc.property(
        arbPerson.chain((p) =>
          fc.record({
            p: fc.constant(p),
            events: fc.shuffledSubarray(p.events, { minLength: p.events.length, maxLength: p.events.length }),
            orders: fc.shuffledSubarray(p.orders, { minLength: p.orders.length, maxLength: p.orders.length }),
          }),
        ),
        ({ p, events, orders }) => {
          expect(recomputeRandom({ ...p, events, orders })).toEqual(recomputeRandom(p));
        },
      ),
    );
  });

  it('a fixed journey: shuffled input gives a deep-equal view', () => {
    const events: EventFact[] = [
      pageView('e1', T - 3 * DAY, GOOGLE_CPC, '', 'c2'),
      pageView('e2', T - 2 * DAY, NEWSLETTER),
      addToCart('e3', T - 2 * DAY + MINUTE, 20 * UNIT, [['v1', 1]]),
      pageView('e4', T - 10 * MINUTE, page('/'), 'https://www.google.com/'),
      checkoutEvent('checkout_started', 'e5', T - 5 * MINUTE, 'tok-o1'),
      checkoutEvent('checkout_started', 'e6', T - 4 * MINUTE, 'tok-o1'),
      checkoutEvent('payment_info_submitted', 'e7', T - MINUTE, 'tok-o1'),
      checkoutCompleted('e8', T, 'o1', { lines: [['v2', 2]] }),
    ];
    const orders = [
      makeOrder({ orderId: 'o1', createdAt: T + MINUTE, valueMicros: 45 * UNIT, lines: [['v2', 2]] }),
      makeOrder({ orderId: 'o0', createdAt: T - 40 * DAY, landingSite: '/?utm_source=old&utm_medium=email' }),
      makeOrder({ orderId: 'o2', createdAt: T + DAY, cancelled: true }),
    ];
    const reference = recompute(events, orders, PARIS, { costs: COSTS });
    expect(reference.conversions.map((c) => [c.goal, c.key, c.isNew, touchesOf(c)])).toEqual([
      ['add_to_cart', 'e3', false, ['google/cpc/brand', 'newsletter/email/april']],
      ['checkout_start', 'tok-o1', false, ['google/cpc/brand', 'newsletter/email/april', 'google/organic/(organic)']],
      [
        'payment_info_submitted',
        'tok-o1',
        false,
        ['google/cpc/brand', 'newsletter/email/april', 'google/organic/(organic)'],
      ],
      ['purchase', 'o0', true, ['old/email/(not set)']],
      ['purchase', 'o1', false, ['google/cpc/brand', 'newsletter/email/april', 'google/organic/(organic)']],
    ]);
    fc.assert(
      fc.property(
        fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }),
        fc.shuffledSubarray(orders, { minLength: orders.length, maxLength: orders.length }),
        (e, o) => {
          expect(recompute(e, o, PARIS, { costs: COSTS })).toEqual(reference);
        },
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// A person extended: later events leave the conversions before them as they were.

/** A host the store's pages may live on besides its shop: a referrer from it is a referral until a page shows it. */
const BLOG = 'https://blog.example.org';
const arbEventOrBlog = arbEventOn([...URLS, `${BLOG}/post`], [...REFERRERS, `${BLOG}/`]);

const arbExtension = arbPersonOf(arbEventOrBlog).chain((prior) =>
  fc.record({
    prior: fc.constant(prior),
    later: fc.array(
      fc.record({
        e: arbEventOrBlog,
        // Mostly after the stored facts, some within one session of the latest; a few not after, or tied.
        offset: fc.oneof(
          { weight: 3, arbitrary: fc.integer({ min: 1, max: 45 * MINUTE }) },
          { weight: 3, arbitrary: fc.integer({ min: 1, max: 20 * DAY }) },
          { weight: 1, arbitrary: fc.integer({ min: -2 * DAY, max: 0 }) },
          { weight: 1, arbitrary: fc.constant(0) },
        ),
      }),
      { minLength: 1, maxLength: 8 },
    ),
  }),
);

function extensionOf({ prior, later }: typeof arbExtension extends fc.Arbitrary<infer T> ? T : never) {
  const latest = Math.max(BASE, ...prior.events.map((e) => e.at), ...prior.orders.map((o) => o.createdAt));
  const added = later.map(({ e, offset }, i) => eventOf(e, `n${String(i).padStart(2, '0')}`, latest + offset));
  const all = { ...prior, events: [...prior.events, ...added] };
  const facts = personFacts(all.events, all.orders, { links: LINKS, costs: COSTS });
  const rules: StoreRules = { timezone: 'Europe/Paris', lookbackDays: prior.lookbackDays, halfLifeDays: 7 };
  const through = unchangedThrough(facts, { eventIds: new Set(added.map((e) => e.eventId)), orderIds: new Set() });
  return { all, facts, rules, through };
}

const keyOf = (c: ConversionView): string => `${c.goal}\u0000${c.key}`;

/**
 * The properties below are about extensions that keep something: `unchangedThrough` gives a time (the cases it
 * rules out have their own test). `fc.pre` discards the others, so every run counted in `numRuns` reaches the
 * assertions, and fast-check fails when too many are discarded (a generator that stops producing them).
 */
const arbExtended = arbExtension.map((x) => ({ x, ...extensionOf(x) }));

describe('recomputePerson: a person extended', () => {
  it('every conversion up to unchangedThrough is what the stored facts alone gave', () => {
    let kept = 0;
    let runsKept = 0;
    fc.assert(
      fc.property(arbExtended, ({ x, all, through }) => {
        fc.pre(through !== null);
        let keptRun = false;
        const before = new Map(recomputeRandom(x.prior).conversions.map((c) => [keyOf(c), c]));
        for (const c of recomputeRandom(all).conversions) {
          if (c.at > through) continue;
          expect(c).toEqual(before.get(keyOf(c)));
          kept++;
          keptRun = true;
        }
        if (keptRun) runsKept++;
      }),
      { numRuns: 300 },
    );
    // The property is about kept conversions: nearly every run keeps some (the rest convert nothing before the
    // extension). Over 8 seeds: 287 to 296 runs, 935 to 1,049 conversions; the bounds sit far below that, and
    // catch a generator that stops producing kept conversions.
    expect(runsKept).toBeGreaterThan(240);
    expect(kept).toBeGreaterThan(750);
  });

  it('kept conversions are left out of the crediting, purchases excepted; everything else is the full recomputation', () => {
    fc.assert(
      fc.property(arbExtended, fc.boolean(), ({ all, facts, rules, through }, storedAll) => {
        fc.pre(through !== null);
        const full = recomputeRandom(all);
        // The views may lack a conversion (a repair pending): it is then credited and written.
        const storedKeys = new Set(full.conversions.filter((_, i) => storedAll || i % 2 === 0).map(keyOf));
        const view = recomputePerson(facts, rules, { through, stored: (g, k) => storedKeys.has(`${g}\u0000${k}`) });
        expect(view.sessions).toEqual(full.sessions);
        expect(view.conversions).toHaveLength(full.conversions.length);
        view.conversions.forEach((c, i) => {
          const reference = full.conversions[i]!;
          const isKept = c.at <= through && storedKeys.has(keyOf(c));
          expect(view.unchanged?.has(c)).toBe(isKept);
          expect(c).toEqual(isKept && c.goal !== 'purchase' ? { ...reference, credits: [] } : reference);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('not after the stored facts, an added order, a new page host or a stored order reported: no extension', () => {
    const stored = [
      pageView('e1', T - 2 * DAY, page('/'), `${BLOG}/`),
      addToCart('e2', T - 2 * DAY + MINUTE, 20 * UNIT, [['v1', 1]]),
    ];
    const order = makeOrder({ orderId: 'o1', createdAt: T - DAY });
    const through = (later: EventFact[], orders: OrderFact[] = [order], addedOrders: string[] = []) =>
      unchangedThrough(personFacts([...stored, ...later], orders), {
        eventIds: new Set(later.map((e) => e.eventId)),
        orderIds: new Set(addedOrders),
      });
    expect(through([pageView('n1', T)])).toBe(T - DAY);
    expect(through([pageView('n1', T - DAY)])).toBeNull();
    expect(through([pageView('n1', T)], [order], ['o1'])).toBeNull();
    expect(through([pageView('n1', T, `${BLOG}/post`)])).toBeNull();
    expect(through([checkoutCompleted('n1', T, 'o1')])).toBeNull();
    expect(through([checkoutCompleted('n1', T, 'o2')])).toBe(T - DAY);
    expect(through([], [])).toBe(T - 2 * DAY + MINUTE);
    expect(
      unchangedThrough(personFacts([pageView('n1', T)]), { eventIds: new Set(['n1']), orderIds: new Set() }),
    ).toBeNull();
  });
});
