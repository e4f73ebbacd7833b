/**
 * Queues identity-event webhook deliveries (docs/product.md, Identity events and destinations) in the flow that processes the events: for each
 * new event that maps to one of the six identity events, whose person has an email, one delivery per
 * enabled destination subscribed to it, published to the WEBHOOKS stream with the stable webhook-id as
 * Nats-Msg-Id. It runs inside the batch transaction and before its commit, so a batch that is retried or
 * redelivered publishes the same ids again (dropped by the stream's duplicate window), and a committed
 * batch has always queued its deliveries.
 */
import type { Checkout, EventDataMap, StorefrontEvent } from '../../../contracts/src/events';
import type { ShopProduct } from '../../../contracts/src/pushes';
import { webhookSubject, type WebhookDelivery } from '../../../contracts/src/webhook-delivery';
import type { IdentityEventName } from '../../../contracts/src/identity-events';
import type { Query } from '../../../storage/db';
import { keyProbeSql } from '../../../storage/key-probe';
import { buildIdentityPayload, identityEventFor, webhookId, type IdentityEventPerson } from '../domain/identity-events';
import type { EventFact } from '../domain/facts';
import type { PersonFacts, PersonView } from '../domain/recompute-person';
import { parseLandingUrl } from '../domain/url-params';

/** A new event with what the batch knows of its session and person. */
export interface IdentityEventCandidate {
  event: StorefrontEvent;
  personId: string;
  isSessionLanding: boolean;
  landingSite: string;
  referringSite: string;
}

/** The last of `sessions` (in start order) that started at or before `at`, by binary search. */
function latestStartedBy(sessions: PersonView['sessions'], at: number): PersonView['sessions'][number] | undefined {
  let lo = 0;
  let hi = sessions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sessions[mid]!.startedAt <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? sessions[lo - 1] : undefined;
}

/** The session context of each new event, from the recomputed views, for the webhook payloads. */
export function identityEventCandidates(
  raw: readonly StorefrontEvent[],
  facts: readonly PersonFacts[],
  views: readonly PersonView[],
): IdentityEventCandidate[] {
  const personOf = new Map<string, string>();
  const factById = new Map<string, EventFact>();
  for (const f of facts) {
    for (const c of f.clientIds) personOf.set(c, f.personId);
    for (const e of f.events) factById.set(e.eventId, e);
  }
  // Each client's sessions in start order (sessionize's); a person of long history has hundreds.
  const sessionsOf = new Map<string, PersonView['sessions']>();
  for (const v of views)
    for (const s of v.sessions) {
      const list = sessionsOf.get(s.clientId);
      if (list) list.push(s);
      else sessionsOf.set(s.clientId, [s]);
    }
  return raw.flatMap((event) => {
    const personId = personOf.get(event.clientId);
    if (!personId) return [];
    const at = Date.parse(event.timestamp);
    const session = latestStartedBy(sessionsOf.get(event.clientId) ?? [], at);
    const landing = session ? factById.get(session.landingEventId) : undefined;
    return [
      {
        event,
        personId,
        isSessionLanding: session?.landingEventId === event.id,
        landingSite: landing?.pageUrl ?? '',
        referringSite: landing?.referrer ?? '',
      },
    ];
  });
}

export type PublishDelivery = (subject: string, delivery: WebhookDelivery) => Promise<void>;

interface Destination {
  destination_id: string;
  events: string[];
}

const EMPTY_PERSON: IdentityEventPerson = {
  email: '',
  phone: '',
  firstName: '',
  lastName: '',
  location: { address1: '', address2: '', city: '', country: '', region: '', zip: '' },
};

