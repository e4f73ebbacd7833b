import { EVENT_NAMES } from '../../../contracts/src/events';
import { analyticsOfPerson, NO_PREVIOUS_DAY, productShares, productUserKey, productUserSpans } from './analytics';
import { recomputePerson, type StoreRules } from './recompute-person';
import { makeEvent, ms, page, pageView, personFacts, UNIT } from '../../../test/support/fact-builders';

const UTC: StoreRules = { timezone: 'UTC', lookbackDays: 30, halfLifeDays: 7 };
const GOOGLE = page('/', 'utm_source=google&utm_medium=cpc&utm_campaign=brand');

describe('product spans', () => {
  it('count viewers and cart adders per product and for any product', () => {
    const row = (day: string, productId: string, views: number, addToCart: number) => ({
      day,
      productId,
      views,
      addToCart,
      checkouts: 0,
      purchases: 0,
      units: 0,
      revenueMicros: 0,
      cogsMicros: 0,
      newCustomerPurchases: 0,
    });
    const spans = productUserSpans([row('2026-03-01', 'tee', 2, 0), row('2026-03-02', 'socks', 1, 1)]);
    expect(spans.get(productUserKey('2026-03-01', 'tee', NO_PREVIOUS_DAY))).toEqual([1, 0]);
    expect(spans.get(productUserKey('2026-03-02', 'socks', NO_PREVIOUS_DAY))).toEqual([1, 1]);
    expect(spans.get(productUserKey('2026-03-01', '', NO_PREVIOUS_DAY))).toEqual([1, 0]);
    expect(spans.get(productUserKey('2026-03-02', '', '2026-03-01'))).toEqual([1, 0]);
    expect(spans.get(productUserKey('2026-03-02', '', NO_PREVIOUS_DAY))).toEqual([0, 1]);
  });
});

describe('product shares', () => {
  it('split a purchase value over its products by line amounts, in whole cents, exactly', () => {
    // 10.00 over lines of 2.00 and 1.00 (and 1.00 of the same product): 5.00 and 5.00.
    const shares = productShares(
      10 * UNIT,
      [
        ['a', 'va', 1, 200],
        ['b', 'vb', 1, 100],
        ['b', 'vb', 1, 100],
      ],
      (v) => (v === 'va' ? 3 * UNIT : undefined),
    );
    expect(shares).toEqual([
      { productId: 'a', units: 1, cogsMicros: 3 * UNIT, valueCents: 500 },
      { productId: 'b', units: 2, cogsMicros: 0, valueCents: 500 },
    ]);
    // 1.00 over three equal lines: 34 + 33 + 33 cents.
    const thirds = productShares(
      UNIT,
      [
        ['a', '', 1, 100],
        ['b', '', 1, 100],
        ['c', '', 1, 100],
      ],
      () => undefined,
    );
    expect(thirds.map((s) => s.valueCents)).toEqual([34, 33, 33]);
  });
});

describe('a person’s analytics', () => {
  it('counts sessions, engagement, the first session and the funnel step by day and touchpoint', () => {
    const facts = personFacts([
      pageView('e1', ms('2026-03-01T10:00:00Z'), GOOGLE),
      makeEvent({
        eventId: 'e2',
        clientId: 'c1',
        name: 'product_viewed',
        at: ms('2026-03-01T10:01:00Z'),
        pageUrl: page('/products/tee'),
        items: [['tee', 'v1', 1, 2500]],
      }),
      pageView('e3', ms('2026-03-02T09:00:00Z'), page('/')),
    ]);
    const view = recomputePerson(facts, UTC);
    const a = analyticsOfPerson(facts, view, 'UTC');
    expect(a.web).toHaveLength(2);
    const [first, second] = [...a.web].sort((x, y) => (x.day < y.day ? -1 : 1));
    expect(first).toMatchObject({
      day: '2026-03-01',
      source: 'google',
      sessions: 1,
      events: 2,
      engagedSessions: 1,
      newUsers: 1,
      level: 1,
    });
    expect(first!.eventCounts[EVENT_NAMES.indexOf('product_viewed')]).toBe(1);
    expect(second).toMatchObject({
      day: '2026-03-02',
      sessions: 1,
      events: 1,
      engagedSessions: 0,
      newUsers: 0,
      level: 0,
    });
    expect(a.products).toEqual([
      expect.objectContaining({ day: '2026-03-01', productId: 'tee', views: 1, addToCart: 0, purchases: 0 }),
    ]);
  });
});
