/**
 * Test fixtures for the webhook payload builders (imported by the `*.test.ts` beside it only): a context with
 * the sample tee pushed by the store and the sample socks not pushed.
 */
import type { ShopProduct } from '../../contracts/src/pushes';
import { SAMPLE_EMAIL, SAMPLE_SHOP_URL, sampleProduct } from './samples';
import type {
  IdentityEventContext,
  IdentityEventPerson,
} from '../../pipeline/src/domain/identity-events/payload-context';

export const TEE_PRODUCT_ID = '8950316581081';
export const SOCKS_PRODUCT_ID = '8950316613849';
export const LANDING_SITE = `${SAMPLE_SHOP_URL}/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring_sale`;
export const REFERRING_SITE = 'https://l.facebook.com/';

export function samplePerson(overrides: Partial<IdentityEventPerson> = {}): IdentityEventPerson {
  return {
    email: SAMPLE_EMAIL,
    phone: '+15415550100',
    firstName: 'Jane',
    lastName: 'Doe',
    location: {
      address1: '1 Main Street',
      address2: '',
      city: 'Springfield',
      country: 'United States',
      region: 'Oregon',
      zip: '97477',
    },
    ...overrides,
  };
}

/** A person the service knows nothing of. */
export function blankPerson(): IdentityEventPerson {
  return {
    email: '',
    phone: '',
    firstName: '',
    lastName: '',
    location: { address1: '', address2: '', city: '', country: '', region: '', zip: '' },
  };
}

const COLLECTIONS: Record<string, string[]> = {
  [TEE_PRODUCT_ID]: ['Summer Essentials', 'Tees', 'Summer Essentials'],
  [SOCKS_PRODUCT_ID]: ['Summer Essentials', 'Accessories'],
};

export function sampleIdentityEventContext(
  overrides: Partial<IdentityEventContext> = {},
  products: ShopProduct[] = [sampleProduct()],
): IdentityEventContext {
  const byId = new Map(products.map((product) => [product.id, product]));
  return {
    storeCurrency: 'USD',
    profile: samplePerson(),
    landingSite: LANDING_SITE,
    referringSite: REFERRING_SITE,
    shopUrl: SAMPLE_SHOP_URL,
    productOf: (id) => byId.get(id),
    collectionsOf: (id) => COLLECTIONS[id] ?? [],
    ...overrides,
  };
}

/** Paths of every `undefined`, `null` or non-finite number in `value` (payloads have none). */
export function badLeaves(value: unknown, at = ''): string[] {
  if (value === undefined || value === null) return [`${at}: ${String(value)}`];
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [`${at}: ${value}`];
  if (Array.isArray(value)) return value.flatMap((item, index) => badLeaves(item, `${at}[${index}]`));
  if (typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => badLeaves(item, at === '' ? key : `${at}.${key}`));
  }
  return [];
}
