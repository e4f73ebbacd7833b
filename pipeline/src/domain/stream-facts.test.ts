import fc from 'fast-check';
import type { StorefrontEvent } from '../../../contracts/src/events';
import type { ShopOrder, ShopProduct } from '../../../contracts/src/pushes';
import { CART_ATTRIBUTE } from '../../../contracts/src/tracker';
import { generateDemoStream } from '../../../scripts/demo/generate';
import type { DecodedFact } from './decode-message';
import { PersonUnion } from './identity';
import { StreamFacts } from './stream-facts';

const STORE = 's1';
const rateOf = (c: string): number | undefined => (c === 'EUR' ? 1 : undefined);

/** A small demo store's stream: products, events with their order versions in time order, ad spend. */
const demo = generateDemoStream({ events: 3000, seed: 11, start: new Date('2026-03-01T00:00:00Z'), days: 10 });
const messages: DecodedFact[] = [
  ...demo.products.map((product): DecodedFact => ({ kind: 'product', storeId: STORE, product })),
  ...demo.events.map((event): DecodedFact => ({ kind: 'event', storeId: STORE, event, warnings: [] })),
  ...demo.orders.map((order): DecodedFact => ({ kind: 'order', storeId: STORE, order })),
  ...demo.adSpend.map((row): DecodedFact => ({ kind: 'ad_spend', storeId: STORE, rows: [row] })),
];

function load(sequence: ReadonlyArray<{ d: DecodedFact; seq: number }>): StreamFacts {
  const facts = new StreamFacts('EUR', rateOf);
  for (const { d, seq } of sequence) facts.add(d, seq);
  return facts;
}

/** What a load holds, as sorted lists that do not depend on the order things were added in. */
function snapshot(f: StreamFacts) {
  const sorted = <T>(rows: T[]): string[] => rows.map((r) => JSON.stringify(r)).sort();
  return {
    stored: f.stored,
    clients: sorted(f.clients()),
    links: sorted(f.identityLinks()),
    orders: sorted(f.orders().map((o) => o.value.fact)),
    products: sorted(f.products().map((p) => p.value)),
    adSpend: sorted(f.adSpend().map((a) => a.value.fact)),
    costs: sorted(f.variantCosts()),
  };
}

const inStreamOrder = messages.map((d, i) => ({ d, seq: i + 1 }));

