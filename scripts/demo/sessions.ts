/**
 * One session (visit) of a person on a device, as planned: its source and landing page, how deep it goes into the
 * funnel, its cart and order, and its steps (whose count and times are known at plan time; the events themselves
 * are built later, in `events.ts`).
 */
import { type CartPlan, planCart } from './cart';
import { type CatCollection, type CatProduct, pickProduct } from './catalog';
import { chooseTouch, type Touch } from './channels';
import type { PlannerContext } from './context';
import type { Device } from './devices';
import { buildSteps, drawStage, Stage } from './funnel';
import { type OrderPlan, planOrder } from './orders';
import { emailVariant, type Person } from './persons';
import type { Rng } from './random';
import { DAY } from './time';

export interface Session {
  /** Session number of the seed (planning order). */
  idx: number;
  /** Seeds the session's own PRNG (its steps and event ids). */
  seed: number;
  person: Person;
  device: Device;
  start: number;
  touch: Touch;
  /** Landing page: product or collection picked at plan time. */
  landingProduct: CatProduct | null;
  landingCollection: CatCollection | null;
  stage: Stage;
  cart: CartPlan | null;
  lead: boolean;
  /** Checkout email known at checkout_started (returning customer). */
  knownEmail: boolean;
  checkoutEmail: string;
  acceptsMarketing: boolean;
  order: OrderPlan | null;
  /** Steps built (events, when the device is not blocked). */
  steps: number;
  /** Events emitted: `steps`, 0 on a blocked device, fewer for the session cut by the exact count. */
  eventCount: number;
  /** `seq` of the session's first event on its device. */
  seqStart: number;
  /** Time of its last step. */
  end: number;
}

/**
 * Session `i` (0: the person's first) of `person` on `device`, starting at `t`: its touch, landing page, funnel
 * depth, cart, lead and checkout details, its order when it buys, and its steps.
 */
export function planSession(
  ctx: PlannerContext,
  rng: Rng,
  person: Person,
  device: Device,
  i: number,
  t: number,
): Session {
  const touch = chooseTouch(ctx, rng, person, i, t);
  const sessionIdx = ctx.sessionCount++;
  const seed = rng.u32();
  const landingCollection =
    touch.landing === 'collection' || touch.landing === 'sale'
      ? ((touch.collection ? ctx.cat.byHandle.get(touch.collection) : undefined) ?? ctx.cat.collectionDist.sample(rng))
      : null;
  const landingProduct = touch.landing === 'product' ? pickProduct(ctx.cat, rng) : null;
  const s: Session = {
    idx: sessionIdx,
    seed,
    person,
    device,
    start: t,
    touch,
    landingProduct,
    landingCollection,
    stage: Stage.Bounce,
    cart: null,
    lead: false,
    knownEmail: false,
    checkoutEmail: person.email,
    acceptsMarketing: false,
    order: null,
    steps: 0,
    eventCount: 0,
    seqStart: 0,
    end: t,
  };
  s.stage = drawStage(rng, purchaseChance(person, device, touch, i, t));
  if (s.stage >= Stage.AddToCart) {
    const campaign = touch.ad?.campaign.key ?? touch.campaign;
    s.cart = planCart(
      ctx,
      rng,
      { idx: sessionIdx, landingProduct, landingCollection, campaign, taxRate: person.taxRate },
      sessionIdx,
    );
  }
  const subscribed = person.subscribedAt !== null && person.subscribedAt <= t;
  s.lead = !subscribed && rng.chance(0.03);
  s.knownEmail = person.customerId !== null && rng.chance(0.5);
  s.checkoutEmail = emailVariant(rng, person.email);
  s.acceptsMarketing = rng.chance(0.55);
  if (s.stage === Stage.Purchase) {
    s.order = planOrder(ctx, rng, s);
    person.orders++;
  }
  // The steps decide the session's length and event count; they are rebuilt identically on expansion.
  const steps = buildSteps(ctx, s);
  s.steps = steps.length;
  s.eventCount = device.blocked ? 0 : steps.length;
  s.end = steps[steps.length - 1]!.at;
  return s;
}

/** How well each kind of landing page converts: a product page best, the home page worst. */
const LANDING_MULT: Record<Touch['landing'], number> = { product: 1.3, sale: 1.15, collection: 1, home: 0.7 };

/**
 * Chance that a session buys: about 3% times the channel's intent and the landing page's conversion, more on
 * desktop and on returning visits, less right after a purchase.
 */
function purchaseChance(person: Person, device: Device, touch: Touch, i: number, t: number): number {
  const deviceMult = device.kind === 'desktop' ? 1.35 : device.kind === 'tablet' ? 1 : 0.8;
  const visitMult = i === 0 ? 0.55 : 1.25;
  const recent = person.lastPurchaseAt !== null && t - person.lastPurchaseAt < 14 * DAY ? 0.35 : 1;
  return Math.min(0.6, 0.03 * touch.intent * LANDING_MULT[touch.landing] * deviceMult * visitMult * recent);
}

/** Path of the session's landing page. */
export function landingPath(s: Session): string {
  return s.landingProduct?.path ?? s.landingCollection?.path ?? '/';
}
