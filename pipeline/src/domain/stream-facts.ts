/**
 * The stored facts of a store's stream, derived in memory in stream order: what a rebuild loads (docs/decisions.md,
 * Operations, "A rebuild loads the stream in memory"). Pure. The rules are the live path's, so that a rebuild
 * stores what the daemon stored:
 * - an event is stored once, its first message winning (`raw_events` and `event_facts` are keyed by its id);
 * - a push (order, product, customer, ad spend row) replaces the version held only when it supersedes it
 *   (`supersedesVersion`: a later `updated_at`, or the same one from a later message), the daemon's rule within
 *   and across batches;
 * - every accepted version of a product sets the unit costs of its variants, and every accepted version of an
 *   order links its client to the order's identity keys and to the hand-off key of the browser client it names,
 *   as each changed push does in a batch;
 * - a client's first sighting is the earliest of its events and orders; a browser client named only by an order
 *   has none yet (`Infinity`);
 * - persons are the components of the identity links, each named by its smallest client id (`personsOfLinks`);
 * - a link click is stored once per click id, the first winning;
 * - a product's name and image are those of its latest sighting in an event (the later message on a tie).
 */
import { browserClientOfOrder } from '../../../contracts/src/identity';
import type { AdSpendRow, ShopCustomer, ShopOrder, ShopProduct } from '../../../contracts/src/pushes';
import type { DecodedFact, LinkClick } from './decode-message';
import {
  adSpendKey,
  type AdSpendFact,
  type EventFact,
  type OrderFact,
  type ProductSighting,
  productInfoOfEvent,
  supersedes,
  toAdSpendFact,
  toEventFact,
  toOrderFact,
  toVariantCosts,
  type VariantCost,
} from './facts';
import { ClientIdentity, personsOfLinks } from './identity';
import type { RateOf } from './money';
import { type PushVersion, pushVersionOf, supersedesVersion } from './push-versions';

/** The version of a push held for its key, with the stream sequence of its message. */
export interface HeldVersion<T> extends PushVersion {
  value: T;
}

export interface StreamClient {
  clientId: string;
  personId: string;
  /** Epoch ms of the earliest event or order; Infinity for a browser client only an order names. */
  firstSeen: number;
}

export interface StreamAdSpend {
  row: AdSpendRow;
  fact: AdSpendFact;
}

/** Everything a load holds once the stream is read, as plain data (it crosses from a worker thread). */
export interface StreamFactsSnapshot {
  stored: number;
  duplicates: number;
  missingRates: string[];
  clients: StreamClient[];
  identityLinks: Array<[string, string]>;
  orders: Array<HeldVersion<{ order: ShopOrder; fact: OrderFact }>>;
  products: Array<HeldVersion<ShopProduct>>;
  customers: Array<HeldVersion<ShopCustomer>>;
  adSpend: Array<HeldVersion<StreamAdSpend>>;
  variantCosts: VariantCost[];
  linkClicks: LinkClick[];
  productInfo: ProductSighting[];
}

/** Keeps, per key, the greatest version (`supersedesVersion`). */
class LatestVersions<T> {
  readonly byKey = new Map<string, HeldVersion<T>>();

  /** Whether `value` replaced what was held (or was the first for its key). */
  offer(key: string, value: T, updatedAt: string, seq: number): boolean {
    const version = pushVersionOf(updatedAt, seq);
    const held = this.byKey.get(key);
    if (held && !supersedesVersion(version, held)) return false;
    this.byKey.set(key, { value, ...version });
    return true;
  }

  values(): Array<HeldVersion<T>> {
    return [...this.byKey.values()];
  }
}

export class StreamFacts {
  /** Events stored (first of their id) and events left out as duplicates. */
  stored = 0;
  duplicates = 0;
  /** Currencies without a rate (1:1 assumed), as the batch path reports them. */
  readonly missingRates = new Set<string>();

  private readonly eventIds = new Set<string>();
  private readonly identity = new ClientIdentity();
  private readonly orderVersions = new LatestVersions<{ order: ShopOrder; fact: OrderFact }>();
  private readonly productVersions = new LatestVersions<ShopProduct>();
  private readonly customerVersions = new LatestVersions<ShopCustomer>();
  private readonly adSpendVersions = new LatestVersions<StreamAdSpend>();
  private readonly costs = new Map<string, VariantCost>();
  private readonly clicks = new Map<string, LinkClick>();
  private readonly sightings = new Map<string, ProductSighting>();

