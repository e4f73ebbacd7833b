/**
 * Demo data generator (issue 3): a realistic, deterministic storefront stream for one store.
 *
 * Pure: no I/O, no clock, no `Math.random` — everything comes from `opts.seed` through the PRNG below.
 *
 * Shape of the work, so that a million events never sit in memory at once:
 * 1. `planDemo(opts)` plans the whole stream cheaply: the catalogue, the persons (1 to 3 devices, i.e.
 *    clientIds, each), their sessions over the days (channel, landing page, funnel depth, cart), the orders
 *    with their later refund and cancellation versions, and the ad spend rows. A session is kept as a small
 *    plan object; its events are not built.
 * 2. `plan.items()` expands the sessions lazily and yields events and order pushes merged in time order
 *    (a heap over the sessions in progress); `plan.events()` yields the events only. Each call is a fresh,
 *    identical pass.
 * 3. `generateDemoStream(opts)` materializes everything as arrays (for tests and small runs).
 *
 * Events of one page share their `context` object and catalogue objects (variants, collections) are shared and
 * frozen: treat the yielded events as read-only (structuredClone one before editing it).
 *
 * Realism (the knobs are the constants and tables below):
 * - a catalogue of 40 products in 6 collections (+ new arrivals, spring sale), 1 to 6 variants each with price and
 *   cost, Zipf-like popularity; the same for every seed (pushed once);
 * - people (1-3 devices: 58/32/10%; ~8% customers and ~12% subscribers from before the window) with a first
 *   visit on a weighted day and hour (US evening peak, weekends and the sale flight busier), then more sessions
 *   over hours to days (more likely with several devices, after an abandoned cart or a purchase), each from a
 *   source: first sessions mostly paid search/social, organic search, direct; later ones direct, brand search,
 *   retargeting_30d, email (subscribers only; abandoned_checkout right after an abandoned checkout);
 * - paid clicks carry the utm values of their ad (the ad spend rows use the same) and a click id (gclid, fbclid,
 *   ttclid; ~10-15% of Google and TikTok clicks carry the click id alone); organic social sometimes carries fbclid;
 * - a session is a funnel: bounce 44%, browse 34% (products, collections, search), add to cart, cart, checkout
 *   steps; about 3% of sessions purchase (more from email, brand search, retargeting, desktop, returning visits);
 *   ~3% of newsletter popups give a lead; ~12% of checkout emails are typed with capitals;
 * - ~3% of devices block the tracker: their sessions send nothing, their orders still come (no checkout_completed;
 *   `landing_site`/`referring_site` of the device's first visit); ~7% of orders are refunded later (partially or
 *   fully), ~1.2% cancelled; the order versions are pushed in time order with a newer `updated_at`;
 * - ad spend: one row per ad and day of the campaign's flight; clicks are the sessions the ad brought (x1.08-1.35),
 *   impressions from the click-through rate, spend from the cost per click, conversion_value the platform's own
 *   (last paid click in 7 days, +-20%), all in USD.
 */
import type {
  Cart,
  CartLine,
  Checkout,
  CheckoutLineItem,
  Collection,
  CompletedCheckout,
  Context,
  DiscountApplication,
  Location,
  MailAddress,
  Money,
  ProductVariant,
  SearchResult,
  StorefrontEvent,
  WebPixelsNavigator,
} from '../../contracts/src/events';
import type { AdSpendRow, ShopOrder, ShopOrderLineItem, ShopProduct } from '../../contracts/src/pushes';

// ---------------------------------------------------------------------------------------------------------------
// Options and outputs
// ---------------------------------------------------------------------------------------------------------------

export interface DemoOptions {
  /** Exact number of storefront events. */
  events: number;
  /** Any integer; the same seed gives the same stream. */
  seed: number;
  /** First day of the stream (its UTC date is used; the time of day is ignored). */
  start: Date;
  /** Number of days the stream covers, default 30. Every event falls in [start, start + days). */
  days?: number;
  /** Host of the storefront, default `shop.example`. */
  storeHost?: string;
}

/** One element of the time-ordered stream: a storefront event or a version of an order to push. */
export type DemoItem =
  { kind: 'event'; at: number; event: StorefrontEvent } | { kind: 'order'; at: number; order: ShopOrder };

/** What was planned (before any event is built). */
export interface DemoSummary {
  events: number;
  persons: number;
  /** clientIds that appear in events (devices with the tracker blocked are not counted). */
  clients: number;
  /** Sessions, including the ones on tracker-blocked devices (which produce no event). */
  sessions: number;
  /** Distinct orders. */
  orders: number;
  /** Order pushes: first versions plus refund and cancellation versions. */
  orderVersions: number;
  /** Orders with no checkout_completed event (tracker blocked). */
  ordersWithoutEvent: number;
  /** Orders whose `checkout_completed` says `isFirstOrder: false`. */
  repeatOrders: number;
  refundedOrders: number;
  cancelledOrders: number;
  products: number;
  adSpendRows: number;
  /** Revenue of the orders (before refunds), in USD. */
  revenue: number;
  adSpend: number;
  /** Sessions per acquisition channel label (e.g. `google_cpc`, `email`, `direct`). */
  channels: Record<string, number>;
  /** Share of sessions that end in a purchase. */
  purchaseRate: number;
}

/** A planned stream. `items()` and `events()` each start a fresh pass over the same stream. */
export interface DemoPlan {
  readonly options: Readonly<Required<DemoOptions>>;
  /** The catalogue, to push once before anything else. */
  readonly products: ShopProduct[];
  /** Every order version, in push order (time order); a refund or cancellation version follows its order. */
  readonly orders: ShopOrder[];
  /** Daily rows per ad of the paid campaigns. */
  readonly adSpend: AdSpendRow[];
  readonly summary: DemoSummary;
  /** Events and order versions merged in time order (an order version comes after the events before it). */
  items(): Generator<DemoItem, void, undefined>;
  /** The events in time order (timestamps increase per client). */
  events(): Generator<StorefrontEvent, void, undefined>;
}

/** Everything as arrays (`generateDemoStream`). */
export interface DemoStream {
  events: StorefrontEvent[];
  orders: ShopOrder[];
  products: ShopProduct[];
  adSpend: AdSpendRow[];
  summary: DemoSummary;
}

export const DEMO_CURRENCY = 'USD';
export const DEFAULT_DEMO_DAYS = 30;
export const DEFAULT_STORE_HOST = 'shop.example';

// ---------------------------------------------------------------------------------------------------------------
// PRNG: sfc32 seeded from any number of 32-bit keys
// ---------------------------------------------------------------------------------------------------------------

function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Splits any integer (or float) seed into two 32-bit keys. */
function seedKeys(seed: number): [number, number] {
  const n = Number.isFinite(seed) ? Math.trunc(seed) : 0;
  const lo = n >>> 0;
  const hi = Math.floor(n / 4294967296) >>> 0;
  return [lo, hi];
}

/** Small fast PRNG (sfc32) with the helpers the generator needs. State is 128 bits, seeded by hashing keys. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(...keys: number[]) {
    let h1 = 0x243f6a88;
    let h2 = 0x85a308d3;
    for (const k of keys) {
      h1 = fmix32(h1 ^ (k >>> 0));
      h2 = fmix32((h2 + Math.imul(k >>> 0, 0x9e3779b1) + h1) >>> 0);
    }
    this.a = fmix32(h1 ^ 0x13198a2e);
    this.b = fmix32(h2 ^ 0x03707344);
    this.c = fmix32((h1 + h2) ^ 0xa4093822);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** Uniform float in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list');
    return items[this.int(items.length)]!;
  }

  /** Picks by weight; `weights[i]` is the weight of `items[i]`. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i]!;
      if (r < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  }

  /** Exponential with the given mean. */
  exp(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** `len` characters of `alphabet`. */
  chars(len: number, alphabet: string): string {
    const codes = new Array<number>(len);
    for (let i = 0; i < len; i++) codes[i] = alphabet.charCodeAt(this.int(alphabet.length));
    return String.fromCharCode(...codes);
  }

  hex(len: number): string {
    return this.chars(len, HEX);
  }
}

/** A fixed distribution, sampled by binary search over the cumulative weights. */
class Distribution<T> {
  private readonly cumulative: number[] = [];
  private readonly total: number;

  constructor(
    readonly items: readonly T[],
    weights: readonly number[],
  ) {
    let sum = 0;
    for (const w of weights) this.cumulative.push((sum += w));
    this.total = sum;
  }

  sample(rng: Rng): T {
    const r = rng.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > r) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo]!;
  }
}

const HEX = '0123456789abcdef';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const HEX_CODES = Array.from(HEX, (c) => c.charCodeAt(0));

/** Eight lower-case hex digits of a 32-bit number. */
function hex8(n: number): string {
  const h = HEX_CODES;
  return String.fromCharCode(
    h[(n >>> 28) & 15]!,
    h[(n >>> 24) & 15]!,
    h[(n >>> 20) & 15]!,
    h[(n >>> 16) & 15]!,
    h[(n >>> 12) & 15]!,
    h[(n >>> 8) & 15]!,
    h[(n >>> 4) & 15]!,
    h[n & 15]!,
  );
}

/**
 * A UUID-shaped id that is unique for `counter` (< 2^40) within a seed: the last 48 bits are `counter` XOR a
 * per-seed mask, the rest comes from `rng`.
 */
function uniqueUuid(rng: Rng, mask: readonly [number, number], counter: number): string {
  const a = rng.u32();
  const b = rng.u32();
  const lo = ((counter % 4294967296) ^ mask[0]) >>> 0;
  const hi = (Math.floor(counter / 4294967296) ^ mask[1]) & 0xffff;
  const bh = hex8(b);
  return flat(
    hex8(a),
    '-',
    bh.slice(0, 4),
    '-4',
    bh.slice(5, 8),
    '-',
    HEX[8 + (b & 3)]!,
    hi.toString(16).padStart(3, '0').slice(-3),
    '-',
    hex8(lo),
    ((a ^ b) & 0xffff).toString(16).padStart(4, '0'),
  );
}

/**
 * Concatenation into one flat string. Template literals build ropes (a tree of pieces), which cost several times
 * the memory of the text; the strings the plan keeps for the whole run are built with this instead.
 */
function flat(...parts: (string | number)[]): string {
  return parts.join('');
}

// ---------------------------------------------------------------------------------------------------------------
// Time helpers
// ---------------------------------------------------------------------------------------------------------------

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const iso = (ms: number): string => new Date(ms).toISOString();
/** ISO 8601 without milliseconds, as Shopify REST writes times. */
const isoSeconds = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Share of the day's sessions by UTC hour (a US store: evenings US time are 00-04 UTC). */
const HOUR_WEIGHTS = [9, 8, 7, 6, 4, 3, 2, 1.5, 1.2, 1.2, 1.5, 2, 3, 4, 5, 5.5, 6, 6.5, 6.5, 6.5, 7, 7.5, 8, 8.5];
const HOUR_DIST = new Distribution(
  HOUR_WEIGHTS.map((_, i) => i),
  HOUR_WEIGHTS,
);

// ---------------------------------------------------------------------------------------------------------------
// Catalogue
// ---------------------------------------------------------------------------------------------------------------

/**
 * The catalogue: collection rows, then product rows `title | type | price | grams | tags | options`, where
 * options are either `Color,Color / Size,Size` (every combination) or `A; B; C` (as written).
 */
