/**
 * The credits recomputePerson gives (what the views are maintained from) against the reference model of
 * test/support/attribution-reference.ts, written from the docs alone: hand-worked journeys, then random
 * journeys under every model (docs/product.md, Attribution).
 */
import fc from 'fast-check';
import { GOALS, LOOKBACK_DAYS, type Model, MODELS, RULE_BASED_MODELS } from '../../../contracts/src/attribution';
import { CHANNELS } from '../../../contracts/src/channels';
import { type ConversionView, type PersonView, recomputePerson, type StoreRules } from './recompute-person';
import type { Session } from './sessionize';
import {
  addToCart,
  checkoutCompleted,
  DAY,
  makeOrder,
  ms,
  page,
  pageView,
  personFacts,
} from '../../../test/support/fact-builders';
import {
  largestRemainder,
  type RefTouch,
  referenceAttribution,
  referenceShares,
} from '../../../test/support/attribution-reference';

const CENT = 10_000;
const GOOGLE_CPC = page('/', 'utm_source=google&utm_medium=cpc&utm_campaign=brand');
const NEWSLETTER = page('/sale', 'utm_source=newsletter&utm_medium=email&utm_campaign=april');
const FACEBOOK = page('/q', 'fbclid=1');
const T = ms('2026-03-10T12:00:00Z');
/** Unit costs in micro-units (whole cents, as stored). */
const COSTS = new Map([
  ['v1', 20 * 1_000_000],
  ['v2', 3_330_000],
  ['v3', 1_010_000],
]);

/** A conversion's credits under `model` as `[source, weight, value cents, cogs cents]`, in touchpoint order. */
const credits = (c: ConversionView, model: Model): Array<[string, number, number, number]> =>
  c.credits
    .filter((k) => k.model === model)
    .map((k) => [k.source, k.weight, k.valueMicros / CENT, k.cogsMicros / CENT]);

/** A person's sessions as the reference model's touchpoints. */
const touchesOf = (view: PersonView): Array<RefTouch & { session: Session }> =>
  view.sessions.map((session) => ({
    start: session.startedAt,
    clientId: session.clientId,
    // docs/product.md, Sessions and touchpoints: direct is (direct) / (none).
    direct: session.touch.source === '(direct)' && session.touch.medium === '(none)',
    channel: session.touch.channel,
    session,
  }));

/** The reference's credits of one conversion under `model`, in the shape of `credits`. */
function referenceOf(view: PersonView, c: ConversionView, rules: StoreRules, model: Model) {
  const ref = referenceAttribution(
    touchesOf(view),
    { at: c.at, valueCents: c.valueMicros / CENT, cogsCents: c.cogsMicros / CENT },
    { ...rules, dataDrivenWeights: rules.dataDrivenWeights?.[c.goal] },
  );
  return ref.credits[model].map((k, i): [string, number, number, number] => [
    ref.touches[i]?.session.touch.source ?? '(direct)',
    k.weight,
    k.valueCents,
    k.cogsCents,
  ]);
}

describe('the reference model, by hand', () => {
  it('splits by the largest remainder, equal remainders to the earlier share', () => {
    const third = { num: 1n, den: 3n };
    expect(largestRemainder(100n, [third, third, third])).toEqual([34n, 33n, 33n]);
    // 10001 * (2/5, 1/5, 2/5) = 4000.4, 2000.2, 4000.4: one unit left, to the first .4.
    const position = referenceShares('position', [1, 2, 3], 7);
    expect(largestRemainder(10_001n, position)).toEqual([4001n, 2000n, 4000n]);
    // n = 4: 2/5, 1/10, 1/10, 2/5.
    expect(referenceShares('position', [1, 2, 3, 4], 7).map((s) => Number(s.num) / Number(s.den))).toEqual([
      0.4, 0.1, 0.1, 0.4,
    ]);
    expect(() => largestRemainder(1n, [{ num: 1n, den: 2n }])).toThrow(/sum/);
  });

  it('stands in one direct touchpoint at the conversion time when none is in the window', () => {
    const ref = referenceAttribution(
      [{ start: T - 8 * DAY, clientId: 'c1', direct: false }],
      { at: T, valueCents: 999, cogsCents: 0 },
      { lookbackDays: 7, halfLifeDays: 7 },
    );
    expect(ref.touches).toEqual([]);
    for (const model of RULE_BASED_MODELS) expect(ref.credits[model].map((k) => k.weight)).toEqual([1_000_000]);
  });
});