/** What the store knows of each person: an email from identity, names and address from the latest checkout. */
async function loadProfiles(q: Query, storeId: string, personIds: string[]): Promise<Map<string, IdentityEventPerson>> {
  // From the facts, which keep the data of checkout and lead events: the raw payloads may be kept elsewhere, later,
  // or not at all (docs/decisions.md, Storage, "Raw payloads off the hot path").
  const rows = await q<{
    person_id: string;
    email: string | null;
    checkout: { checkout?: Checkout } | null;
    lead: EventDataMap['lead_form_submitted'] | null;
  }>(
    'webhooks.profiles',
    `select p.person_id,
       (select min(substr(l.key, 3)) from identity_links l join clients c on c.store_id = l.store_id and c.client_id = l.client_id
         where l.store_id = $1 and c.person_id = p.person_id and l.key like 'e:%') as email,
       (select f.data from event_facts f join clients c on c.store_id = f.store_id and c.client_id = f.client_id
         where f.store_id = $1 and c.person_id = p.person_id and f.name like 'checkout%'
         order by f.occurred_at desc limit 1) as checkout,
       (select f.data from event_facts f join clients c on c.store_id = f.store_id and c.client_id = f.client_id
         where f.store_id = $1 and c.person_id = p.person_id and f.name = 'lead_form_submitted'
         order by f.occurred_at desc limit 1) as lead
     from unnest($2::text[]) as p(person_id)`,
    [storeId, personIds],
  );
  const out = new Map<string, IdentityEventPerson>();
  for (const r of rows) {
    const checkout = r.checkout?.checkout ?? null;
    const lead = r.lead?.lead ?? null;
    const address = checkout?.shippingAddress ?? checkout?.billingAddress ?? null;
    out.set(r.person_id, {
      email: r.email ?? '',
      phone: checkout?.phone ?? address?.phone ?? lead?.phone ?? '',
      firstName: address?.firstName ?? lead?.firstName ?? '',
      lastName: address?.lastName ?? lead?.lastName ?? '',
      location: {
        address1: address?.address1 ?? '',
        address2: address?.address2 ?? '',
        city: address?.city ?? '',
        country: address?.country ?? '',
        region: address?.province ?? '',
        zip: address?.zip ?? '',
      },
    });
  }
  return out;
}

function productIdsOf(e: StorefrontEvent): string[] {
  switch (e.name) {
    case 'checkout_started':
      return e.data.checkout.lineItems.map((li) => li.variant.product.id);
    case 'product_viewed':
      return [e.data.productVariant.product.id];
    case 'product_added_to_cart':
      return [e.data.cartLine.merchandise.product.id];
    // Identity events name the products only of these three (docs/product.md, Identity events and destinations).
    case 'page_viewed':
    case 'collection_viewed':
    case 'search_submitted':
    case 'cart_viewed':
    case 'product_removed_from_cart':
    case 'checkout_contact_info_submitted':
    case 'checkout_address_info_submitted':
    case 'checkout_shipping_info_submitted':
    case 'payment_info_submitted':
    case 'checkout_completed':
    case 'lead_form_submitted':
    case 'custom_event':
    case 'user_identified':
    case 'order_refunded':
      return [];
  }
}

export function createIdentityEventEnqueuer(publish: PublishDelivery, now: () => number = Date.now) {
  return async function enqueue(
    q: Query,
    storeId: string,
    currency: string,
    candidates: IdentityEventCandidate[],
  ): Promise<number> {
    if (candidates.length === 0) return 0;
    const destinations = await q<Destination>(
      'webhooks.destinations',
      'select destination_id, events from webhook_destinations where store_id = $1 and enabled',
      [storeId],
    );
    if (destinations.length === 0) return 0;
    const wanted = candidates
      .map((c) => ({ c, name: identityEventFor(c.event, c.isSessionLanding) }))
      .filter((x): x is { c: IdentityEventCandidate; name: IdentityEventName } => x.name !== null)
      .map((x) => ({ c: x.c, name: x.name, to: destinations.filter((d) => d.events.includes(x.name)) }))
      .filter((x) => x.to.length > 0);
    if (wanted.length === 0) return 0;

    const profiles = await loadProfiles(q, storeId, [...new Set(wanted.map((w) => w.c.personId))]);
    const productIds = [...new Set(wanted.flatMap((w) => productIdsOf(w.c.event)))];
    const products = productIds.length
      ? await q<{ product_id: string; payload: ShopProduct }>(
          'webhooks.products',
          keyProbeSql({ select: 'product_id, payload', from: 'shop_products', key: 'product_id' }),
          [storeId, productIds],
        )
      : [];
    const productById = new Map(products.map((p) => [p.product_id, p.payload]));

    let queued = 0;
    for (const { c, name, to } of wanted) {
      const page = parseLandingUrl(c.event.context.document.location.href);
      const payload = buildIdentityPayload(name, c.event, {
        storeCurrency: currency,
        profile: profiles.get(c.personId) ?? EMPTY_PERSON,
        landingSite: c.landingSite,
        referringSite: c.referringSite,
        shopUrl: page ? `https://${page.host}` : '',
        productOf: (id) => productById.get(id),
        collectionsOf: () => [],
      });
      // Events of persons without an email send nothing (docs/product.md, Identity events and destinations).
      if (!payload.attributes.profile.data.attributes.email) continue;
      const body = JSON.stringify(payload);
      for (const d of to) {
        const id = webhookId(storeId, d.destination_id, c.event.id, name);
        await publish(webhookSubject(storeId, d.destination_id), {
          webhookId: id,
          storeId,
          destinationId: d.destination_id,
          name,
          eventId: c.event.id,
          body,
          enqueuedAt: now(),
        });
        queued++;
      }
    }
    return queued;
  };
}

export type IdentityEventEnqueuer = ReturnType<typeof createIdentityEventEnqueuer>;
