/**
 * The funnel of one visit: how deep a session goes (`Stage`) and the steps it takes, i.e. its future events with
 * their times and pages: landing page, browsing, cart, checkout steps, purchase. The steps come from the session's
 * own PRNG, so they are built once at plan time (for their count and times) and again, identically, when the
 * session's events are built. A new event kind starts here (when it happens) and goes on in `events.ts` (its data).
 */
import type { Context, StorefrontEventName } from '../../contracts/src/events';
import type { CartPick, CartPlan } from './cart';
import {
  type CatCollection,
  type CatProduct,
  type CatSearch,
  type CatVariant,
  pickProduct,
  pickVariant,
} from './catalog';
import type { PlannerContext } from './context';
import { Distribution, Rng, SALT } from './random';
import type { Session } from './sessions';
import { MINUTE, SECOND } from './time';

/** Funnel depth of a session. */
export enum Stage {
  Bounce = 0,
  Browse = 1,
  AddToCart = 2,
  CartViewed = 3,
  CheckoutStarted = 4,
  ContactInfo = 5,
  ShippingInfo = 6,
  PaymentInfo = 7,
  Purchase = 8,
}

/** Non-purchase sessions by depth (drop-off of a typical apparel store). */
const STAGES_NO_PURCHASE = [
  Stage.Bounce,
  Stage.Browse,
  Stage.AddToCart,
  Stage.CartViewed,
  Stage.CheckoutStarted,
  Stage.ContactInfo,
  Stage.ShippingInfo,
  Stage.PaymentInfo,
];
const STAGE_DIST = new Distribution(STAGES_NO_PURCHASE, [44, 34, 8.5, 5, 3.5, 2.5, 1.3, 1.2]);

/** A session that ends in a purchase, with chance `pBuy`, or else one of the drop-off depths. */
export function drawStage(rng: Rng, pBuy: number): Stage {
  return rng.chance(pBuy) ? Stage.Purchase : STAGE_DIST.sample(rng);
}

/** Pages viewed while browsing, and the forms that capture a lead. */
const BROWSE_KINDS = new Distribution(['product', 'collection', 'search', 'home'], [50, 32, 12, 6]);
const FORM_IDS = new Distribution(['newsletter-popup', 'footer-newsletter', 'contact-form'], [70, 25, 5]);

/** A page of a session. Its strings are shared ones; the URL and context are only built on expansion. */
export interface Page {
  path: string;
  query: string;
  title: string;
  /** The page before (a self-referral), or null on the landing page, whose referrer is the touch's. */
  prev: Page | null;
  href?: string;
  ctx?: Context;
}

/** The demo shop sends the storefront kinds only. */
export type StepName = StorefrontEventName;

export interface Step {
  at: number;
  name: StepName;
  page: Page;
  variant?: CatVariant;
  qty?: number;
  collection?: CatCollection;
  search?: CatSearch;
  lines?: CartPick[];
  formId?: string;
}

/** What building the steps reads of the planner and of the session. */
export type FunnelContext = Pick<PlannerContext, 'cat' | 'keys'>;
export type FunnelSession = Pick<
  Session,
  'idx' | 'seed' | 'start' | 'touch' | 'landingProduct' | 'landingCollection' | 'stage' | 'cart' | 'lead'
>;

/** The steps (future events) of a session, from its own PRNG: the same session always gives the same steps. */
export function buildSteps(ctx: FunnelContext, s: FunnelSession): Step[] {
  return new StepBuilder(ctx, s).build();
}

class StepBuilder {
  private readonly steps: Step[] = [];
  private readonly rng: Rng;
  private t: number;
  private page: Page | null = null;

  constructor(
    private readonly ctx: FunnelContext,
    private readonly s: FunnelSession,
  ) {
    this.rng = new Rng(ctx.keys[0], ctx.keys[1], SALT.session, s.seed, s.idx);
    this.t = s.start;
  }

  private dwell(mean: number, min = 2 * SECOND): number {
    return Math.min(10 * MINUTE, min + Math.round(this.rng.exp(mean)));
  }

  private after(ms: number): number {
    this.t += ms;
    return this.t;
  }

  private push(name: StepName, page: Page, at = this.t): void {
    this.steps.push({ at, name, page });
  }

  /** A page view; the visitor reads the page before for a while. */
  private go(path: string, query: string, title: string): Page {
    if (this.page !== null) this.t += this.dwell(35 * SECOND);
    const page: Page = { path, query, title, prev: this.page };
    this.page = page;
    this.push('page_viewed', page);
    return page;
  }

  private viewProduct(product: CatProduct, query = ''): void {
    const variant = pickVariant(this.rng, product);
    const q = query === '' && this.rng.chance(0.25) ? variant.variantQuery : query;
    const page = this.go(product.path, q, product.pageTitle);
    this.steps.push({ at: this.after(this.rng.between(150, 1200)), name: 'product_viewed', page, variant });
  }

  private viewCollection(c: CatCollection, query = ''): void {
    const page = this.go(c.path, query, c.pageTitle);
    this.steps.push({ at: this.after(this.rng.between(150, 1200)), name: 'collection_viewed', page, collection: c });
  }

