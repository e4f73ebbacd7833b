import {
  type EventFact,
  handoffKey,
  identityKeysOfEvent,
  identityKeysOfOrder,
  type OrderFact,
  orderClientId,
} from './facts';

/**
 * Persons as connected components of identity links (docs/product.md, Identity). The root of a component is its smallest
 * member, so merging incrementally and recomputing from all the links give the same person ids.
 */
export class PersonUnion {
  private readonly parent = new Map<string, string>();

  /** The component root of `x` (registering `x` as its own component when new). */
  find(x: string): string {
    let root = x;
    while (this.parent.has(root) && this.parent.get(root) !== root) root = this.parent.get(root)!;
    if (!this.parent.has(root)) this.parent.set(root, root);
    for (let cur = x; cur !== root;) {
      const next = this.parent.get(cur)!;
      this.parent.set(cur, root);
      cur = next;
    }
    return root;
  }

  /** Joins the components of `a` and `b`; the smaller root stays the root. */
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    if (ra < rb) this.parent.set(rb, ra);
    else this.parent.set(ra, rb);
  }
}

/**
 * Persons from identity links (`[client id, key]`): clients that share a key are one person, whatever the order of
 * the links. Clients without a link are their own person when looked up.
 */
export function personsOfLinks(links: Iterable<readonly [string, string]>): PersonUnion {
  const persons = new PersonUnion();
  const firstOfKey = new Map<string, string>();
  for (const [clientId, key] of links) {
    const first = firstOfKey.get(key);
    if (first === undefined) firstOfKey.set(key, clientId);
    else persons.union(first, clientId);
  }
  return persons;
}

/**
 * What a store's events and orders say about identity, gathered in the order they come: each client's first
 * sighting (the earliest time; `Infinity` for a browser client only an order names) and each identity link
 * (`[client id, key]`, once). The daemon's batches and a rebuild's load both gather it this way.
 */
export class ClientIdentity {
  readonly firstSeen = new Map<string, number>();
  private readonly pairs = new Map<string, [string, string]>();

  /** An event sights its client at its time and links it to the event's keys. */
  addEvent(fact: EventFact): void {
    this.sight(fact.clientId, fact.at);
    for (const k of identityKeysOfEvent(fact)) this.link(fact.clientId, k);
  }

  /** An order sights its pseudo-client at its creation and links it to the order's keys. */
  addOrder(fact: OrderFact): void {
    const client = orderClientId(fact.orderId);
    this.sight(client, fact.createdAt);
    for (const k of identityKeysOfOrder(fact)) this.link(client, k);
  }

  /** An order that names the browser client of its cart links both to the hand-off key. */
  addHandoff(orderId: string, browserClientId: string): void {
    const key = handoffKey(browserClientId);
    this.link(orderClientId(orderId), key);
    this.link(browserClientId, key);
    this.sight(browserClientId, Infinity);
  }

  /** Every link, each once, in the order first met. */
  links(): Array<[string, string]> {
    return [...this.pairs.values()];
  }

  private sight(clientId: string, at: number): void {
    const held = this.firstSeen.get(clientId);
    if (held === undefined || at < held) this.firstSeen.set(clientId, at);
  }

  private link(clientId: string, key: string): void {
    this.pairs.set(`${clientId}\u0000${key}`, [clientId, key]);
  }
}
