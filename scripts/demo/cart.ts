/**
 * The cart of a session that adds to cart: its lines, discount code, shipping, tax and totals (in cents), and the
 * checkout token that ties its checkout events to the order.
 */
import {
  type CatCollection,
  type Catalogue,
  type CatProduct,
  type CatVariant,
  pickProduct,
  pickVariant,
} from './catalog';
import type { PlannerContext } from './context';
import { flat } from './format';
import { ALNUM, Distribution, hex8, Rng, SALT } from './random';

export interface CartPick {
  variant: CatVariant;
  qty: number;
}

export interface CartPlan {
  lines: CartPick[];
  token: string;
  checkoutPath: string;
  thankYouPath: string;
  cartId: string;
  discountCode: string | null;
  /** Per line, in cents: gross (price x qty) and discount allocated. */
  gross: number[];
  alloc: number[];
  grossTotal: number;
  discount: number;
  subtotal: number;
  shipping: number;
  tax: number;
  total: number;
}

/** Distinct products in a cart, and the quantity of each. */
const CART_SIZES = new Distribution([1, 2, 3], [65, 25, 10]);
const QUANTITIES = new Distribution([1, 2, 3], [85, 12, 3]);

/** Percentage off of a discount code (the codes are the ones of `discountCodeFor`). */
export const discountPercent = (code: string): number => (code === 'SPRING15' ? 15 : 10);
/** Free shipping from $75; else a flat rate. */
const FREE_SHIPPING_FROM = 7500;
const SHIPPING_RATE = 595;

/** What the cart depends on of its session. */
export interface CartSession {
  /** Session number of the seed. */
  idx: number;
  landingProduct: CatProduct | null;
  landingCollection: CatCollection | null;
  /** utm_campaign of the session's ad or email, if any. */
  campaign: string | undefined;
  taxRate: number;
}

/** The cart of a session; `sessionRngKey` keys the draws of its token. */
export function planCart(
  ctx: Pick<PlannerContext, 'cat' | 'keys' | 'idMask'>,
  rng: Rng,
  s: CartSession,
  sessionRngKey: number,
): CartPlan {
  const lines = pickCartLines(ctx.cat, rng, s.landingProduct, s.landingCollection);
  const discountCode = discountCodeFor(rng, s.campaign);
  const tokenRng = new Rng(ctx.keys[0], ctx.keys[1], SALT.order, sessionRngKey);
  const token = flat(tokenRng.hex(20), hex8(s.idx ^ ctx.idMask[0]), tokenRng.hex(4));
  return {
    lines,
    token,
    checkoutPath: flat('/checkouts/cn/', token),
    thankYouPath: flat('/checkouts/cn/', token, '/thank-you'),
    cartId: flat('Z2NwLXVzLWVhc3QxOjAxSj', tokenRng.chars(20, ALNUM)),
    discountCode,
    ...priceCart(lines, discountCode, s.taxRate),
  };
}

/** 1 to 3 distinct products, the first one often the landing product (or one of the landing collection). */
function pickCartLines(
  cat: Catalogue,
  rng: Rng,
  landingProduct: CatProduct | null,
  landingCollection: CatCollection | null,
): CartPick[] {
  const nLines = CART_SIZES.sample(rng);
  const lines: CartPick[] = [];
  const used = new Set<CatProduct>();
  for (let i = 0; i < nLines; i++) {
    let product =
      i === 0 && landingProduct && rng.chance(0.65)
        ? landingProduct
        : pickProduct(cat, rng, i === 0 ? landingCollection : null);
    for (let tries = 0; used.has(product) && tries < 5; tries++) product = pickProduct(cat, rng);
    if (used.has(product)) continue;
    used.add(product);
    lines.push({ variant: pickVariant(rng, product), qty: QUANTITIES.sample(rng) });
  }
  return lines;
}

/** The sale's code for most sale visitors, the welcome code from the welcome series, a friend's code rarely. */
function discountCodeFor(rng: Rng, campaign: string | undefined): string | null {
  return campaign === 'spring_sale' || campaign === 'spring_sale_launch'
    ? rng.chance(0.7)
      ? 'SPRING15'
      : null
    : campaign === 'welcome_series'
      ? 'WELCOME10'
      : rng.chance(0.04)
        ? 'FRIENDS10'
        : null;
}

/** Totals in cents; the discount is spread over the lines in proportion (the last line takes the rounding). */
function priceCart(
  lines: CartPick[],
  discountCode: string | null,
  taxRate: number,
): Pick<CartPlan, 'gross' | 'alloc' | 'grossTotal' | 'discount' | 'subtotal' | 'shipping' | 'tax' | 'total'> {
  const pct = discountCode ? discountPercent(discountCode) : 0;
  const gross = lines.map((l) => l.variant.priceCents * l.qty);
  const grossTotal = gross.reduce((a, b) => a + b, 0);
  const discount = Math.round((grossTotal * pct) / 100);
  const alloc: number[] = [];
  let left = discount;
  for (let i = 0; i < gross.length; i++) {
    const share = i === gross.length - 1 ? left : Math.round((discount * gross[i]!) / grossTotal);
    alloc.push(share);
    left -= share;
  }
  const subtotal = grossTotal - discount;
  const shipping = subtotal >= FREE_SHIPPING_FROM ? 0 : SHIPPING_RATE;
  const tax = Math.round(subtotal * taxRate);
  return { gross, alloc, grossTotal, discount, subtotal, shipping, tax, total: subtotal + shipping + tax };
}