const CATALOGUE_TABLE = `
# tees | T-Shirts
Organic Cotton Tee | T-Shirts | 25 | 180 | cotton, organic, bestseller | White,Black / S,M,L
Heavyweight Pocket Tee | T-Shirts | 34 | 260 | cotton, heavyweight | Oatmeal,Navy / M,L
Slub V-Neck Tee | T-Shirts | 28 | 170 | cotton | Heather Grey / S,M,L
Long Sleeve Tee | T-Shirts | 32 | 220 | cotton, layering | Black,Sage / M,L
Mountain Graphic Tee | T-Shirts | 30 | 190 | graphic, new | Washed Black / S,M,L,XL
Striped Breton Tee | T-Shirts | 38 | 210 | stripes | Navy Stripe / S,M,L
Ringer Tee | T-Shirts | 26 | 180 | retro | White-Red / M,L
Essential Crew Tee 3-Pack | T-Shirts | 60 | 540 | bundle, bestseller | Mixed / S,M,L
# hoodies-sweats | Hoodies & Sweats
Fleece Pullover Hoodie | Hoodies | 68 | 620 | fleece, bestseller | Charcoal,Forest / M,L
Zip-Up Hoodie | Hoodies | 74 | 650 | fleece | Black,Heather Grey / M,L
Crewneck Sweatshirt | Sweatshirts | 58 | 560 | fleece | Oatmeal / S,M,L
Quarter-Zip Pullover | Sweatshirts | 72 | 540 | layering | Navy / M,L,XL
Waffle Knit Henley | Sweatshirts | 55 | 380 | waffle, new | Bone,Rust / M,L
Heavyweight Hoodie | Hoodies | 89 | 900 | heavyweight, premium | Black / S,M,L,XL
# pants-shorts | Pants & Shorts
Stretch Chino Pants | Pants | 78 | 520 | chino | Khaki / 30x32; Khaki / 32x32; Navy / 32x32; Navy / 34x32
Relaxed Fit Jeans | Pants | 98 | 780 | denim | Indigo / 30; Indigo / 32; Black / 32
Terry Joggers | Pants | 62 | 480 | fleece, lounge | Heather Grey,Black / M,L
Cargo Shorts | Shorts | 48 | 350 | summer | Olive / 32,34
Linen Trousers | Pants | 84 | 400 | linen, summer, new | Natural / M,L
Swim Trunks | Shorts | 45 | 200 | summer, swim | Palm Print / M; Palm Print / L; Navy / M
# socks-underwear | Socks & Underwear
Merino Wool Socks | Socks | 18 | 90 | wool, bestseller | Grey / M; Grey / L; Navy / L
Ankle Socks 3-Pack | Socks | 16 | 120 | bundle | White; Black
Hiking Socks | Socks | 22 | 110 | wool, outdoor | Charcoal / L
Boxer Briefs 3-Pack | Underwear | 42 | 210 | bundle, bestseller | Black / M; Black / L; Mixed / M
Cotton Trunks 2-Pack | Underwear | 30 | 150 | bundle | Navy / M,L
Everyday Crew Socks | Socks | 8.5 | 60 | basics | Grey; Black; White
# accessories | Accessories
Ribbed Beanie | Hats | 24 | 90 | winter | Charcoal; Rust; Cream
Six-Panel Cap | Hats | 28 | 100 | summer | Navy; Khaki
Canvas Tote Bag | Bags | 32 | 300 | bags | Natural
Leather Belt | Belts | 45 | 180 | leather | Brown / 32; Brown / 34; Black / 34
Wool Scarf | Scarves | 39 | 160 | wool, winter | Camel
Bucket Hat | Hats | 26 | 90 | summer, new | Olive; Black
Polarized Sunglasses | Eyewear | 65 | 40 | summer | Tortoise; Matte Black
Insulated Water Bottle | Drinkware | 29 | 350 | outdoor | Sage; Stone
# outerwear | Outerwear
Packable Rain Jacket | Jackets | 129 | 420 | rain, outdoor | Yellow,Navy / M,L
Puffer Vest | Jackets | 98 | 380 | layering | Black / M,L
Denim Trucker Jacket | Jackets | 119 | 900 | denim | Light Wash / M,L,XL
Sherpa Fleece Jacket | Jackets | 139 | 700 | fleece, bestseller | Cream / M,L
Canvas Chore Coat | Jackets | 169 | 1100 | workwear, new | Brown,Navy / M,L
Lightweight Windbreaker | Jackets | 89 | 300 | outdoor | Green / S,M,L
`;

interface ProductDef {
  title: string;
  type: string;
  price: number;
  grams: number;
  tags: string;
  /** Variant titles. */
  options: string[];
}

function parseOptions(spec: string): string[] {
  if (spec.includes(';')) return spec.split(';').map((o) => o.trim());
  const [colors = '', sizes] = spec.split(' / ');
  const cs = colors.split(',').map((c) => c.trim());
  if (sizes === undefined) return cs;
  return cs.flatMap((c) => sizes.split(',').map((s) => `${c} / ${s.trim()}`));
}

