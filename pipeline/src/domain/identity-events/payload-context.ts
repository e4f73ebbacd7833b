/**
 * What the identity-event payload builders need besides the event (docs/product.md, Identity events and destinations), and the pieces every payload
 * shares: time, metric, profile, product facts, URLs. Pure: everything comes in through `IdentityEventContext`.
 */
import type { MailAddress, ProductVariant } from '../../../../contracts/src/events';
import type { ShopProduct, ShopProductVariant } from '../../../../contracts/src/pushes';
import type {
  IdentityEventName,
  IdentityEventImage,
  IdentityEventMetric,
  IdentityEventProfile,
  IdentityEventProfileLocation,
} from '../../../../contracts/src/identity-events';
import { decimal, toMicros, type RateOf } from '../money';
import { MONEY_SCALE } from '../../../../contracts/src/attribution';

/** The `service` of every payload's metric. */
export const IDENTITY_EVENT_SERVICE = 'open-attribution';

/** The person as the service knows them; `""` for unknown members. */
export interface IdentityEventPerson {
  email: string;
  /** E.164, or `""`. */
  phone: string;
  firstName: string;
  lastName: string;
  location: IdentityEventProfileLocation;
}

export interface IdentityEventContext {
  /** ISO 4217 shop currency (`shop_money` amounts; `value_currency` of events without a value). */
  storeCurrency: string;
  profile: IdentityEventPerson;
  /** Full URL of the person's session landing page (with its query string), `""` when unknown. */
  landingSite: string;
  /** Referrer of that session, `""` when none. */
  referringSite: string;
  /** Store origin for absolute URLs, e.g. `https://shop.example` (a trailing `/` is ignored). */
  shopUrl: string;
  /** Product pushed by the store, by product id. */
  productOf: (productId: string) => ShopProduct | undefined;
  /** Collection titles of a product, possibly `[]`. */
  collectionsOf: (productId: string) => string[];
  /**
   * Optional: rate of one unit of a currency in shop-currency units, for `line_price_set.shop_money` when the
   * checkout is in another currency. Without it (or without a rate) the amount is kept 1:1, as `money.ts` does.
   */
  rateOf?: RateOf;
}

/** The event time as ISO 8601 in UTC (`2025-01-12T04:30:54.751Z`); the input unchanged if unparsable. */
export function isoTime(timestamp: string): string {
  const ms = Date.parse(timestamp);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : timestamp;
}

/** First non-blank value, `""` when none. */
export function firstText(...values: (string | null | undefined)[]): string {
  for (const value of values) if (typeof value === 'string' && value.trim() !== '') return value;
  return '';
}