describe('StreamFacts', () => {
  it('holds the demo stream: every event once, every order and product at its latest version', () => {
    const f = load(inStreamOrder);
    expect(f.stored).toBe(demo.events.length);
    expect(f.duplicates).toBe(0);
    expect(f.orders().length).toBe(new Set(demo.orders.map((o) => o.id)).size);
    expect(f.orders().length).toBeLessThan(demo.orders.length); // refunds and cancellations are later versions
    const latest = new Map<string, string>();
    for (const o of demo.orders) latest.set(o.id, o.updated_at); // push order is time order
    for (const o of f.orders()) expect(o.value.order.updated_at).toBe(latest.get(o.value.order.id));
    expect(f.products().length).toBe(demo.products.length);
    expect(f.variantCosts().length).toBeGreaterThan(0);
  });

  it('gives the same facts, persons and first sightings whatever the order and however often messages come', () => {
    // The demo's versions of one order carry different times, so "the latest wins" does not depend on order.
    const reference = snapshot(load(inStreamOrder));
    fc.assert(
      fc.property(
        fc.shuffledSubarray(inStreamOrder, { minLength: inStreamOrder.length }),
        fc.array(fc.nat(inStreamOrder.length - 1), { maxLength: 40 }),
        (shuffled, repeats) => {
          const again = [...shuffled, ...repeats.map((i) => shuffled[i]!)];
          const f = load(again);
          expect(snapshot(f)).toEqual(reference);
          const eventRepeats = repeats.filter((i) => shuffled[i]!.d.kind === 'event').length;
          expect(f.duplicates).toBe(eventRepeats);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('names each person after its smallest client, the components of the identity links', () => {
    const f = load(inStreamOrder);
    // An independent union: clients joined wherever two share a key.
    const union = new PersonUnion();
    const byKey = new Map<string, string[]>();
    for (const [client, key] of f.identityLinks()) byKey.set(key, [...(byKey.get(key) ?? []), client]);
    for (const members of byKey.values()) for (const m of members.slice(1)) union.union(members[0]!, m);
    const clients = f.clients();
    for (const c of clients) expect(c.personId).toBe(union.find(c.clientId));
    const members = new Map<string, string[]>();
    for (const c of clients) members.set(c.personId, [...(members.get(c.personId) ?? []), c.clientId]);
    for (const [person, ids] of members) expect(person).toBe([...ids].sort()[0]);
    // The demo's persons shop on several devices and as orders: some persons have several clients.
    expect([...members.values()].some((ids) => ids.length > 2)).toBe(true);
  });

  const event = (id: string, clientId: string, timestamp: string, path = '/'): DecodedFact => ({
    kind: 'event',
    storeId: STORE,
    warnings: [],
    event: {
      id,
      clientId,
      name: 'page_viewed',
      timestamp,
      context: { document: { location: { href: `https://shop.example.com${path}` }, referrer: '' } },
      data: {},
    } as unknown as StorefrontEvent,
  });
  const order = (fields: Partial<ShopOrder> & Pick<ShopOrder, 'id' | 'updated_at'>): DecodedFact => ({
    kind: 'order',
    storeId: STORE,
    order: { created_at: '2026-03-02T10:00:00Z', currency: 'EUR', total_price: '50.00', line_items: [], ...fields },
  });
  const product = (updatedAt: string, costs: Record<string, string>): DecodedFact => ({
    kind: 'product',
    storeId: STORE,
    product: {
      id: 'p1',
      title: 'Mug',
      updated_at: updatedAt,
      variants: Object.entries(costs).map(([id, cost]) => ({ id, price: '20.00', cost })),
    } as unknown as ShopProduct,
  });

  it('keeps the first message of an event id, and the later message of two versions with an equal time', () => {
    const f = load(
      [
        event('e1', 'c1', '2026-03-02T09:00:00Z', '/first'),
        event('e1', 'c1', '2026-03-02T09:30:00Z', '/second'),
        order({ id: 'o1', updated_at: '2026-03-02T10:00:00Z', total_price: '50.00' }),
        order({ id: 'o1', updated_at: '2026-03-02T10:00:00Z', total_price: '70.00' }),
        order({ id: 'o1', updated_at: '2026-03-02T09:00:00Z', total_price: '10.00' }),
      ].map((d, i) => ({ d, seq: i + 1 })),
    );
    expect(f.stored).toBe(1);
    expect(f.duplicates).toBe(1);
    expect(f.orders()).toEqual([expect.objectContaining({ seq: 4 })]);
    expect(f.orders()[0]!.value.order.total_price).toBe('70.00');
  });

  it('sets unit costs from every product version it accepts, in stream order', () => {
    const f = load(
      [
        product('2026-03-01T00:00:00Z', { v1: '5.00', v2: '6.00' }),
        product('2026-03-03T00:00:00Z', { v1: '7.00' }),
        product('2026-03-02T00:00:00Z', { v1: '1.00', v3: '1.00' }), // older than the version held: ignored
      ].map((d, i) => ({ d, seq: i + 1 })),
    );
    const costs = Object.fromEntries(f.variantCosts().map((c) => [c.variantId, c.costMicros]));
    // v2 keeps the cost of the version that last named it, as the daemon's upsert of each changed product does.
    expect(costs).toEqual({ v1: 7_000_000, v2: 6_000_000 });
  });

  it("links an order's client to its keys and to the browser client it names, whose first sighting waits", () => {
    const f = load(
      [
        event('e1', 'browser-1', '2026-03-02T09:00:00Z'),
        order({
          id: 'o1',
          updated_at: '2026-03-02T10:00:00Z',
          email: 'Ann@Example.com',
          note_attributes: [{ name: CART_ATTRIBUTE, value: 'browser-2' }],
        }),
        order({ id: 'o2', updated_at: '2026-03-02T11:00:00Z', email: 'ann@example.com' }),
      ].map((d, i) => ({ d, seq: i + 1 })),
    );
    const clients = Object.fromEntries(f.clients().map((c) => [c.clientId, c]));
    expect(clients['browser-2']).toEqual({ clientId: 'browser-2', personId: 'browser-2', firstSeen: Infinity });
    expect(clients['order:o1']!.personId).toBe('browser-2');
    expect(clients['order:o2']!.personId).toBe('browser-2'); // the same email, normalized
    expect(clients['order:o1']!.firstSeen).toBe(Date.parse('2026-03-02T10:00:00Z'));
    expect(clients['browser-1']).toEqual({
      clientId: 'browser-1',
      personId: 'browser-1',
      firstSeen: Date.parse('2026-03-02T09:00:00Z'),
    });
  });
});