  private addLine(line: CartPick): void {
    if (this.page?.path !== line.variant.product.path) this.viewProduct(line.variant.product);
    this.steps.push({
      at: this.after(this.dwell(25 * SECOND, 4 * SECOND)),
      name: 'product_added_to_cart',
      page: this.page!,
      variant: line.variant,
      qty: line.qty,
    });
  }

  build(): Step[] {
    const { s } = this;
    this.land();
    if (s.lead) this.submitLead();
    this.browse();
    const cart = s.cart;
    if (s.stage < Stage.AddToCart || !cart) return this.steps;
    const added = this.fillCart(cart);
    if (s.stage < Stage.CartViewed) return this.steps;
    const cartPage = this.viewCart(cart, added);
    if (s.stage < Stage.CheckoutStarted) return this.steps;
    this.checkOut(cart, cartPage);
    return this.steps;
  }

  /** The landing page: the touch's product or collection, else the home page, with the touch's query string. */
  private land(): void {
    const { s } = this;
    if (s.landingProduct) this.viewProduct(s.landingProduct, s.touch.query);
    else if (s.landingCollection) this.viewCollection(s.landingCollection, s.touch.query);
    else this.go('/', s.touch.query, this.ctx.cat.homeTitle);
  }

  /** A newsletter or contact form on the landing page. */
  private submitLead(): void {
    this.steps.push({
      at: this.after(this.dwell(25 * SECOND, 8 * SECOND)),
      name: 'lead_form_submitted',
      page: this.page!,
      formId: FORM_IDS.sample(this.rng),
    });
  }

  /** Product, collection, search and home pages: none on a bounce, more when only browsing. */
  private browse(): void {
    const { s, rng } = this;
    const cat = this.ctx.cat;
    const browse =
      s.stage === Stage.Bounce ? 0 : s.stage === Stage.Browse ? 1 + Math.min(7, Math.floor(rng.exp(1.8))) : rng.int(3);
    for (let i = 0; i < browse; i++) {
      const kind = BROWSE_KINDS.sample(rng);
      if (kind === 'product') this.viewProduct(pickProduct(cat, rng));
      else if (kind === 'collection') this.viewCollection(cat.collectionDist.sample(rng));
      else if (kind === 'search') {
        const search = rng.pick(cat.searches);
        const page = this.go('/search', search.urlQuery, search.pageTitle);
        this.steps.push({ at: this.after(rng.between(100, 600)), name: 'search_submitted', page, search });
      } else this.go('/', '', cat.homeTitle);
    }
  }

  /**
   * Adds the cart's lines from their product pages (the cart drawer opens; no page change); sometimes one more item
   * goes in, to come out again on the cart page. Returns what was added.
   */
  private fillCart(cart: CartPlan): CartPick[] {
    const { s, rng } = this;
    const added = [...cart.lines];
    for (const line of cart.lines) this.addLine(line);
    if (s.stage >= Stage.CartViewed && rng.chance(0.1)) {
      const extra = { variant: pickVariant(rng, pickProduct(this.ctx.cat, rng)), qty: 1 };
      if (!cart.lines.some((l) => l.variant.product === extra.variant.product)) {
        this.addLine(extra);
        added.push(extra);
      }
    }
    return added;
  }

  /** The cart page, where the extra item (if any) is removed. */
  private viewCart(cart: CartPlan, added: CartPick[]): Page {
    const cartPage = this.go('/cart', '', this.ctx.cat.cartTitle);
    this.steps.push({ at: this.after(this.rng.between(200, 900)), name: 'cart_viewed', page: cartPage, lines: added });
    if (added.length > cart.lines.length) {
      const removed = added[added.length - 1]!;
      this.steps.push({
        at: this.after(this.dwell(15 * SECOND)),
        name: 'product_removed_from_cart',
        page: cartPage,
        variant: removed.variant,
        qty: removed.qty,
      });
    }
    return cartPage;
  }

  /** The checkout steps the session's stage reaches, and the thank-you page of a purchase. */
  private checkOut(cart: CartPlan, cartPage: Page): void {
    const { s } = this;
    const cat = this.ctx.cat;
    const checkout: Page = { path: cart.checkoutPath, query: '', title: cat.checkoutTitle, prev: cartPage };
    this.push('checkout_started', checkout, this.after(this.dwell(10 * SECOND)));
    if (s.stage >= Stage.ContactInfo) {
      this.push('checkout_contact_info_submitted', checkout, this.after(this.dwell(35 * SECOND, 8 * SECOND)));
    }
    if (s.stage >= Stage.ShippingInfo) {
      this.push('checkout_address_info_submitted', checkout, this.after(this.dwell(45 * SECOND, 10 * SECOND)));
      this.push('checkout_shipping_info_submitted', checkout, this.after(this.dwell(12 * SECOND)));
    }
    if (s.stage >= Stage.PaymentInfo) {
      this.push('payment_info_submitted', checkout, this.after(this.dwell(40 * SECOND, 10 * SECOND)));
    }
    if (s.stage >= Stage.Purchase) {
      const thankYou: Page = { path: cart.thankYouPath, query: '', title: cat.thankYouTitle, prev: checkout };
      this.push('checkout_completed', thankYou, this.after(this.dwell(6 * SECOND, 3 * SECOND)));
    }
  }
}