/** A finite number, 0 otherwise. */
export function finite(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Nearest integer (half up), 0 for non-finite input. */
export function integer(value: number | null | undefined): number {
  return Math.round(finite(value));
}

/** Distinct non-blank values, sorted by UTF-16 code units (locale-independent, so deterministic). */
export function sortedUnique(values: Iterable<string>): string[] {
  const set = new Set<string>();
  for (const value of values) if (value.trim() !== '') set.add(value);
  return [...set].sort();
}

/** Distinct non-blank values in first-seen order. */
export function unique(values: Iterable<string>): string[] {
  const set = new Set<string>();
  for (const value of values) if (value.trim() !== '') set.add(value);
  return [...set];
}

/** `shopUrl` without trailing slashes. */
export function shopBase(shopUrl: string): string {
  return shopUrl.replace(/\/+$/, '');
}

/** An absolute URL: kept when absolute, `https:` added when protocol-relative, else resolved on the shop. */
export function absoluteUrl(shopUrl: string, url: string | null | undefined): string {
  if (url == null || url.trim() === '') return '';
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  if (url.startsWith('//')) return `https:${url}`;
  return `${shopBase(shopUrl)}${url.startsWith('/') ? '' : '/'}${url}`;
}

/** Image `src` usable outside the storefront (protocol-relative CDN URLs get `https:`). */
export function imageSrc(src: string | null | undefined): string {
  if (src == null || src.trim() === '') return '';
  return src.startsWith('//') ? `https:${src}` : src;
}

/** The cart-recovery URL of a checkout: `<shop>/checkouts/<token>`. */
export function checkoutUrlOf(shopUrl: string, token: string): string {
  return `${shopBase(shopUrl)}/checkouts/${encodeURIComponent(token)}`;
}

/** An amount in the shop currency: as is when the currency is the shop's or no rate is known. */
export function toShopAmount(amount: number, currency: string, ctx: IdentityEventContext): number {
  const value = finite(amount);
  if (currency.toUpperCase() === ctx.storeCurrency.toUpperCase()) return value;
  const rate = ctx.rateOf?.(currency.toUpperCase());
  return rate === undefined || !Number.isFinite(rate) ? value : toMicros(value * rate) / MONEY_SCALE;
}

export function metricOf(name: IdentityEventName): IdentityEventMetric {
  return { data: { type: 'metric', attributes: { name, service: IDENTITY_EVENT_SERVICE } } };
}

/** What the event itself knows of the buyer, used where the context's person has a blank member. */
export interface ProfileFallback {
  email?: string | null;
  phones?: (string | null | undefined)[];
  firstNames?: (string | null | undefined)[];
  lastNames?: (string | null | undefined)[];
  /** Addresses in order of preference; the first with any member is the location. */
  addresses?: (MailAddress | null | undefined)[];
}

const EMPTY_LOCATION: IdentityEventProfileLocation = {
  address1: '',
  address2: '',
  city: '',
  country: '',
  region: '',
  zip: '',
};

function locationOfAddress(address: MailAddress): IdentityEventProfileLocation {
  return {
    address1: firstText(address.address1),
    address2: firstText(address.address2),
    city: firstText(address.city),
    country: firstText(address.country, address.countryCode),
    region: firstText(address.province, address.provinceCode),
    zip: firstText(address.zip),
  };
}

function hasAny(location: IdentityEventProfileLocation): boolean {
  return Object.values(location).some((value) => typeof value === 'string' && value.trim() !== '');
}

/**
 * The location: the context's when it has any member, else the first fallback address with any member.
 * Whole addresses are taken, never mixed member by member (a city of one with the street of another is wrong).
 */
function locationOf(
  ctx: IdentityEventContext,
  addresses: (MailAddress | null | undefined)[],
): IdentityEventProfileLocation {
  const own = ctx.profile.location;
  const clean: IdentityEventProfileLocation = {
    address1: firstText(own.address1),
    address2: firstText(own.address2),
    city: firstText(own.city),
    country: firstText(own.country),
    region: firstText(own.region),
    zip: firstText(own.zip),
  };
  if (hasAny(clean)) return clean;
  for (const address of addresses) {
    if (address == null) continue;
    const location = locationOfAddress(address);
    if (hasAny(location)) return location;
  }
  return { ...EMPTY_LOCATION };
}

/** `attributes.profile`: the context's person, blanks filled from the event, `""` for what stays unknown. */
export function profileOf(ctx: IdentityEventContext, fallback: ProfileFallback = {}): IdentityEventProfile {
  const person = ctx.profile;
  return {
    data: {
      type: 'profile',
      attributes: {
        email: firstText(person.email, fallback.email),
        phone_number: firstText(person.phone, ...(fallback.phones ?? [])),
        first_name: firstText(person.firstName, ...(fallback.firstNames ?? [])),
        last_name: firstText(person.lastName, ...(fallback.lastNames ?? [])),
        location: locationOf(ctx, fallback.addresses ?? []),
      },
    },
  };
}

/** Catalogue facts of a variant: the store's pushed product first (its source of truth), then the event. */
export interface ProductFacts {
  productId: string;
  variantId: string;
  /** Title in the shop language. */
  title: string;
  /** Title as the buyer saw it. */
  presentmentTitle: string;
  variantTitle: string;
  presentmentVariantTitle: string;
  sku: string;
  vendor: string;
  productType: string;
  handle: string;
  bodyHtml: string;
  tags: string;
  /** Absolute product URL, `""` when unknown. */
  url: string;
  images: IdentityEventImage[];
  variantImages: IdentityEventImage[];
  /** The variant's image, else the product's first, else `""`. */
  imageUrl: string;
  /** Pushed `compare_at_price`, 0 when none. */
  compareAtPrice: number;
  /** Pushed weight in grams as a string, `""` when unknown. */
  grams: string;
  /** Collection titles, sorted and distinct. */
  collections: string[];
  /** True when the store pushed this product. */
  known: boolean;
}

function handleOfUrl(url: string | null | undefined): string {
  const match = /\/products\/([^/?#]+)/.exec(url ?? '');
  return match?.[1] ?? '';
}

function images(...sources: (string | null | undefined)[]): IdentityEventImage[] {
  return unique(sources.map(imageSrc)).map((src) => ({ src }));
}

export function productFacts(variant: ProductVariant, ctx: IdentityEventContext): ProductFacts {
  const eventProduct = variant.product;
  const pushed = ctx.productOf(eventProduct.id);
  const pushedVariant: ShopProductVariant | undefined = pushed?.variants.find((v) => v.id === variant.id);
  const handle = firstText(pushed?.handle, handleOfUrl(eventProduct.url));
  const variantImages = images(variant.image?.src);
  const pushedImages = images(...(pushed?.images ?? []).map((image) => image.src));
  const productImages = pushedImages.length > 0 ? pushedImages : variantImages;
  return {
    productId: eventProduct.id,
    variantId: variant.id,
    title: firstText(pushed?.title, eventProduct.untranslatedTitle, eventProduct.title),
    presentmentTitle: firstText(eventProduct.title, eventProduct.untranslatedTitle, pushed?.title),
    variantTitle: firstText(pushedVariant?.title, variant.untranslatedTitle, variant.title),
    presentmentVariantTitle: firstText(variant.title, variant.untranslatedTitle, pushedVariant?.title),
    sku: firstText(pushedVariant?.sku, variant.sku),
    vendor: firstText(pushed?.vendor, eventProduct.vendor),
    productType: firstText(pushed?.product_type, eventProduct.type),
    handle,
    bodyHtml: firstText(pushed?.body_html),
    tags: firstText(pushed?.tags),
    url: absoluteUrl(ctx.shopUrl, firstText(eventProduct.url, handle === '' ? '' : `/products/${handle}`)),
    images: productImages,
    variantImages,
    imageUrl: variantImages[0]?.src ?? productImages[0]?.src ?? '',
    compareAtPrice: decimal(pushedVariant?.compare_at_price),
    grams:
      pushedVariant?.grams !== undefined && Number.isFinite(pushedVariant.grams) ? String(pushedVariant.grams) : '',
    collections: sortedUnique(ctx.collectionsOf(eventProduct.id)),
    known: pushed !== undefined,
  };
}