  constructor(
    private readonly currency: string,
    private readonly rateOf: RateOf,
  ) {}

  /** Takes one decoded message, in stream order; returns the event's fact when it is the first of its id. */
  add(d: DecodedFact, seq: number): EventFact | null {
    switch (d.kind) {
      case 'event':
        return this.addEvent(d.event);
      case 'order': {
        const derived = toOrderFact(d.order, this.currency, this.rateOf);
        if (this.orderVersions.offer(d.order.id, { order: d.order, fact: derived.fact }, d.order.updated_at, seq)) {
          this.noteMissing(derived.missingRates);
          this.linkOrder(d.order, derived.fact);
        }
        return null;
      }
      case 'product':
        if (this.productVersions.offer(d.product.id, d.product, d.product.updated_at, seq)) {
          for (const c of toVariantCosts(d.product)) this.costs.set(c.variantId, c);
        }
        return null;
      case 'customer':
        this.customerVersions.offer(d.customer.id, d.customer, d.customer.updated_at, seq);
        return null;
      case 'ad_spend': {
        for (const row of d.rows) {
          const derived = toAdSpendFact(row, this.currency, this.rateOf);
          const updatedAt = row.updated_at ?? '1970-01-01T00:00:00Z';
          if (this.adSpendVersions.offer(adSpendKey(derived.fact), { row, fact: derived.fact }, updatedAt, seq))
            this.noteMissing(derived.missingRates);
        }
        return null;
      }
      case 'link_click':
        if (!this.clicks.has(d.click.clickId)) this.clicks.set(d.click.clickId, d.click);
        return null;
    }
  }

  private addEvent(event: Extract<DecodedFact, { kind: 'event' }>['event']): EventFact | null {
    if (this.eventIds.has(event.id)) {
      this.duplicates++;
      return null;
    }
    this.eventIds.add(event.id);
    this.stored++;
    const derived = toEventFact(event, this.currency, this.rateOf);
    this.noteMissing(derived.missingRates);
    const fact = derived.fact;
    this.identity.addEvent(fact);
    for (const info of productInfoOfEvent(event)) {
      const seen = { ...info, at: fact.at };
      const held = this.sightings.get(info.productId);
      if (!held || supersedes(seen, held)) this.sightings.set(info.productId, seen);
    }
    return fact;
  }

  private linkOrder(order: ShopOrder, fact: OrderFact): void {
    this.identity.addOrder(fact);
    const browser = browserClientOfOrder(order);
    if (browser) this.identity.addHandoff(fact.orderId, browser);
  }

  private noteMissing(currencies: readonly string[]): void {
    for (const c of currencies) this.missingRates.add(c);
  }

  /** Every client with its person and first sighting. */
  clients(): StreamClient[] {
    const persons = personsOfLinks(this.identity.links());
    return [...this.identity.firstSeen].map(([clientId, firstSeen]) => ({
      clientId,
      personId: persons.find(clientId),
      firstSeen,
    }));
  }

  /** Every identity link: [client id, key]. */
  identityLinks(): Array<[string, string]> {
    return this.identity.links();
  }

  orders(): Array<HeldVersion<{ order: ShopOrder; fact: OrderFact }>> {
    return this.orderVersions.values();
  }

  products(): Array<HeldVersion<ShopProduct>> {
    return this.productVersions.values();
  }

  customers(): Array<HeldVersion<ShopCustomer>> {
    return this.customerVersions.values();
  }

  adSpend(): Array<HeldVersion<StreamAdSpend>> {
    return this.adSpendVersions.values();
  }

  variantCosts(): VariantCost[] {
    return [...this.costs.values()];
  }

  linkClicks(): LinkClick[] {
    return [...this.clicks.values()];
  }

  /** Each product's latest sighting: its name and image, and the event time they were seen at. */
  productInfo(): ProductSighting[] {
    return [...this.sightings.values()];
  }

  snapshot(): StreamFactsSnapshot {
    return {
      stored: this.stored,
      duplicates: this.duplicates,
      missingRates: [...this.missingRates],
      clients: this.clients(),
      identityLinks: this.identityLinks(),
      orders: this.orders(),
      products: this.products(),
      customers: this.customers(),
      adSpend: this.adSpend(),
      variantCosts: this.variantCosts(),
      linkClicks: this.linkClicks(),
      productInfo: this.productInfo(),
    };
  }
}