describe('recomputePerson against the reference model', () => {
  // A cart of 100.01 (10_001 cents) with cost of goods 20.00 (2_000 cents) at T, lookback 30 days, H = 7 days.
  // Sessions: c3 at T - 30 d - 1 ms (newsletter: out of the window), c1 at T - 30 d (google cpc: in, the bound is
  // inclusive) = A, c1 at T - 7 d (newsletter) = B, c2 at T - 7 d (facebook fbclid) = C (same start as B: client
  // order), c1 at T - 1 d and the cart's own session at T (both direct: dropped). n = 3: A, B, C.
  //   first: A takes everything. last: C.
  //   linear: 1/3 each: weight 333_333.3 -> [333_334, 333_333, 333_333]; value 3_333.67 each: two units left,
  //     equal remainders -> [3_334, 3_334, 3_333]; cogs 666.67 each -> [667, 667, 666].
  //   position: 2/5, 1/5, 2/5: weight [400_000, 200_000, 400_000]; value 4_000.4, 2_000.2, 4_000.4: one unit left,
  //     tie of .4 -> A: [4_001, 2_000, 4_000]; cogs [800, 400, 800].
  //   time decay, relative to B and C (T - 7 d): A 2^(-23/7) = 0.102542, B and C 1 (quantised over 2^32:
  //     440_414_191 and 4_294_967_296 twice); shares 0.048770, 0.475615, 0.475615:
  //     weight 48_770.45, 475_614.77 twice: two units left -> B, C: [48_770, 475_615, 475_615];
  //     value 487.753, 4_756.623 twice: two left -> A (.753), then B (tie of .623, earlier): [488, 4_757, 4_756];
  //     cogs 97.541, 951.230 twice: one left -> A: [98, 951, 951].
  const rules: StoreRules = { timezone: 'Europe/Paris', lookbackDays: 30, halfLifeDays: 7 };
  const events = [
    pageView('e0', T - 30 * DAY - 1, NEWSLETTER, '', 'c3'),
    pageView('e1', T - 30 * DAY, GOOGLE_CPC, '', 'c1'),
    pageView('e2', T - 7 * DAY, NEWSLETTER, '', 'c1'),
    pageView('e3', T - 7 * DAY, FACEBOOK, '', 'c2'),
    pageView('e4', T - DAY, page('/'), '', 'c1'),
    addToCart('e5', T, 10_001 * CENT, [['v1', 1]], { clientId: 'c1' }),
  ];
  const view = recomputePerson(personFacts(events, [], { costs: COSTS }), rules);
  const cart = view.conversions.find((c) => c.goal === 'add_to_cart')!;
  const expected: Record<Model, Array<[string, number, number, number]>> = {
    first: [['google', 1_000_000, 10_001, 2_000]],
    last: [['facebook', 1_000_000, 10_001, 2_000]],
    linear: [
      ['google', 333_334, 3_334, 667],
      ['newsletter', 333_333, 3_334, 667],
      ['facebook', 333_333, 3_333, 666],
    ],
    position: [
      ['google', 400_000, 4_001, 800],
      ['newsletter', 200_000, 2_000, 400],
      ['facebook', 400_000, 4_000, 800],
    ],
    time_decay: [
      ['google', 48_770, 488, 98],
      ['newsletter', 475_615, 4_757, 951],
      ['facebook', 475_615, 4_756, 951],
    ],
    // No fit for the store: the data-driven model credits nothing.
    data_driven: [],
  };

  it.each(MODELS)('%s: a hand-worked journey', (model) => {
    expect(credits(cart, model)).toEqual(expected[model]);
    const ref = referenceOf(view, cart, rules, model).filter(([, w, v, c]) => w + v + c > 0);
    expect(ref).toEqual(expected[model]);
  });

  it('data_driven: the same journey under a stored fit', () => {
    // Weights 0.6 (google's channel), 0.3 (newsletter's), 0.1 (facebook's), one touchpoint each:
    //   weight [600_000, 300_000, 100_000]; value 6_000.6, 3_000.3, 1_000.1: one unit left, to .6 -> google:
    //   [6_001, 3_000, 1_000]; cogs [1_200, 600, 200] exactly.
    const channelOf = (source: string): string =>
      touchesOf(view).find((t) => t.session.touch.source === source)!.session.touch.channel;
    const [google, newsletter, facebook] = ['google', 'newsletter', 'facebook'].map(channelOf);
    expect(new Set([google, newsletter, facebook]).size).toBe(3);
    const fitted: StoreRules = {
      ...rules,
      dataDrivenWeights: {
        add_to_cart: { [google!]: 600_000_000, [newsletter!]: 300_000_000, [facebook!]: 100_000_000 },
      },
    };
    const cartUnderFit = recomputePerson(personFacts(events, [], { costs: COSTS }), fitted).conversions.find(
      (c) => c.goal === 'add_to_cart',
    )!;
    const want = [
      ['google', 600_000, 6_001, 1_200],
      ['newsletter', 300_000, 3_000, 600],
      ['facebook', 100_000, 1_000, 200],
    ];
    expect(credits(cartUnderFit, 'data_driven')).toEqual(want);
    expect(referenceOf(view, cartUnderFit, fitted, 'data_driven')).toEqual(want);
    // The purchase goal has no fit: none of its credits are data-driven.
    const others = recomputePerson(personFacts(events, [], { costs: COSTS }), fitted).conversions.filter(
      (c) => c.goal !== 'add_to_cart',
    );
    for (const c of others) expect(credits(c, 'data_driven')).toEqual([]);
  });

  it('linear and position over four touchpoints: 1/4 each, and 2/5, 1/10, 1/10, 2/5', () => {
    // A journey of four: the same plus a bing click at T - 2 d on c2. Value 10_001 cents, cogs 2_000.
    //   linear: 2_500.25 each -> one unit left, to the first: [2_501, 2_500, 2_500, 2_500]; cogs 500 each.
    //   position: 4_000.4, 1_000.1, 1_000.1, 4_000.4 -> one unit left, to the first .4: [4_001, 1_000, 1_000, 4_000].
    const four = [...events, pageView('e6', T - 2 * DAY, page('/b', 'msclkid=7'), '', 'c2')];
    const v = recomputePerson(personFacts(four, [], { costs: COSTS }), rules);
    const c = v.conversions.find((x) => x.goal === 'add_to_cart')!;
    expect(credits(c, 'linear')).toEqual([
      ['google', 250_000, 2_501, 500],
      ['newsletter', 250_000, 2_500, 500],
      ['facebook', 250_000, 2_500, 500],
      ['bing', 250_000, 2_500, 500],
    ]);
    expect(credits(c, 'position')).toEqual([
      ['google', 400_000, 4_001, 800],
      ['newsletter', 100_000, 1_000, 200],
      ['facebook', 100_000, 1_000, 200],
      ['bing', 400_000, 4_000, 800],
    ]);
    for (const model of ['linear', 'position'] as const) {
      expect(referenceOf(v, c, rules, model)).toEqual(credits(c, model));
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Random journeys: every conversion's credits under every model equal the reference's.

const URLS = [GOOGLE_CPC, NEWSLETTER, FACEBOOK, page('/'), page('/p'), page('/t', 'ttclid=4')];
const REFERRERS = ['', 'https://www.google.com/', 'https://blog.example.org/post', 'https://shop.example.com/'];

const arbJourney = fc
  .record({
    lookbackDays: fc.constantFrom(...LOOKBACK_DAYS),
    halfLifeDays: fc.oneof(fc.constantFrom(0.1, 7, 365), fc.double({ min: 0.1, max: 365, noNaN: true })),
  })
  .chain(({ lookbackDays, halfLifeDays }) => {
    // Spread over one and a half windows, so that conversions see touchpoints inside and outside theirs.
    const span = Math.ceil(lookbackDays * 1.5 * DAY);
    // Some instants repeat (equal session starts on two clients, a conversion on a touchpoint's start) and some
    // sit exactly one window after another (the inclusive bound).
    const at = fc.oneof(
      fc.integer({ min: 0, max: span }),
      fc.constantFrom(0, DAY, 2 * DAY),
      fc.constantFrom(-1, 0, 1).map((d) => lookbackDays * DAY + d),
      fc.constantFrom(-1, 0, 1).map((d) => lookbackDays * DAY + DAY + d),
    );
    const cents = fc.oneof(fc.integer({ min: 0, max: 50_000 }), fc.integer({ min: 0, max: 100_000_000_000 }));
    const step = fc.record({
      client: fc.constantFrom('c1', 'c2', 'c3', 'c10'),
      at,
      kind: fc.constantFrom('pv', 'pv', 'pv', 'cart', 'done'),
      url: fc.constantFrom(...URLS),
      referrer: fc.constantFrom(...REFERRERS),
      cents,
      variant: fc.constantFrom('v1', 'v2', 'v3', 'v4'),
      qty: fc.integer({ min: 1, max: 1000 }),
    });
    const order = fc.record({ at, cents, landing: fc.constantFrom('', '/?utm_source=tiktok&utm_medium=cpc') });
    return fc.record({
      // Sometimes a data-driven fit for some goals: integer weights over channels, some of them 0 or missing.
      dataDrivenWeights: fc.option(
        fc.dictionary(
          fc.constantFrom(...GOALS),
          fc.dictionary(fc.constantFrom(...CHANNELS), fc.integer({ min: 0, max: 1_000_000_000 })),
        ),
        { nil: undefined },
      ),
      rules: fc.constant({ timezone: 'UTC', lookbackDays, halfLifeDays }),
      steps: fc.array(step, { minLength: 1, maxLength: 40 }),
      orders: fc.array(order, { maxLength: 2 }),
    });
  })
  .map(({ rules: base, dataDrivenWeights, steps, orders }) => {
    const rules: StoreRules = dataDrivenWeights ? { ...base, dataDrivenWeights } : base;
    const events = steps.map((s, i) => {
      const id = `e${String(i).padStart(2, '0')}`;
      const lines: Array<[string, number]> = [[s.variant, s.qty]];
      if (s.kind === 'pv') return pageView(id, T + s.at, s.url, s.referrer, s.client);
      if (s.kind === 'cart')
        return addToCart(id, T + s.at, s.cents * CENT, lines, { clientId: s.client, pageUrl: s.url });
      return checkoutCompleted(id, T + s.at, `o${i}`, { clientId: s.client, valueMicros: s.cents * CENT, lines });
    });
    const pushed = orders.map((o, i) =>
      makeOrder({ orderId: `p${i}`, createdAt: T + o.at, valueMicros: o.cents * CENT, landingSite: o.landing }),
    );
    return { rules, events, orders: pushed };
  });

describe('recomputePerson against the reference model: random journeys', () => {
  it.each(MODELS)('%s: every conversion credited as the reference credits it', (model) => {
    let conversions = 0;
    fc.assert(
      fc.property(arbJourney, ({ rules, events, orders }) => {
        const view = recomputePerson(personFacts(events, orders, { costs: COSTS }), rules);
        for (const c of view.conversions) {
          // Stored amounts are whole cents, the unit the reference splits.
          expect(Number.isInteger(c.valueMicros / CENT) && Number.isInteger(c.cogsMicros / CENT)).toBe(true);
          const ref = referenceAttribution(
            touchesOf(view),
            { at: c.at, valueCents: c.valueMicros / CENT, cogsCents: c.cogsMicros / CENT },
            { ...rules, dataDrivenWeights: rules.dataDrivenWeights?.[c.goal] },
          );
          // Every touchpoint with a share, in order, with its dimensions and its integer credits.
          const want = ref.credits[model].flatMap((k, index) => {
            if (k.share.num === 0n) return [];
            const touch = ref.touches[index]?.session.touch;
            return [
              {
                index,
                source: touch?.source ?? '(direct)',
                medium: touch?.medium ?? '(none)',
                campaign: touch?.campaign ?? '(direct)',
                landingPage: touch?.landingPage ?? '',
                weight: k.weight,
                newWeight: c.isNew ? k.weight : 0,
                valueMicros: k.valueCents * CENT,
                cogsMicros: k.cogsCents * CENT,
              },
            ];
          });
          const got = c.credits
            .filter((k) => k.model === model)
            .map((k) => ({
              index: k.index,
              source: k.source,
              medium: k.medium,
              campaign: k.campaign,
              landingPage: k.landingPage,
              weight: k.weight,
              newWeight: k.newWeight,
              valueMicros: k.valueMicros,
              cogsMicros: k.cogsMicros,
            }));
          expect(got).toEqual(want);
          const starts = ref.touches.length > 0 ? ref.touches.map((t) => t.start) : [c.at];
          expect([c.firstTouch.time, c.lastTouch.time]).toEqual([starts[0], starts[starts.length - 1]]);
          conversions++;
        }
      }),
      { numRuns: 300 },
    );
    // The journeys convert: the comparison above ran on many conversions, not on none.
    expect(conversions).toBeGreaterThan(500);
  });
});