function parseCatalogueTable(table: string): { handle: string; title: string; products: ProductDef[] }[] {
  const out: { handle: string; title: string; products: ProductDef[] }[] = [];
  for (const raw of table.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const cells = line
      .replace(/^# /, '')
      .split('|')
      .map((c) => c.trim());
    if (line.startsWith('# ')) {
      out.push({ handle: cells[0]!, title: cells[1]!, products: [] });
      continue;
    }
    const [title = '', type = '', price = '', grams = '', tags = '', options = ''] = cells;
    out[out.length - 1]!.products.push({
      title,
      type,
      price: Number(price),
      grams: Number(grams),
      tags,
      options: parseOptions(options),
    });
  }
  return out;
}

const COLLECTION_DEFS = parseCatalogueTable(CATALOGUE_TABLE);

const SEARCH_QUERIES = [
  'hoodie',
  'tee',
  'socks',
  'jacket',
  'jeans',
  'wool',
  'linen',
  'cap',
  'black t shirt',
  'gift card',
  'sale',
  'fleece',
  'shorts',
  'belt',
];

interface CatVariant {
  id: string;
  title: string;
  sku: string;
  /** Unit price and cost in cents. */
  priceCents: number;
  costCents: number;
  grams: number;
  pixel: ProductVariant;
  product: CatProduct;
  /** `?variant=<id>`. */
  variantQuery: string;
}

interface CatProduct {
  index: number;
  id: string;
  handle: string;
  title: string;
  type: string;
  tags: string;
  collection: string;
  variants: CatVariant[];
  path: string;
  pageTitle: string;
}

interface CatCollection {
  id: string;
  handle: string;
  title: string;
  products: CatProduct[];
  pixel: Collection;
  path: string;
  pageTitle: string;
}

interface CatSearch {
  query: string;
  pixel: SearchResult;
  /** `?q=...`. */
  urlQuery: string;
  pageTitle: string;
}

interface Catalogue {
  storeName: string;
  host: string;
  origin: string;
  products: CatProduct[];
  productDist: Distribution<CatProduct>;
  collections: CatCollection[];
  collectionDist: Distribution<CatCollection>;
  byHandle: Map<string, CatCollection>;
  searches: CatSearch[];
  pushes: ShopProduct[];
  homeTitle: string;
  cartTitle: string;
  checkoutTitle: string;
  thankYouTitle: string;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const usd = (cents: number): Money => ({ amount: cents / 100, currencyCode: DEMO_CURRENCY });
const decimal = (cents: number): string => (cents / 100).toFixed(2);
const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function storeNameOf(host: string): string {
  return host
    .split('.')
    .filter((p) => p !== 'www' && p !== '')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join(' ');
}

/** The catalogue is the same for every seed (a store has one catalogue); its timestamps follow `start`. */
function buildCatalogue(host: string, startMs: number): Catalogue {
  const storeName = storeNameOf(host);
  const origin = `https://${host}`;
  const rng = new Rng(0x0ca7a106);
  const products: CatProduct[] = [];
  const collections: CatCollection[] = [];
  const pushes: ShopProduct[] = [];
  let p = 0;
  for (const [ci, def] of COLLECTION_DEFS.entries()) {
    const members: CatProduct[] = [];
    for (const pd of def.products) {
      const handle = slug(pd.title);
      const productId = String(8_950_316_000_000 + p * 32_771 + 17);
      const skuBase = pd.title
        .split(/[^A-Za-z]+/)
        .filter(Boolean)
        .map((w) => w.slice(0, 3).toUpperCase())
        .slice(0, 2)
        .join('');
      const costShare = rng.uniform(0.28, 0.46);
      const product: CatProduct = {
        index: p,
        id: productId,
        handle,
        title: pd.title,
        type: pd.type,
        tags: pd.tags,
        collection: def.handle,
        variants: [],
        path: `/products/${handle}`,
        pageTitle: `${pd.title} – ${storeName}`,
      };
      for (const [vi, title] of pd.options.entries()) {
        const variantId = String(45_737_128_000_000 + p * 64 + vi * 3 + 1);
        const bump = title.includes('XL') ? 4 : 0;
        const priceCents = Math.round((pd.price + bump) * 100);
        const sku = `${skuBase}-${title
          .split(/[^A-Za-z0-9]+/)
          .filter(Boolean)
          .map((w) => w.slice(0, 3).toUpperCase())
          .join('-')}`;
        const pixel: ProductVariant = {
          id: variantId,
          image: { src: `//cdn.shopify.com/s/files/1/0612/3456/7890/products/${handle}-${vi + 1}.jpg` },
          price: usd(priceCents),
          product: {
            id: productId,
            title: pd.title,
            untranslatedTitle: pd.title,
            url: `/products/${handle}`,
            vendor: storeName,
            type: pd.type,
          },
          sku,
          title,
          untranslatedTitle: title,
        };
        product.variants.push({
          id: variantId,
          title,
          sku,
          priceCents,
          costCents: Math.round(priceCents * costShare),
          grams: pd.grams,
          pixel: deepFreeze(pixel),
          product,
          variantQuery: `?variant=${variantId}`,
        });
      }
      products.push(product);
      members.push(product);
      pushes.push({
        id: productId,
        title: pd.title,
        handle,
        body_html: `<p>${pd.title}, made to last. Free shipping on orders over $75.</p>`,
        vendor: storeName,
        product_type: pd.type,
        tags: pd.tags,
        created_at: isoSeconds(startMs - (240 - p * 4) * DAY + 10 * HOUR),
        updated_at: isoSeconds(startMs - 2 * DAY + 9 * HOUR + p * MINUTE),
        images: [{ src: `https://cdn.shopify.com/s/files/1/0612/3456/7890/products/${handle}-1.jpg` }],
        variants: product.variants.map((v) => ({
          id: v.id,
          title: v.title,
          sku: v.sku,
          price: decimal(v.priceCents),
          compare_at_price: def.handle === 'outerwear' || pd.tags.includes('new') ? null : decimal(v.priceCents + 1000),
          grams: v.grams,
          cost: decimal(v.costCents),
        })),
      });
      p++;
    }
    collections.push(makeCollection(storeName, String(301_234_567_000 + ci * 97), def.handle, def.title, members));
  }
  const newest = products.filter((x) => x.tags.includes('new'));
  collections.push(makeCollection(storeName, '301234567999', 'new-arrivals', 'New Arrivals', newest));
  const sale = products.filter((x) => !x.tags.includes('new') && x.type !== 'Jackets').filter((_, i) => i % 3 === 0);
  collections.push(makeCollection(storeName, '301234568111', 'spring-sale', 'Spring Sale', sale));
  // Zipf-like popularity: a few bestsellers sell most.
  const productWeights = products.map(
    (x, i) => (x.tags.includes('bestseller') ? 4 : 1) / Math.pow(1 + ((i * 7) % 40), 0.35),
  );
  const collectionWeights = collections.map((c) => (c.handle === 'spring-sale' ? 0.5 : c.handle === 'tees' ? 3 : 1.5));
  const searches = SEARCH_QUERIES.map((query): CatSearch => {
    const words = query.split(' ').filter((w) => w !== 't' && w !== 'shirt');
    const matches = products.filter((x) => words.some((w) => `${x.title} ${x.tags}`.toLowerCase().includes(w)));
    return {
      query,
      pixel: deepFreeze({ query, productVariants: matches.slice(0, 8).map((x) => x.variants[0]!.pixel) }),
      urlQuery: withParams([['q', query]]),
      pageTitle: `Search: ${Math.min(8, matches.length)} results found for “${query}” – ${storeName}`,
    };
  });
  return {
    storeName,
    host,
    origin,
    products,
    productDist: new Distribution(products, productWeights),
    collections,
    collectionDist: new Distribution(collections, collectionWeights),
    byHandle: new Map(collections.map((c) => [c.handle, c])),
    searches,
    pushes,
    homeTitle: `${storeName} – Everyday basics, made better`,
    cartTitle: `Your Shopping Cart – ${storeName}`,
    checkoutTitle: `Checkout – ${storeName}`,
    thankYouTitle: `Thank you for your purchase! – ${storeName}`,
  };
}

function makeCollection(
  storeName: string,
  id: string,
  handle: string,
  title: string,
  products: CatProduct[],
): CatCollection {
  return {
    id,
    handle,
    title,
    products,
    pixel: deepFreeze({ id, title, productVariants: products.map((x) => x.variants[0]!.pixel) }),
    path: `/collections/${handle}`,
    pageTitle: `${title} – ${storeName}`,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Paid campaigns (their utm values are the ones of the ad spend rows)
// ---------------------------------------------------------------------------------------------------------------

/**
 * Paid campaigns: `key (= utm_campaign) | platform | account | campaign id | name | landing | cpc cents | ctr |
 * flight (fractions of the window) | share of clicks with a click id only | purchase intent (relative)`.
 */
const CAMPAIGN_TABLE = `
brand_search | google | 4815162342 | 20512345671 | Brand - Search | home | 55 | 0.11 | 0-1 | 0.1 | 2
generic_search | google | 4815162342 | 20512345672 | Generic - Apparel | collection | 135 | 0.035 | 0-1 | 0.1 | 0.8
shopping_feed | google | 4815162342 | 20512345673 | Shopping - All Products | product | 85 | 0.015 | 0-1 | 0.1 | 1.3
spring_sale | facebook | act_1029384756 | 120210000000000001 | Spring Sale | sale | 90 | 0.012 | 0.3-0.7 | 0 | 1
prospecting_broad | facebook | act_1029384756 | 120210000000000002 | Prospecting - Broad | product | 75 | 0.009 | 0-1 | 0 | 0.6
retargeting_30d | facebook | act_1029384756 | 120210000000000003 | Retargeting 30d | product | 110 | 0.021 | 0-1 | 0 | 1.8
ugc_creators | tiktok | 7301234567890123456 | 1790123456789012 | UGC Creators | product | 45 | 0.008 | 0-1 | 0.15 | 0.4
`;

/**
 * Their ads: `campaign | ad id | ad name | utm_content | ad set id | ad set name | utm_source | utm_medium |
 * landing collection | utm_term values` (`{brand}` is the store name).
 */
const AD_TABLE = `
brand_search | 690123456701 | RSA - Brand | rsa_brand | 151234567801 | Brand - Exact | google | cpc | | {brand}, {brand} tees, {brand} discount code, {brand} hoodie
generic_search | 690123456711 | RSA - Tees | rsa_tees | 151234567811 | Tees - Phrase | google | cpc | tees | organic cotton t shirt, heavyweight tee, best plain t shirts
generic_search | 690123456712 | RSA - Hoodies | rsa_hoodies | 151234567812 | Hoodies - Phrase | google | cpc | hoodies-sweats | heavyweight hoodie, fleece hoodie men, zip up hoodie
shopping_feed | 690123456721 | Product ads | pla | 151234567821 | All products | google | cpc | |
spring_sale | 120210000000001001 | Tee carousel | tee_carousel | 120210000000000101 | Lookalike 1% - Purchasers | facebook | paid_social | |
spring_sale | 120210000000001002 | Sale video 15s | sale_video_15s | 120210000000000101 | Lookalike 1% - Purchasers | facebook | paid_social | |
spring_sale | 120210000000001003 | Story - Spring drop | story_spring_drop | 120210000000000102 | Instagram Stories | instagram | paid_social | |
prospecting_broad | 120210000000002001 | UGC hoodie review | ugc_hoodie | 120210000000000201 | Broad 18-45 US | facebook | paid_social | |
prospecting_broad | 120210000000002002 | Reels - Outerwear | reels_outerwear | 120210000000000202 | Instagram Reels | instagram | paid_social | |
retargeting_30d | 120210000000003001 | DPA - Viewed products | dpa_viewed | 120210000000000301 | Site visitors 30d | facebook | cpc | |
ugc_creators | 1790123456789101 | Spark - @fitwithmia | spark_fitwithmia | 1790123456789011 | Creators - Spark ads | tiktok | paid_social | |
ugc_creators | 1790123456789102 | Spark - @dailyfits | spark_dailyfits | 1790123456789011 | Creators - Spark ads | tiktok | paid_social | |
`;

type Platform = 'google' | 'facebook' | 'tiktok';
type LandingKind = 'home' | 'collection' | 'product' | 'sale';

interface AdDef {
  index: number;
  id: string;
  name: string;
  /** utm_content. */
  content: string;
  adsetId: string;
  adsetName: string;
  /** utm_source and utm_medium of the ad's links. */
  source: string;
  medium: string;
  /** Collection an ad group is about (generic search). */
  collection?: string;
  terms?: string[];
  campaign: CampaignDef;
  /** `?utm_source=...&utm_content=...` of the ad's links; `&utm_term=...` per keyword; `&utm_id=...` (Google). */
  utmQuery: string;
  termParams?: string[];
  utmIdParam: string;
}

interface CampaignDef {
  /** Also the utm_campaign. */
  key: string;
  platform: Platform;
  accountId: string;
  campaignId: string;
  campaignName: string;
  landing: LandingKind;
  /** Cost per click in cents and click-through rate. */
  cpcCents: number;
  ctr: number;
  /** Active part of the window, as fractions of `days`. */
  flight: [number, number];
  /** Share of the clicks that come without utm parameters (click id only). */
  clickIdOnly: number;
  /** Purchase propensity of its visitors, relative. */
  intent: number;
  ads: AdDef[];
}

const tableRows = (table: string): string[][] =>
  table
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.split('|').map((c) => c.trim()));

function buildCampaigns(storeName: string): CampaignDef[] {
  const brand = storeName.toLowerCase();
  const campaigns = tableRows(CAMPAIGN_TABLE).map((r): CampaignDef => {
    const [key = '', platform, accountId = '', campaignId = '', campaignName = '', landing, cpc, ctr, flight = '0-1'] =
      r;
    const [from = '0', to = '1'] = flight.split('-');
    return {
      key,
      platform: platform as Platform,
      accountId,
      campaignId,
      campaignName,
      landing: landing as LandingKind,
      cpcCents: Number(cpc),
      ctr: Number(ctr),
      flight: [Number(from), Number(to)],
      clickIdOnly: Number(r[9]),
      intent: Number(r[10]),
      ads: [],
    };
  });
  for (const [index, r] of tableRows(AD_TABLE).entries()) {
    const [key, id = '', name = '', content = '', adsetId = '', adsetName = '', source = '', medium = '', coll, terms] =
      r;
    const c = campaigns.find((x) => x.key === key);
    if (!c) throw new Error(`demo: ad ${id} names an unknown campaign ${key}`);
    const termList = terms ? terms.split(',').map((t) => t.trim().replace('{brand}', brand)) : undefined;
    c.ads.push({
      index,
      id,
      name,
      content,
      adsetId,
      adsetName,
      source,
      medium,
      collection: coll === '' ? undefined : coll,
      terms: termList,
      campaign: c,
      utmQuery: withParams([
        ['utm_source', source],
        ['utm_medium', medium],
        ['utm_campaign', c.key],
        ['utm_content', content],
      ]),
      termParams: termList?.map((t) => withParams([['utm_term', t]]).replace('?', '&')),
      utmIdParam: c.platform === 'google' ? `&utm_id=${c.campaignId}` : '',
    });
  }
  return campaigns;
}

// ---------------------------------------------------------------------------------------------------------------
// People and devices
// ---------------------------------------------------------------------------------------------------------------

const FIRST_NAMES = (
  'Emma Liam Olivia Noah Ava Elijah Sophia James Isabella Lucas Mia Mateo Amelia Ethan Harper Aiden ' +
  'Evelyn Jackson Abigail Sebastian Emily Henry Ella Owen Chloe Daniel Grace Samuel Zoe Wyatt Nora Leo ' +
  'Layla Julian Riley Maya Carter Aria Isaac Hannah Priya Wei Sofia Diego Fatima Kenji'
).split(' ');
const LAST_NAMES = (
  'Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez ' +
  'Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark ' +
  'Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Patel Chen Kim ' +
  'Okafor'
).split(' ');
const CITIES: { city: string; province: string; code: string; zip: string; area: string; tax: number }[] = [
  { city: 'Portland', province: 'Oregon', code: 'OR', zip: '97205', area: '503', tax: 0 },
  { city: 'Seattle', province: 'Washington', code: 'WA', zip: '98101', area: '206', tax: 0.1025 },
  { city: 'Austin', province: 'Texas', code: 'TX', zip: '78701', area: '512', tax: 0.0825 },
  { city: 'Denver', province: 'Colorado', code: 'CO', zip: '80202', area: '303', tax: 0.0881 },
  { city: 'Chicago', province: 'Illinois', code: 'IL', zip: '60601', area: '312', tax: 0.1025 },
  { city: 'Brooklyn', province: 'New York', code: 'NY', zip: '11201', area: '718', tax: 0.08875 },
  { city: 'San Diego', province: 'California', code: 'CA', zip: '92101', area: '619', tax: 0.0775 },
  { city: 'Atlanta', province: 'Georgia', code: 'GA', zip: '30303', area: '404', tax: 0.089 },
  { city: 'Boston', province: 'Massachusetts', code: 'MA', zip: '02108', area: '617', tax: 0.0625 },
  { city: 'Miami', province: 'Florida', code: 'FL', zip: '33130', area: '305', tax: 0.07 },
  { city: 'Minneapolis', province: 'Minnesota', code: 'MN', zip: '55401', area: '612', tax: 0.08025 },
  { city: 'Phoenix', province: 'Arizona', code: 'AZ', zip: '85004', area: '602', tax: 0.086 },
  { city: 'Nashville', province: 'Tennessee', code: 'TN', zip: '37203', area: '615', tax: 0.0925 },
  { city: 'Philadelphia', province: 'Pennsylvania', code: 'PA', zip: '19103', area: '215', tax: 0.06 },
];
const STREETS = ['Main Street', 'Oak Avenue', 'Maple Drive', 'Cedar Lane', 'Pine Street', 'Elm Street', 'Park Place'];
const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org'];

type DeviceKind = 'mobile' | 'desktop' | 'tablet';

interface DeviceProfile {
  kind: DeviceKind;
  weight: number;
  userAgent: string;
  screen: [number, number];
  inner: [number, number];
  /** `screen` as the pixel reports it (shared, frozen). */
  screenSize: { width: number; height: number };
  navigators: Map<string, WebPixelsNavigator>;
}

const DEVICE_PROFILES: DeviceProfile[] = (
  [
    {
      kind: 'mobile',
      weight: 34,
      userAgent:
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      screen: [393, 852],
      inner: [393, 659],
    },
    {
      kind: 'mobile',
      weight: 22,
      userAgent:
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
      screen: [412, 915],
      inner: [412, 779],
    },
    {
      kind: 'mobile',
      weight: 8,
      userAgent:
        'Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36',
      screen: [360, 780],
      inner: [360, 658],
    },
    {
      kind: 'desktop',
      weight: 14,
      userAgent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      screen: [1728, 1117],
      inner: [1440, 900],
    },
    {
      kind: 'desktop',
      weight: 6,
      userAgent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      screen: [1512, 982],
      inner: [1512, 859],
    },
    {
      kind: 'desktop',
      weight: 11,
      userAgent:
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      screen: [1920, 1080],
      inner: [1903, 969],
    },
    {
      kind: 'desktop',
      weight: 3,
      userAgent:
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
      screen: [1536, 864],
      inner: [1519, 730],
    },
    {
      kind: 'tablet',
      weight: 2,
      userAgent:
        'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      screen: [820, 1180],
      inner: [820, 1106],
    },
  ] satisfies Omit<DeviceProfile, 'screenSize' | 'navigators'>[]
).map((p) => ({
  ...p,
  screenSize: deepFreeze({ width: p.screen[0], height: p.screen[1] }),
  navigators: new Map<string, WebPixelsNavigator>(),
}));

interface Device {
  /** Global device number (unique within a seed). */
  n: number;
  clientId: string;
  ip: string;
  kind: DeviceKind;
  navigator: WebPixelsNavigator;
  inner: [number, number];
  screen: { width: number; height: number };
  /** An ad blocker stops the pixel: this device's sessions send no event (orders still come, D5 fallback). */
  blocked: boolean;
  /** Landing page path+query and referrer of the first session on this device (the order's landing_site). */
  firstLanding?: { site: string; referrer: string };
  /** Events so far (the `seq` of the next one is this + 1). */
  seq: number;
}

interface Person {
  idx: number;
  first: string;
  last: string;
  email: string;
  phone: string;
  /** Gives the phone number at checkout. */
  sharesPhone: boolean;
  address: MailAddress;
  taxRate: number;
  devices: Device[];
  customerId: string | null;
  /** Orders so far, including the ones before the window (existing customers). */
  orders: number;
  subscribedAt: number | null;
  /** Last session abandoned at checkout with the email given, for the abandoned-checkout email. */
  abandonedAt: number | null;
  lastPurchaseAt: number | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------------------------------

/** Funnel depth of a session. */
enum Stage {
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

interface Touch {
  /** Channel label for the summary (`google_cpc`, `facebook_paid`, `organic_search`, `email`, ...). */
  label: string;
  /** Query string of the landing URL (`""` or `?...`). */
  query: string;
  referrer: string;
  landing: LandingKind;
  /** Collection of the landing page when it is a collection. */
  collection?: string;
  ad?: AdDef;
  /** utm_campaign (emails), for the discount code. */
  campaign?: string;
  /** Purchase propensity, relative. */
  intent: number;
}

interface CartPick {
  variant: CatVariant;
  qty: number;
}

interface CartPlan {
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

interface OrderPlan {
  /** Assigned after planning, in time order. */
  id: string;
  name: string;
  n: number;
  person: Person;
  session: Session;
  customerId: string;
  isFirstOrder: boolean;
  email: string;
  cart: CartPlan;
  createdAt: number;
  landingSite: string;
  referringSite: string | null;
  gateway: { gateway: string; name: string; type: string };
  refund: { at: number; cents: number; full: boolean } | null;
  cancelledAt: number | null;
  /** Ad credited by the platform (last paid click of the person in 7 days). */
  creditAd: { ad: AdDef; day: number } | null;
  hasEvent: boolean;
}

interface Session {
  idx: number;
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
  seqStart: number;
  end: number;
}

/** A page of a session. Its strings are shared ones; the URL and context are only built on expansion. */
interface Page {
  path: string;
  query: string;
  title: string;
  /** The page before (a self-referral), or null on the landing page, whose referrer is the touch's. */
  prev: Page | null;
  href?: string;
  ctx?: Context;
}

type StepName = StorefrontEvent['name'];

interface Step {
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

// ---------------------------------------------------------------------------------------------------------------
// Planner
// ---------------------------------------------------------------------------------------------------------------

// Small fixed distributions (the realism knobs of people, sources and pages).
const LANGUAGES = new Distribution(['en-US', 'en-GB', 'es-US'], [90, 5, 5]);
/** first.last, firstl, flast, first_last. */
const EMAIL_FORMATS = new Distribution([0, 1, 2, 3], [50, 20, 20, 10]);
/** Devices (clientIds) per person. */
const DEVICE_COUNTS = new Distribution([1, 2, 3], [58, 32, 10]);
const SEARCH_ENGINES = new Distribution(
  ['https://www.google.com/', 'https://www.bing.com/', 'https://duckduckgo.com/'],
  [85, 8, 7],
);
const SOCIAL_NETWORKS = new Distribution(['facebook', 'instagram', 'pinterest'], [50, 32, 18]);
const ORGANIC_LANDINGS = new Distribution<LandingKind>(['home', 'product', 'collection'], [40, 35, 25]);
const SOCIAL_LANDINGS = new Distribution<LandingKind>(['home', 'product', 'collection'], [30, 50, 20]);
const DIRECT_LANDINGS = new Distribution<LandingKind>(['home', 'product'], [75, 25]);
/** Distinct products in a cart, and the quantity of each. */
const CART_SIZES = new Distribution([1, 2, 3], [65, 25, 10]);
const QUANTITIES = new Distribution([1, 2, 3], [85, 12, 3]);
/** Pages viewed while browsing, and the forms that capture a lead. */
const BROWSE_KINDS = new Distribution(['product', 'collection', 'search', 'home'], [50, 32, 12, 6]);
const FORM_IDS = new Distribution(['newsletter-popup', 'footer-newsletter', 'contact-form'], [70, 25, 5]);

const SALT = {
  person: 0x5e0a1,
  session: 0x5e55,
  spend: 0x5bed,
  mask: 0x3a5c,
  order: 0x0d3e,
} as const;

interface PlannerContext {
  campaignByKey: Map<string, CampaignDef>;
  seed: number;
  keys: [number, number];
  startMs: number;
  endMs: number;
  days: number;
  cat: Catalogue;
  campaigns: CampaignDef[];
  ads: AdDef[];
  /** Day of a person's first visit: weekends and the sale flight are busier, traffic grows a little. */
  dayDist: Distribution<number>;
  idMask: [number, number];
  emailTag: string;
  deviceCount: number;
  sessionCount: number;
}

function isActive(c: CampaignDef, ctx: PlannerContext, at: number): boolean {
  const f = (at - ctx.startMs) / (ctx.endMs - ctx.startMs);
  return f >= c.flight[0] && f < c.flight[1];
}

function dayOf(ctx: PlannerContext, at: number): number {
  return Math.floor((at - ctx.startMs) / DAY);
}

/** Navigator snapshots are shared (and frozen) per device profile and language. */
function navigatorOf(profile: DeviceProfile, language: string): WebPixelsNavigator {
  let nav = profile.navigators.get(language);
  if (!nav) {
    nav = deepFreeze({
      cookieEnabled: true,
      language,
      languages: language === 'en-US' ? ['en-US', 'en'] : [language, 'en-US', 'en'],
      userAgent: profile.userAgent,
    });
    profile.navigators.set(language, nav);
  }
  return nav;
}

const PROFILE_POOLS = new Map<DeviceKind | null, { pool: DeviceProfile[]; weights: number[] }>(
  ([null, 'mobile', 'desktop', 'tablet'] as const).map((kind) => {
    const pool = DEVICE_PROFILES.filter((p) => kind === null || p.kind === kind);
    return [kind, { pool, weights: pool.map((p) => p.weight) }];
  }),
);

function makeDevice(ctx: PlannerContext, rng: Rng, profile: DeviceProfile): Device {
  const n = ctx.deviceCount++;
  const ip =
    profile.kind === 'mobile' && rng.chance(0.5)
      ? `2001:db8:${rng.hex(4)}:${rng.hex(4)}::${rng.hex(3)}`
      : `${rng.pick(['203.0.113', '198.51.100', '192.0.2'])}.${rng.between(1, 254)}`;
  const language = LANGUAGES.sample(rng);
  return {
    n,
    clientId: uniqueUuid(rng, ctx.idMask, n),
    ip,
    kind: profile.kind,
    navigator: navigatorOf(profile, language),
    inner: profile.inner,
    screen: profile.screenSize,
    blocked: rng.chance(0.03),
    seq: 0,
  };
}

function pickProfile(rng: Rng, kind: DeviceKind | null): DeviceProfile {
  const { pool, weights } = PROFILE_POOLS.get(kind)!;
  return rng.weighted(pool, weights);
}

function makePerson(ctx: PlannerContext, rng: Rng, idx: number): Person {
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  const f = first.toLowerCase();
  const l = last.toLowerCase();
  const format = EMAIL_FORMATS.sample(rng);
  const local =
    format === 0
      ? flat(f, '.', l)
      : format === 1
        ? flat(f, l.charAt(0))
        : format === 2
          ? flat(f.charAt(0), l)
          : flat(f, '_', l);
  const city = rng.pick(CITIES);
  const nDevices = DEVICE_COUNTS.sample(rng);
  const devices: Device[] = [];
  const firstProfile = pickProfile(rng, null);
  devices.push(makeDevice(ctx, rng, firstProfile));
  for (let i = 1; i < nDevices; i++) {
    const kind: DeviceKind =
      firstProfile.kind === 'mobile'
        ? rng.chance(0.8)
          ? 'desktop'
          : 'tablet'
        : rng.chance(0.85)
          ? 'mobile'
          : 'tablet';
    devices.push(makeDevice(ctx, rng, pickProfile(rng, i === 2 && kind === 'desktop' ? 'tablet' : kind)));
  }
  // About 8% are customers from before the window: subscribed, with earlier orders.
  const existing = rng.chance(0.08);
  // And about 12% more joined the newsletter before the window without buying.
  const subscriber = existing ? rng.chance(0.7) : rng.chance(0.13);
  return {
    idx,
    first,
    last,
    email: flat(local, '.', ctx.emailTag, idx, '@', rng.pick(EMAIL_DOMAINS)),
    phone: flat('+1', city.area, '55501', String(rng.int(100)).padStart(2, '0')),
    sharesPhone: rng.chance(0.4),
    address: {
      address1: flat(rng.between(1, 2999), ' ', rng.pick(STREETS)),
      address2: rng.chance(0.2) ? `Apt ${rng.between(1, 40)}` : null,
      city: city.city,
      country: 'United States',
      countryCode: 'US',
      firstName: first,
      lastName: last,
      phone: null,
      province: city.province,
      provinceCode: city.code,
      zip: city.zip,
    },
    taxRate: city.tax,
    devices,
    customerId: existing ? customerIdOf(ctx, rng) : null,
    orders: existing ? rng.between(1, 4) : 0,
    subscribedAt: subscriber ? ctx.startMs - rng.between(20, 400) * DAY : null,
    abandonedAt: null,
    lastPurchaseAt: null,
  };
}

function customerIdOf(ctx: PlannerContext, rng: Rng): string {
  // 13 digits; the per-seed block keeps different seeds apart in one store (collisions are unlikely, not impossible).
  return String(7_000_000_000_000 + (fmix32(ctx.keys[0] ^ SALT.order) % 2_000_000) * 1_000_000 + rng.int(1_000_000));
}

/** Start of a person's first session: a day by weight (weekends busier, sale flight busier), then an hour. */
function firstVisitAt(ctx: PlannerContext, rng: Rng): number {
  const day = ctx.dayDist.sample(rng);
  const hour = HOUR_DIST.sample(rng);
  return ctx.startMs + day * DAY + hour * HOUR + rng.int(HOUR);
}

function randomQuery(rng: Rng, len: number): string {
  return rng.chars(len, B64URL);
}

function withParams(params: [string, string][]): string {
  if (params.length === 0) return '';
  const parts: string[] = [];
  for (const [k, v] of params)
    parts.push(parts.length === 0 ? '?' : '&', k, '=', encodeURIComponent(v).replace(/%20/g, '+'));
  return parts.join('');
}

const CLICK_IDS: Record<Platform, { key: string; prefix: string; length: number }> = {
  google: { key: 'gclid', prefix: 'Cj0KCQjw', length: 84 },
  facebook: { key: 'fbclid', prefix: 'IwZXh0bgNhZW0BMABhZGlkA', length: 60 },
  tiktok: { key: 'ttclid', prefix: 'E.C.P.', length: 72 },
};
const FACEBOOK_REFERRERS = ['https://l.facebook.com/', 'https://m.facebook.com/', ''];

/** A click on an ad: its utm parameters (static per ad, but for the keyword) and a fresh click id. */
function paidTouch(rng: Rng, c: CampaignDef): Touch {
  const a = rng.pick(c.ads);
  const clickIdOnly = rng.chance(c.clickIdOnly);
  const click = CLICK_IDS[c.platform];
  // Click ids are base64url: nothing to escape.
  const clickParam = flat(click.key, '=', click.prefix, rng.chars(click.length, B64URL));
  const query = clickIdOnly
    ? flat('?', clickParam)
    : flat(a.utmQuery, a.termParams ? rng.pick(a.termParams) : '', a.utmIdParam, '&', clickParam);
  let referrer = '';
  let label: string;
  switch (c.platform) {
    case 'google':
      referrer = 'https://www.google.com/';
      label = clickIdOnly ? 'google_cpc_gclid_only' : 'google_cpc';
      break;
    case 'facebook':
      referrer = a.source === 'instagram' ? 'https://l.instagram.com/' : rng.pick(FACEBOOK_REFERRERS);
      label = a.source === 'instagram' ? 'instagram_paid' : 'facebook_paid';
      break;
    case 'tiktok':
      referrer = rng.chance(0.6) ? 'https://www.tiktok.com/' : '';
      label = clickIdOnly ? 'tiktok_ttclid_only' : 'tiktok_paid';
      break;
  }
  return {
    label,
    query,
    referrer,
    landing: c.landing,
    collection: a.collection ?? (c.landing === 'sale' ? 'spring-sale' : undefined),
    ad: a,
    intent: c.intent,
  };
}

/** Session sources; the paid ones are campaign keys. */
const TOUCH_KINDS = [
  'brand_search',
  'generic_search',
  'shopping_feed',
  'spring_sale',
  'prospecting_broad',
  'retargeting_30d',
  'ugc_creators',
  'organic_search',
  'organic_social',
  'referral',
  'direct',
  'email',
] as const;
/**
 * Source mix of a person's first session and of the later ones, by `TOUCH_KINDS` index. Outside the spring sale
 * flight its share goes to prospecting (first sessions); email needs a subscriber (60 after an abandoned checkout).
 */
const FIRST_TOUCH_WEIGHTS = [3, 7, 9, 16, 9, 0, 7, 18, 8, 6, 11, 10];
const RETURN_TOUCH_WEIGHTS = [12, 0, 3, 4, 2, 14, 2, 14, 5, 3, 24, 28];

/** The source of a session (acquisition for the first one, returning mix afterwards). */
function chooseTouch(ctx: PlannerContext, rng: Rng, person: Person, i: number, at: number): Touch {
  const subscribed = person.subscribedAt !== null && person.subscribedAt <= at;
  const abandoned = person.abandonedAt !== null && at - person.abandonedAt < 3 * DAY && subscribed;
  const sale = isActive(ctx.campaignByKey.get('spring_sale')!, ctx, at);
  const weights = [...(i === 0 ? FIRST_TOUCH_WEIGHTS : RETURN_TOUCH_WEIGHTS)];
  if (!sale) {
    if (i === 0) weights[4] = weights[4]! + weights[3]!;
    weights[3] = 0;
  }
  weights[11] = abandoned ? 60 : subscribed ? weights[11]! : 0;
  const kind = rng.weighted(TOUCH_KINDS, weights);
  switch (kind) {
    case 'brand_search':
    case 'generic_search':
    case 'shopping_feed':
    case 'spring_sale':
    case 'prospecting_broad':
    case 'retargeting_30d':
    case 'ugc_creators':
      return paidTouch(rng, ctx.campaignByKey.get(kind)!);
    case 'organic_search': {
      const referrer = SEARCH_ENGINES.sample(rng);
      return {
        label: 'organic_search',
        query: '',
        referrer,
        landing: ORGANIC_LANDINGS.sample(rng),
        intent: 1,
      };
    }
    case 'organic_social': {
      const network = SOCIAL_NETWORKS.sample(rng);
      const referrer =
        network === 'facebook'
          ? 'https://l.facebook.com/'
          : network === 'instagram'
            ? 'https://l.instagram.com/'
            : 'https://www.pinterest.com/';
      // Meta adds fbclid to organic outbound links too.
      const query =
        network !== 'pinterest' && rng.chance(0.5) ? withParams([['fbclid', `IwAR${randomQuery(rng, 56)}`]]) : '';
      return {
        label: 'organic_social',
        query,
        referrer,
        landing: SOCIAL_LANDINGS.sample(rng),
        intent: 0.5,
      };
    }
    case 'referral': {
      const blog = rng.pick([
        { ref: 'https://www.thestylebrief.example/best-basics-2025/', landing: 'collection' as const },
        { ref: 'https://blog.outdoorweekly.example/gear/rain-jackets-tested', landing: 'product' as const },
        { ref: 'https://www.reddit.com/r/malefashionadvice/comments/1c2x3v4/', landing: 'product' as const },
      ]);
      return { label: 'referral', query: '', referrer: blog.ref, landing: blog.landing, intent: 1.1 };
    }
    case 'email': {
      const campaignName = abandoned
        ? 'abandoned_checkout'
        : person.subscribedAt !== null && at - person.subscribedAt < 10 * DAY
          ? 'welcome_series'
          : sale && rng.chance(0.5)
            ? 'spring_sale_launch'
            : 'weekly_newsletter';
      const params: [string, string][] = [
        ['utm_source', 'klaviyo'],
        ['utm_medium', 'email'],
        ['utm_campaign', campaignName],
        ['utm_content', rng.pick(['hero_button', 'product_grid', 'footer_link'])],
        ['_kx', `${randomQuery(rng, 22)}.${rng.pick(['Xt9kLm', 'Rq4wPz', 'Ub7nHs'])}`],
      ];
      return {
        label: 'email',
        query: withParams(params),
        referrer: rng.chance(0.15) ? 'https://mail.google.com/' : '',
        landing: abandoned
          ? 'home'
          : campaignName === 'spring_sale_launch'
            ? 'sale'
            : rng.pick(['home', 'collection', 'product']),
        collection: campaignName === 'spring_sale_launch' ? 'spring-sale' : undefined,
        campaign: campaignName,
        intent: abandoned ? 4 : 2.2,
      };
    }
    case 'direct':
      return {
        label: 'direct',
        query: '',
        referrer: '',
        landing: DIRECT_LANDINGS.sample(rng),
        intent: i > 0 ? 1.5 : 1,
      };
  }
}

function pickProduct(ctx: PlannerContext, rng: Rng, within?: CatCollection | null): CatProduct {
  if (within && within.products.length > 0) return rng.pick(within.products);
  return ctx.cat.productDist.sample(rng);
}

function pickVariant(rng: Rng, product: CatProduct): CatVariant {
  return rng.pick(product.variants);
}

function planCart(ctx: PlannerContext, rng: Rng, s: Session, sessionRngKey: number): CartPlan {
  const nLines = CART_SIZES.sample(rng);
  const lines: CartPick[] = [];
  const used = new Set<CatProduct>();
  for (let i = 0; i < nLines; i++) {
    let product =
      i === 0 && s.landingProduct && rng.chance(0.65)
        ? s.landingProduct
        : pickProduct(ctx, rng, i === 0 ? s.landingCollection : null);
    for (let tries = 0; used.has(product) && tries < 5; tries++) product = pickProduct(ctx, rng);
    if (used.has(product)) continue;
    used.add(product);
    lines.push({ variant: pickVariant(rng, product), qty: QUANTITIES.sample(rng) });
  }
  const campaign = s.touch.ad?.campaign.key ?? s.touch.campaign;
  const discountCode =
    campaign === 'spring_sale' || campaign === 'spring_sale_launch'
      ? rng.chance(0.7)
        ? 'SPRING15'
        : null
      : campaign === 'welcome_series'
        ? 'WELCOME10'
        : rng.chance(0.04)
          ? 'FRIENDS10'
          : null;
  const pct = discountCode === 'SPRING15' ? 15 : discountCode ? 10 : 0;
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
  const shipping = subtotal >= 7500 ? 0 : 595;
  const tax = Math.round(subtotal * s.person.taxRate);
  const tokenRng = new Rng(ctx.keys[0], ctx.keys[1], SALT.order, sessionRngKey);
  const token = flat(tokenRng.hex(20), hex8(s.idx ^ ctx.idMask[0]), tokenRng.hex(4));
  return {
    lines,
    token,
    checkoutPath: flat('/checkouts/cn/', token),
    thankYouPath: flat('/checkouts/cn/', token, '/thank-you'),
    cartId: flat('Z2NwLXVzLWVhc3QxOjAxSj', tokenRng.chars(20, ALNUM)),
    discountCode,
    gross,
    alloc,
    grossTotal,
    discount,
    subtotal,
    shipping,
    tax,
    total: subtotal + shipping + tax,
  };
}

function emailVariant(rng: Rng, email: string): string {
  // Some buyers type their address with capitals; identity must normalize it (D5).
  if (!rng.chance(0.12)) return email;
  const [local = '', domain = ''] = email.split('@');
  return `${local.charAt(0).toUpperCase()}${local.slice(1)}@${rng.chance(0.5) ? domain.charAt(0).toUpperCase() + domain.slice(1) : domain}`;
}

const GATEWAYS = [
  { gateway: 'shopify_payments', name: 'Visa', type: 'creditCard', w: 45 },
  { gateway: 'shopify_payments', name: 'Mastercard', type: 'creditCard', w: 20 },
  { gateway: 'shopify_payments', name: 'Apple Pay', type: 'wallet', w: 18 },
  { gateway: 'paypal', name: 'PayPal', type: 'offsite', w: 12 },
  { gateway: 'shopify_payments', name: 'Shop Pay', type: 'wallet', w: 5 },
];
const GATEWAY_DIST = new Distribution(
  GATEWAYS,
  GATEWAYS.map((g) => g.w),
);

interface PersonOutcome {
  sessions: Session[];
  orders: OrderPlan[];
}

/** Plans one person's journey (sessions over days on 1-3 devices); returns it cut to `budget` events. */
function planPerson(ctx: PlannerContext, idx: number, budget: number): PersonOutcome {
  const rng = new Rng(ctx.keys[0], ctx.keys[1], SALT.person, idx);
  const person = makePerson(ctx, rng, idx);
  const sessions: Session[] = [];
  const orders: OrderPlan[] = [];
  const lastStart = ctx.endMs - 90 * MINUTE;
  let t = firstVisitAt(ctx, rng);
  const multi = person.devices.length > 1;
  let used = 0;
  for (let i = 0; i < 14 && t < lastStart; i++) {
    const device =
      i === 0
        ? person.devices[0]!
        : // The first device a little less often than each of the others (people move to the laptop to buy).
          rng.chance(1 / (1 + 1.6 * (person.devices.length - 1)))
          ? person.devices[0]!
          : person.devices[1 + rng.int(person.devices.length - 1)]!;
    const touch = chooseTouch(ctx, rng, person, i, t);
    const sessionIdx = ctx.sessionCount++;
    const seed = rng.u32();
    const landingCollection =
      touch.landing === 'collection' || touch.landing === 'sale'
        ? ((touch.collection ? ctx.cat.byHandle.get(touch.collection) : undefined) ??
          ctx.cat.collectionDist.sample(rng))
        : null;
    const landingProduct = touch.landing === 'product' ? pickProduct(ctx, rng) : null;
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
    // Purchase propensity: channel intent, returning visits, desktop, recent purchase.
    const deviceMult = device.kind === 'desktop' ? 1.35 : device.kind === 'tablet' ? 1 : 0.8;
    const visitMult = i === 0 ? 0.55 : 1.25;
    const recent = person.lastPurchaseAt !== null && t - person.lastPurchaseAt < 14 * DAY ? 0.35 : 1;
    const pBuy = Math.min(0.6, 0.03 * touch.intent * deviceMult * visitMult * recent);
    s.stage = rng.chance(pBuy) ? Stage.Purchase : STAGE_DIST.sample(rng);
    if (s.stage >= Stage.AddToCart) s.cart = planCart(ctx, rng, s, sessionIdx);
    const subscribed = person.subscribedAt !== null && person.subscribedAt <= t;
    s.lead = !subscribed && rng.chance(0.03);
    s.knownEmail = person.customerId !== null && rng.chance(0.5);
    s.checkoutEmail = emailVariant(rng, person.email);
    s.acceptsMarketing = rng.chance(0.55);
    if (s.stage === Stage.Purchase) {
      const isFirst = person.orders === 0;
      if (person.customerId === null) person.customerId = customerIdOf(ctx, rng);
      const refundRoll = rng.next();
      const order: OrderPlan = {
        id: '',
        name: '',
        n: 0,
        person,
        session: s,
        customerId: person.customerId,
        isFirstOrder: isFirst,
        email: person.email,
        cart: s.cart!,
        createdAt: 0,
        landingSite: '',
        referringSite: null,
        gateway: GATEWAY_DIST.sample(rng),
        refund: null,
        cancelledAt: null,
        creditAd: null,
        hasEvent: !device.blocked,
      };
      if (refundRoll < 0.012) order.cancelledAt = rng.between(2 * HOUR, 30 * HOUR);
      else if (refundRoll < 0.082) {
        const cart = s.cart!;
        const full = cart.lines.length === 1 ? rng.chance(0.6) : rng.chance(0.3);
        const lineCents =
          cart.lines.length > 1 ? cart.gross[0]! - cart.alloc[0]! : Math.round(cart.total * rng.uniform(0.2, 0.5));
        order.refund = { at: rng.between(2 * DAY, 12 * DAY), cents: full ? cart.total : lineCents, full };
      }
      s.order = order;
      person.orders++;
    }
    // The steps decide the session's length and event count; they are rebuilt identically on expansion.
    const steps = buildSteps(ctx, s);
    s.steps = steps.length;
    s.eventCount = device.blocked ? 0 : steps.length;
    s.end = steps[steps.length - 1]!.at;
    // A long session that would run past the window is not had: the journey stops here.
    if (s.end >= ctx.endMs) break;
    if (!device.firstLanding) {
      device.firstLanding = { site: flat(landingPath(s), touch.query), referrer: touch.referrer };
    }
    if (s.order) {
      const completedAt = s.end;
      s.order.createdAt = completedAt - rng.between(1500, 4000);
      s.order.landingSite = device.firstLanding.site;
      s.order.referringSite = device.firstLanding.referrer === '' ? null : device.firstLanding.referrer;
      if (s.order.cancelledAt !== null)
        s.order.cancelledAt = Math.min(s.order.createdAt + s.order.cancelledAt, ctx.endMs - MINUTE);
      if (s.order.refund) {
        s.order.refund.at = Math.min(s.order.createdAt + s.order.refund.at, ctx.endMs - MINUTE);
      }
      // Keep later versions strictly after the first one.
      if (s.order.cancelledAt !== null)
        s.order.cancelledAt = Math.max(s.order.cancelledAt, s.order.createdAt + 10 * MINUTE);
      if (s.order.refund) s.order.refund.at = Math.max(s.order.refund.at, s.order.createdAt + 30 * MINUTE);
      orders.push(s.order);
      person.lastPurchaseAt = t;
      if (s.acceptsMarketing && person.subscribedAt === null) person.subscribedAt = s.end;
    } else if (s.stage >= Stage.ContactInfo && s.acceptsMarketing) {
      if (person.subscribedAt === null) person.subscribedAt = s.end;
      person.abandonedAt = s.end;
    }
    if (s.lead && person.subscribedAt === null) person.subscribedAt = s.end;

    // Exact event count: cut the session that crosses the budget and stop.
    if (used + s.eventCount >= budget) {
      const keep = budget - used;
      if (keep < s.eventCount) {
        s.eventCount = keep;
        if (s.order && s.order.hasEvent) {
          orders.pop();
          s.order = null;
        }
      }
      if (s.eventCount > 0 || device.blocked) sessions.push(s);
      used += s.eventCount;
      break;
    }
    used += s.eventCount;
    sessions.push(s);

    // Next session: more likely for multi-device people, after an abandoned checkout, and after a purchase.
    let pNext = multi ? 0.64 : 0.44;
    if (s.stage >= Stage.AddToCart && s.stage < Stage.Purchase) pNext += 0.15;
    if (s.stage === Stage.Purchase) pNext = 0.5;
    if (!rng.chance(pNext)) break;
    const abandonedEmail = person.abandonedAt === s.end;
    const gap = abandonedEmail
      ? rng.between(3 * HOUR, 26 * HOUR)
      : rng.weighted(
          [rng.between(HOUR, 8 * HOUR), Math.round(rng.exp(2.5 * DAY)), rng.between(5 * DAY, 12 * DAY)],
          [25, 50, 25],
        );
    t = Math.max(s.end + 35 * MINUTE, t + gap);
    // Land on a round-ish hour of the visitor's day, not in the middle of the night when the gap is long.
    if (gap > DAY) {
      const dayStart = ctx.startMs + dayOf(ctx, t) * DAY;
      const candidate = dayStart + HOUR_DIST.sample(rng) * HOUR + rng.int(HOUR);
      if (candidate > s.end + 35 * MINUTE) t = candidate;
    }
  }
  for (const s of sessions) {
    s.seqStart = s.device.seq + 1;
    s.device.seq += s.eventCount;
  }
  return { sessions, orders };
}

function landingPath(s: Session): string {
  return s.landingProduct?.path ?? s.landingCollection?.path ?? '/';
}

// ---------------------------------------------------------------------------------------------------------------
// Session steps (built at plan time for the count, again on expansion for the events)
// ---------------------------------------------------------------------------------------------------------------

/** The steps (future events) of a session, from its own PRNG: the same session always gives the same steps. */
function buildSteps(ctx: PlannerContext, s: Session): Step[] {
  return new StepBuilder(ctx, s).build();
}

class StepBuilder {
  private readonly steps: Step[] = [];
  private readonly rng: Rng;
  private t: number;
  private page: Page | null = null;

  constructor(
    private readonly ctx: PlannerContext,
    private readonly s: Session,
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
    const { ctx, s, rng } = this;
    const cat = ctx.cat;

    // Landing page.
    if (s.landingProduct) this.viewProduct(s.landingProduct, s.touch.query);
    else if (s.landingCollection) this.viewCollection(s.landingCollection, s.touch.query);
    else this.go('/', s.touch.query, cat.homeTitle);

    if (s.lead) {
      this.steps.push({
        at: this.after(this.dwell(25 * SECOND, 8 * SECOND)),
        name: 'lead_form_submitted',
        page: this.page!,
        formId: FORM_IDS.sample(rng),
      });
    }

    // Browsing.
    const browse =
      s.stage === Stage.Bounce ? 0 : s.stage === Stage.Browse ? 1 + Math.min(7, Math.floor(rng.exp(1.8))) : rng.int(3);
    for (let i = 0; i < browse; i++) {
      const kind = BROWSE_KINDS.sample(rng);
      if (kind === 'product') this.viewProduct(pickProduct(ctx, rng));
      else if (kind === 'collection') this.viewCollection(cat.collectionDist.sample(rng));
      else if (kind === 'search') {
        const search = rng.pick(cat.searches);
        const page = this.go('/search', search.urlQuery, search.pageTitle);
        this.steps.push({ at: this.after(rng.between(100, 600)), name: 'search_submitted', page, search });
      } else this.go('/', '', cat.homeTitle);
    }

    const cart = s.cart;
    if (s.stage < Stage.AddToCart || !cart) return this.steps;

    // Add the cart's lines from their product pages (the cart drawer opens; no page change).
    const added = [...cart.lines];
    for (const line of cart.lines) this.addLine(line);
    // Sometimes one more item goes in, to come out again on the cart page.
    if (s.stage >= Stage.CartViewed && rng.chance(0.1)) {
      const extra = { variant: pickVariant(rng, pickProduct(ctx, rng)), qty: 1 };
      if (!cart.lines.some((l) => l.variant.product === extra.variant.product)) {
        this.addLine(extra);
        added.push(extra);
      }
    }
    if (s.stage < Stage.CartViewed) return this.steps;

    const cartPage = this.go('/cart', '', cat.cartTitle);
    this.steps.push({ at: this.after(rng.between(200, 900)), name: 'cart_viewed', page: cartPage, lines: added });
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
    if (s.stage < Stage.CheckoutStarted) return this.steps;

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
    return this.steps;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Event expansion
// ---------------------------------------------------------------------------------------------------------------

function hrefOf(cat: Catalogue, page: Page): string {
  return (page.href ??= flat(cat.origin, page.path, page.query));
}

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

/** Checkout objects of one session, by funnel level (lines shared between the session's events). */
class CheckoutBuilder {
  private readonly lineItems: CheckoutLineItem[];
  private readonly discounts: DiscountApplication[];

  constructor(
    private readonly s: Session,
    private readonly cart: CartPlan,
  ) {
    const application: DiscountApplication | null = cart.discountCode
      ? {
          allocationMethod: 'ACROSS',
          targetSelection: 'ALL',
          targetType: 'LINE_ITEM',
          title: cart.discountCode,
          type: 'DISCOUNT_CODE',
          value: { percentage: cart.discountCode === 'SPRING15' ? 15 : 10 },
        }
      : null;
    this.discounts = application ? [application] : [];
    this.lineItems = cart.lines.map((l, i) => ({
      discountAllocations:
        application && cart.alloc[i]! > 0 ? [{ amount: usd(cart.alloc[i]!), discountApplication: application }] : [],
      finalLinePrice: usd(cart.gross[i]! - cart.alloc[i]!),
      id: l.variant.id,
      properties: [],
      quantity: l.qty,
      sellingPlanAllocation: null,
      title: l.variant.product.title,
      variant: l.variant.pixel,
    }));
  }

  checkout(name: StepName): Checkout {
    const { s, cart } = this;
    const level =
      name === 'checkout_started'
        ? 0
        : name === 'checkout_contact_info_submitted'
          ? 1
          : name === 'checkout_address_info_submitted'
            ? 2
            : name === 'checkout_shipping_info_submitted'
              ? 3
              : name === 'payment_info_submitted'
                ? 4
                : 5;
    const shipped = level >= 3;
    const address = level >= 2 ? { ...s.person.address } : null;
    const shippingCents = shipped ? cart.shipping : 0;
    const taxCents = shipped ? cart.tax : 0;
    const total = cart.subtotal + shippingCents + taxCents;
    const email = level >= 1 || s.knownEmail ? s.checkoutEmail : null;
    return {
      attributes: [],
      billingAddress: level >= 4 ? { ...s.person.address } : null,
      buyerAcceptsEmailMarketing: level >= 1 ? s.acceptsMarketing : false,
      buyerAcceptsSmsMarketing: false,
      currencyCode: DEMO_CURRENCY,
      delivery: shipped
        ? {
            selectedDeliveryOptions: [
              {
                cost: usd(cart.shipping),
                costAfterDiscounts: usd(cart.shipping),
                description: null,
                handle: cart.shipping === 0 ? 'free-shipping' : 'standard-shipping',
                title: cart.shipping === 0 ? 'Free Shipping' : 'Standard',
                type: 'shipping',
              },
            ],
          }
        : null,
      discountApplications: this.discounts,
      discountsAmount: usd(cart.discount),
      email,
      lineItems: this.lineItems,
      localization: {
        country: { isoCode: 'US' },
        language: { isoCode: 'en' },
        market: { handle: 'us', id: 'gid://shopify/Market/1234567' },
      },
      order: null,
      phone: level >= 2 && s.person.sharesPhone ? s.person.phone : null,
      shippingAddress: address,
      shippingLine: shipped ? { price: usd(cart.shipping) } : null,
      smsMarketingPhone: null,
      subtotalPrice: usd(cart.subtotal),
      token: cart.token,
      totalPrice: usd(total),
      totalTax: usd(taxCents),
      transactions: [],
    };
  }

  completed(): CompletedCheckout {
    const order = this.s.order!;
    const base = this.checkout('checkout_completed');
    return {
      ...base,
      order: { id: order.id, customer: { id: order.customerId, isFirstOrder: order.isFirstOrder } },
      transactions: [
        {
          amount: usd(this.cart.total),
          gateway: order.gateway.gateway,
          paymentMethod: { name: order.gateway.name, type: order.gateway.type },
        },
      ],
    };
  }
}

/** The events of one session, in order (cut to `eventCount`). */
function expandSession(ctx: PlannerContext, s: Session): { events: StorefrontEvent[]; times: number[] } {
  const steps = buildSteps(ctx, s);
  if (steps.length !== s.steps)
    throw new Error(`demo: session ${s.idx} rebuilt ${steps.length} steps, planned ${s.steps}`);
  const n = s.eventCount;
  const idRng = new Rng(ctx.keys[0], ctx.keys[1], SALT.mask, s.idx);
  const { person, device } = s;
  const cat = ctx.cat;
  const checkout = s.cart && s.stage >= Stage.CheckoutStarted ? new CheckoutBuilder(s, s.cart) : null;
  const events: StorefrontEvent[] = [];
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const step = steps[i]!;
    const base = {
      id: `sh-${uniqueUuid(idRng, ctx.idMask, s.idx * 256 + i)}`,
      clientId: device.clientId,
      clientIp: device.ip,
      seq: s.seqStart + i,
      type: 'standard',
      timestamp: iso(step.at),
      context: contextOf(cat, device, step.page, s.touch.referrer),
    };
    let event: StorefrontEvent;
    switch (step.name) {
      case 'page_viewed':
        event = { ...base, name: step.name, data: {} };
        break;
      case 'product_viewed':
        event = { ...base, name: step.name, data: { productVariant: step.variant!.pixel } };
        break;
      case 'collection_viewed':
        event = { ...base, name: step.name, data: { collection: step.collection!.pixel } };
        break;
      case 'search_submitted':
        event = { ...base, name: step.name, data: { searchResult: step.search!.pixel } };
        break;
      case 'product_added_to_cart':
        event = { ...base, name: step.name, data: { cartLine: cartLineOf(step.variant!, step.qty!) } };
        break;
      case 'product_removed_from_cart':
        event = { ...base, name: step.name, data: { cartLine: cartLineOf(step.variant!, step.qty!) } };
        break;
      case 'cart_viewed': {
        const lines = step.lines!.map((l) => cartLineOf(l.variant, l.qty));
        const cart: Cart = {
          attributes: [],
          cost: { totalAmount: usd(step.lines!.reduce((a, l) => a + l.variant.priceCents * l.qty, 0)) },
          id: s.cart!.cartId,
          lines,
          totalQuantity: step.lines!.reduce((a, l) => a + l.qty, 0),
        };
        event = { ...base, name: step.name, data: { cart } };
        break;
      }
      case 'lead_form_submitted':
        event = {
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
        break;
      case 'checkout_started':
      case 'checkout_contact_info_submitted':
      case 'checkout_address_info_submitted':
      case 'checkout_shipping_info_submitted':
      case 'payment_info_submitted':
        event = { ...base, name: step.name, data: { checkout: checkout!.checkout(step.name) } };
        break;
      case 'checkout_completed':
        event = { ...base, name: step.name, data: { checkout: checkout!.completed() } };
        break;
    }
    events.push(event);
    times.push(step.at);
  }
  return { events, times };
}

// ---------------------------------------------------------------------------------------------------------------
// Orders and ad spend
// ---------------------------------------------------------------------------------------------------------------

/** Members of Shopify's order that the service does not use but real pushes carry (kept by the validator). */
type DemoOrder = ShopOrder & {
  source_name?: string;
  discount_codes?: { code: string; amount: string; type: string }[];
  cancel_reason?: string | null;
};

function orderVersions(ctx: PlannerContext, o: OrderPlan): { at: number; order: DemoOrder }[] {
  const cart = o.cart;
  const person = o.person;
  const lineItems: ShopOrderLineItem[] = cart.lines.map((l, i) => ({
    id: String(14_100_000_000_000 + o.n * 8 + i + (fmix32(ctx.keys[0] ^ 0x11) % 100_000) * 10_000_000),
    variant_id: l.variant.id,
    product_id: l.variant.product.id,
    title: l.variant.product.title,
    variant_title: l.variant.title,
    sku: l.variant.sku,
    vendor: ctx.cat.storeName,
    quantity: l.qty,
    price: decimal(l.variant.priceCents),
  }));
  const created = isoSeconds(o.createdAt);
  const first: DemoOrder = {
    id: o.id,
    name: o.name,
    email: o.email,
    created_at: created,
    updated_at: isoSeconds(o.createdAt + 5 * SECOND),
    processed_at: created,
    cancelled_at: null,
    currency: DEMO_CURRENCY,
    presentment_currency: DEMO_CURRENCY,
    total_price: decimal(cart.total),
    subtotal_price: decimal(cart.subtotal),
    total_discounts: decimal(cart.discount),
    total_tax: decimal(cart.tax),
    financial_status: 'paid',
    landing_site: o.landingSite,
    referring_site: o.referringSite,
    checkout_token: cart.token,
    customer: { id: o.customerId, email: o.email, first_name: person.first, last_name: person.last },
    line_items: lineItems,
    refunds: [],
    source_name: 'web',
    discount_codes: cart.discountCode
      ? [{ code: cart.discountCode, amount: decimal(cart.discount), type: 'percentage' }]
      : [],
  };
  // The first version is pushed just after checkout_completed (its updated_at).
  const out: { at: number; order: DemoOrder }[] = [{ at: o.createdAt + 5 * SECOND, order: first }];
  if (o.cancelledAt !== null) {
    out.push({
      at: o.cancelledAt,
      order: {
        ...first,
        updated_at: isoSeconds(o.cancelledAt),
        cancelled_at: isoSeconds(o.cancelledAt),
        financial_status: 'voided',
        cancel_reason: 'customer',
      },
    });
  } else if (o.refund) {
    const r = o.refund;
    out.push({
      at: r.at,
      order: {
        ...first,
        updated_at: isoSeconds(r.at),
        financial_status: r.full ? 'refunded' : 'partially_refunded',
        refunds: [
          {
            id: String(9_200_000_000_000 + o.n + (fmix32(ctx.keys[0] ^ 0x22) % 100_000) * 10_000_000),
            created_at: isoSeconds(r.at),
            transactions: [{ kind: 'refund', status: 'success', amount: decimal(r.cents) }],
          },
        ],
      },
    });
  }
  return out;
}

function buildAdSpend(
  ctx: PlannerContext,
  clicks: Map<number, number[]>,
  value: Map<number, number[]>,
): { rows: AdSpendRow[]; total: number } {
  const rows: AdSpendRow[] = [];
  let total = 0;
  for (let day = 0; day < ctx.days; day++) {
    const dayMs = ctx.startMs + day * DAY;
    for (const ad of ctx.ads) {
      const c = ad.campaign;
      if (!isActive(c, ctx, dayMs + 12 * HOUR)) continue;
      const rng = new Rng(ctx.keys[0], ctx.keys[1], SALT.spend, ad.index, day);
      const sessions = clicks.get(ad.index)?.[day] ?? 0;
      // Platforms count more clicks than the store sees sessions (bounces before the page loads, bots).
      const adClicks = sessions === 0 ? (rng.chance(0.3) ? 1 : 0) : Math.round(sessions * rng.uniform(1.08, 1.35));
      const ctr = c.ctr * rng.uniform(0.8, 1.2);
      const impressions = Math.max(adClicks, Math.round((adClicks + rng.uniform(0.2, 0.8)) / ctr));
      const spendCents =
        adClicks === 0
          ? Math.round(impressions * c.cpcCents * c.ctr * rng.uniform(0.5, 1))
          : Math.round(adClicks * c.cpcCents * rng.uniform(0.85, 1.15));
      const reported = (value.get(ad.index)?.[day] ?? 0) * rng.uniform(0.85, 1.25);
      total += spendCents;
      rows.push({
        date: isoDay(dayMs),
        platform: c.platform,
        account_id: c.accountId,
        campaign_id: c.campaignId,
        campaign_name: c.campaignName,
        adset_id: ad.adsetId,
        adset_name: ad.adsetName,
        ad_id: ad.id,
        ad_name: ad.name,
        source: ad.source,
        medium: ad.medium,
        campaign: c.key,
        spend: spendCents / 100,
        impressions,
        clicks: adClicks,
        conversion_value: Math.round(reported) / 100,
        currency: DEMO_CURRENCY,
        updated_at: isoSeconds(dayMs + DAY + 2 * HOUR),
      });
    }
  }
  return { rows, total: total / 100 };
}

// ---------------------------------------------------------------------------------------------------------------
// Time-ordered merge
// ---------------------------------------------------------------------------------------------------------------

interface Active {
  idx: number;
  events: StorefrontEvent[];
  times: number[];
  i: number;
}

const before = (a: Active, b: Active): boolean => {
  const ta = a.times[a.i]!;
  const tb = b.times[b.i]!;
  return ta < tb || (ta === tb && a.idx < b.idx);
};

/** Min-heap of sessions in progress, keyed by their next event's time. */
class SessionHeap {
  private readonly items: Active[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Active | undefined {
    return this.items[0];
  }

  push(a: Active): void {
    const h = this.items;
    h.push(a);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  /** Restores the order after the top's key grew; removes the top when it is done. */
  advanceTop(): void {
    const h = this.items;
    const top = h[0]!;
    top.i++;
    if (top.i >= top.events.length) {
      const last = h.pop()!;
      if (h.length === 0) return;
      h[0] = last;
    }
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && before(h[l]!, h[m]!)) m = l;
      if (r < h.length && before(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

/**
 * Sorts sessions by (start, idx) in place: a bucket sort over the time span (a million sessions sort in a fraction
 * of what `Array.prototype.sort` with a comparator takes), then insertion sort inside the small buckets.
 */
function sortByStart(sessions: Session[]): void {
  const n = sessions.length;
  if (n < 2) return;
  let min = Infinity;
  let max = -Infinity;
  for (const s of sessions) {
    if (s.start < min) min = s.start;
    if (s.start > max) max = s.start;
  }
  const buckets = n;
  const width = (max - min + 1) / buckets;
  const counts = new Uint32Array(buckets + 1);
  const bucketOf = (s: Session): number => Math.min(buckets - 1, Math.floor((s.start - min) / width));
  for (const s of sessions) counts[bucketOf(s) + 1]!++;
  for (let b = 0; b < buckets; b++) counts[b + 1]! += counts[b]!;
  const out = new Array<Session>(n);
  for (const s of sessions) out[counts[bucketOf(s)]!++] = s;
  const before = (a: Session, b: Session): boolean => a.start < b.start || (a.start === b.start && a.idx < b.idx);
  for (let i = 1; i < n; i++) {
    const s = out[i]!;
    let j = i - 1;
    while (j >= 0 && before(s, out[j]!)) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = s;
  }
  for (let i = 0; i < n; i++) sessions[i] = out[i]!;
}

// ---------------------------------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------------------------------

function normalizeOptions(opts: DemoOptions): Required<DemoOptions> {
  const days = opts.days ?? DEFAULT_DEMO_DAYS;
  if (!Number.isInteger(opts.events) || opts.events < 0) throw new RangeError('events must be a non-negative integer');
  if (!Number.isInteger(days) || days < 1) throw new RangeError('days must be a positive integer');
  if (!Number.isFinite(opts.seed)) throw new RangeError('seed must be a finite number');
  if (Number.isNaN(opts.start.getTime())) throw new RangeError('start must be a valid date');
  const host = opts.storeHost ?? DEFAULT_STORE_HOST;
  if (!/^[a-z0-9.-]+(:\d+)?$/i.test(host)) throw new RangeError(`storeHost must be a host name, got ${host}`);
  const start = new Date(Date.UTC(opts.start.getUTCFullYear(), opts.start.getUTCMonth(), opts.start.getUTCDate()));
  return { events: opts.events, seed: opts.seed, start, days, storeHost: host.toLowerCase() };
}

/** Plans the stream for `opts` (see the module comment). Cheap: about 1 s and ~100 MB for a million events. */
export function planDemo(opts: DemoOptions): DemoPlan {
  const options = normalizeOptions(opts);
  const keys = seedKeys(options.seed);
  const startMs = options.start.getTime();
  const endMs = startMs + options.days * DAY;
  const cat = buildCatalogue(options.storeHost, startMs);
  const campaigns = buildCampaigns(cat.storeName);
  const maskRng = new Rng(keys[0], keys[1], SALT.mask);
  const days_ = Array.from({ length: options.days }, (_, d) => d);
  const ctx: PlannerContext = {
    seed: options.seed,
    keys,
    startMs,
    endMs,
    days: options.days,
    cat,
    campaigns,
    ads: campaigns.flatMap((c) => c.ads),
    campaignByKey: new Map(campaigns.map((c) => [c.key, c])),
    dayDist: new Distribution([0], [1]),
    idMask: [maskRng.u32(), maskRng.u32() & 0xffff],
    emailTag: maskRng.chars(3, 'abcdefghijklmnopqrstuvwxyz'),
    deviceCount: 0,
    sessionCount: 0,
  };
  const spring = campaigns.find((c) => c.key === 'spring_sale')!;
  const dayWeights = days_.map((d) => {
    const at = startMs + d * DAY;
    const weekday = new Date(at).getUTCDay();
    const weekend = weekday === 0 || weekday === 6 ? 1.15 : 1;
    const sale = isActive(spring, ctx, at + 12 * HOUR) ? 1.3 : 1;
    return weekend * sale * (0.9 + (0.2 * d) / Math.max(1, options.days - 1));
  });
  ctx.dayDist = new Distribution(days_, dayWeights);

  const sessions: Session[] = [];
  const orders: OrderPlan[] = [];
  let remaining = options.events;
  let persons = 0;
  while (remaining > 0) {
    const out = planPerson(ctx, persons++, remaining);
    for (const s of out.sessions) {
      sessions.push(s);
      remaining -= s.eventCount;
    }
    orders.push(...out.orders);
  }

  // Order ids and names in time order; the platform credit goes to the last paid click in 7 days.
  orders.sort((a, b) => a.createdAt - b.createdAt || a.session.idx - b.session.idx);
  const orderBase = 1_000_000_000_000 + (fmix32(keys[0] ^ keys[1] ^ SALT.order) % 8_000_000) * 1_000_000;
  const clicks = new Map<number, number[]>();
  const value = new Map<number, number[]>();
  const bump = (m: Map<number, number[]>, ad: number, day: number, v: number): void => {
    let arr = m.get(ad);
    if (!arr) m.set(ad, (arr = new Array<number>(options.days).fill(0)));
    arr[day] = (arr[day] ?? 0) + v;
  };
  const paidByPerson = new Map<Person, Session[]>();
  for (const s of sessions) {
    if (!s.touch.ad) continue;
    bump(clicks, s.touch.ad.index, dayOf(ctx, s.start), 1);
    const list = paidByPerson.get(s.person);
    if (list) list.push(s);
    else paidByPerson.set(s.person, [s]);
  }
  const versions: { at: number; order: ShopOrder }[] = [];
  let revenue = 0;
  for (const [n, o] of orders.entries()) {
    o.n = n;
    o.id = String(orderBase + n);
    o.name = `#${1001 + n}`;
    const paid = (paidByPerson.get(o.person) ?? []).filter(
      (p) => p.start <= o.createdAt && o.createdAt - p.start <= 7 * DAY,
    );
    const last = paid[paid.length - 1];
    if (last?.touch.ad) {
      o.creditAd = { ad: last.touch.ad, day: dayOf(ctx, last.start) };
      bump(value, last.touch.ad.index, o.creditAd.day, o.cart.total);
    }
    revenue += o.cart.total;
    versions.push(...orderVersions(ctx, o));
  }
  versions.sort((a, b) => a.at - b.at);
  const spend = buildAdSpend(ctx, clicks, value);

  sortByStart(sessions);
  const withEvents = sessions.filter((s) => s.eventCount > 0);
  const channels: Record<string, number> = {};
  const clientIds = new Set<Device>();
  for (const s of sessions) {
    channels[s.touch.label] = (channels[s.touch.label] ?? 0) + 1;
    if (s.eventCount > 0) clientIds.add(s.device);
  }
  const summary: DemoSummary = {
    events: options.events,
    persons,
    clients: clientIds.size,
    sessions: sessions.length,
    orders: orders.length,
    orderVersions: versions.length,
    ordersWithoutEvent: orders.filter((o) => !o.hasEvent).length,
    repeatOrders: orders.filter((o) => !o.isFirstOrder).length,
    refundedOrders: orders.filter((o) => o.refund && o.cancelledAt === null).length,
    cancelledOrders: orders.filter((o) => o.cancelledAt !== null).length,
    products: cat.pushes.length,
    adSpendRows: spend.rows.length,
    revenue: revenue / 100,
    adSpend: Math.round(spend.total * 100) / 100,
    channels: Object.fromEntries(Object.entries(channels).sort((a, b) => b[1] - a[1])),
    purchaseRate: sessions.length === 0 ? 0 : Math.round((orders.length / sessions.length) * 10000) / 10000,
  };

  function* items(): Generator<DemoItem, void, undefined> {
    const heap = new SessionHeap();
    let si = 0;
    let oi = 0;
    for (;;) {
      let top = heap.peek();
      while (si < withEvents.length && (top === undefined || withEvents[si]!.start <= top.times[top.i]!)) {
        const s = withEvents[si++]!;
        const { events, times } = expandSession(ctx, s);
        heap.push({ idx: s.idx, events, times, i: 0 });
        top = heap.peek();
      }
      if (top === undefined) break;
      const at = top.times[top.i]!;
      while (oi < versions.length && versions[oi]!.at < at) {
        const v = versions[oi++]!;
        yield { kind: 'order', at: v.at, order: v.order };
      }
      yield { kind: 'event', at, event: top.events[top.i]! };
      heap.advanceTop();
    }
    while (oi < versions.length) {
      const v = versions[oi++]!;
      yield { kind: 'order', at: v.at, order: v.order };
    }
  }

  function* events(): Generator<StorefrontEvent, void, undefined> {
    for (const item of items()) if (item.kind === 'event') yield item.event;
  }

  return {
    options,
    products: cat.pushes,
    orders: versions.map((v) => v.order),
    adSpend: spend.rows,
    summary,
    items,
    events,
  };
}

/** The events of the stream, lazily, in time order (`planDemo(opts).events()`). */
export function generateDemoEvents(opts: DemoOptions): Generator<StorefrontEvent, void, undefined> {
  return planDemo(opts).events();
}

/** The whole stream as arrays; for tests and small runs (a million events take a few GB this way). */
export function generateDemoStream(opts: DemoOptions): DemoStream {
  const plan = planDemo(opts);
  return {
    events: [...plan.events()],
    orders: plan.orders,
    products: plan.products,
    adSpend: plan.adSpend,
    summary: plan.summary,
  };
}
