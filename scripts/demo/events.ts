/**
 * A session's events, built from its steps when the stream reaches it: the envelope (id, clientId, seq, time,
 * page context) and each kind's data. Events of one page share their context object, and catalogue objects are
 * shared and frozen: the events are read-only.
 */
import type { Cart, CartLine, Context, EventEnvelopeBase, Location, StorefrontEvent } from '../../contracts/src/events';
import type { Catalogue, CatVariant } from './catalog';
import { CheckoutBuilder } from './checkout';
import type { PlannerContext } from './context';
import type { Device } from './devices';
import { flat, usd } from './format';
import { buildSteps, type Page, Stage, type Step } from './funnel';
import { Rng, SALT, uniqueUuid } from './random';
import type { Session } from './sessions';
import { iso } from './time';

/** The events of one session, in order (cut to `eventCount`). */
export function expandSession(
  ctx: Pick<PlannerContext, 'cat' | 'keys' | 'idMask'>,
  s: Session,
): { events: StorefrontEvent[]; times: number[] } {
  const steps = buildSteps(ctx, s);
  if (steps.length !== s.steps)
    throw new Error(`demo: session ${s.idx} rebuilt ${steps.length} steps, planned ${s.steps}`);
  const n = s.eventCount;
  const idRng = new Rng(ctx.keys[0], ctx.keys[1], SALT.mask, s.idx);
  const { device } = s;
  const cat = ctx.cat;
  const checkout = s.cart && s.stage >= Stage.CheckoutStarted ? new CheckoutBuilder(s, s.cart) : null;
  const events: StorefrontEvent[] = [];
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const step = steps[i]!;
    const base: EventEnvelopeBase = {
      id: `sh-${uniqueUuid(idRng, ctx.idMask, s.idx * 256 + i)}`,
      clientId: device.clientId,
      clientIp: device.ip,
      seq: s.seqStart + i,
      type: 'standard',
      timestamp: iso(step.at),
      context: contextOf(cat, device, step.page, s.touch.referrer),
    };
    events.push(eventOf(base, step, s, checkout));
    times.push(step.at);
  }
  return { events, times };
}

/** The event of one step. */
function eventOf(base: EventEnvelopeBase, step: Step, s: Session, checkout: CheckoutBuilder | null): StorefrontEvent {
  const person = s.person;
  switch (step.name) {
    case 'page_viewed':
      return { ...base, name: step.name, data: {} };
    case 'product_viewed':
      return { ...base, name: step.name, data: { productVariant: step.variant!.pixel } };
    case 'collection_viewed':
      return { ...base, name: step.name, data: { collection: step.collection!.pixel } };
    case 'search_submitted':
      return { ...base, name: step.name, data: { searchResult: step.search!.pixel } };
    case 'product_added_to_cart':
      return { ...base, name: step.name, data: { cartLine: cartLineOf(step.variant!, step.qty!) } };
    case 'product_removed_from_cart':
      return { ...base, name: step.name, data: { cartLine: cartLineOf(step.variant!, step.qty!) } };
    case 'cart_viewed': {
      const lines = step.lines!.map((l) => cartLineOf(l.variant, l.qty));
      const cart: Cart = {
        attributes: [],
        cost: { totalAmount: usd(step.lines!.reduce((a, l) => a + l.variant.priceCents * l.qty, 0)) },
        id: s.cart!.cartId,
        lines,
        totalQuantity: step.lines!.reduce((a, l) => a + l.qty, 0),
      };
      return { ...base, name: step.name, data: { cart } };
    }
    case 'lead_form_submitted':
      return {
        ...base,
        name: step.name,
        data: {
          lead: {
            email: s.checkoutEmail,
            phone: step.formId === 'contact-form' ? person.phone : null,
            firstName: step.formId === 'newsletter-popup' ? null : person.first,
            lastName: step.formId === 'contact-form' ? person.last : null,
            formId: step.formId ?? null,
          },
        },
      };
    case 'checkout_started':
    case 'checkout_contact_info_submitted':
    case 'checkout_address_info_submitted':
    case 'checkout_shipping_info_submitted':
    case 'payment_info_submitted':
      return { ...base, name: step.name, data: { checkout: checkout!.checkout(step.name) } };
    case 'checkout_completed':
      return { ...base, name: step.name, data: { checkout: checkout!.completed() } };
  }
}

/** Absolute URL of a page (built once, kept on the page). */
function hrefOf(cat: Catalogue, page: Page): string {
  return (page.href ??= flat(cat.origin, page.path, page.query));
}

/** The pixel context of a page: shared by the events of the page. */
function contextOf(cat: Catalogue, device: Device, page: Page, external: string): Context {
  if (page.ctx) return page.ctx;
  const location: Location = {
    hash: '',
    host: cat.host,
    hostname: cat.host,
    href: hrefOf(cat, page),
    origin: cat.origin,
    pathname: page.path,
    port: '',
    protocol: 'https:',
    search: page.query,
  };
  page.ctx = {
    document: {
      characterSet: 'UTF-8',
      location,
      referrer: page.prev ? hrefOf(cat, page.prev) : external,
      title: page.title,
    },
    navigator: device.navigator,
    window: {
      innerHeight: device.inner[1],
      innerWidth: device.inner[0],
      outerHeight: device.screen.height,
      outerWidth: device.screen.width,
      pageXOffset: 0,
      pageYOffset: 0,
      scrollX: 0,
      scrollY: 0,
      screenX: 0,
      screenY: 0,
      screen: device.screen,
      location,
      origin: cat.origin,
    },
  };
  return page.ctx;
}

function cartLineOf(variant: CatVariant, qty: number): CartLine {
  return { cost: { totalAmount: usd(variant.priceCents * qty) }, merchandise: variant.pixel, quantity: qty };
}
