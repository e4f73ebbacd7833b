/**
 * The catalogue of the demo store (the rows are in `catalog-data.ts`): products with their variants, prices and
 * costs, collections, search results; the product pushes; and the popularity by which visitors pick products.
 * The same for every seed (a store has one catalogue); its timestamps follow the start of the window.
 */
import type { Collection, ProductVariant, SearchResult } from '../../contracts/src/events';
import type { ShopProduct } from '../../contracts/src/pushes';
import { CATALOGUE_TABLE, SEARCH_QUERIES } from './catalog-data';
import { decimal, deepFreeze, slug, usd, withParams } from './format';
import { CATALOGUE_SEED, Distribution, Rng } from './random';
import { DAY, HOUR, isoSeconds, MINUTE } from './time';

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

export interface CatVariant {
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

export interface CatProduct {
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

export interface CatCollection {
  id: string;
  handle: string;
  title: string;
  products: CatProduct[];
  pixel: Collection;
  path: string;
  pageTitle: string;
}

export interface CatSearch {
  query: string;
  pixel: SearchResult;
  /** `?q=...`. */
  urlQuery: string;
  pageTitle: string;
}

export interface Catalogue {
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

/** "shop.example" -> "Shop Example". */
function storeNameOf(host: string): string {
  return host
    .split('.')
    .filter((p) => p !== 'www' && p !== '')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join(' ');
}

/** The catalogue is the same for every seed (a store has one catalogue); its timestamps follow `start`. */
export function buildCatalogue(host: string, startMs: number): Catalogue {
  const storeName = storeNameOf(host);
  const rng = new Rng(CATALOGUE_SEED);
  const products: CatProduct[] = [];
  const collections: CatCollection[] = [];
  const pushes: ShopProduct[] = [];
  for (const [ci, def] of COLLECTION_DEFS.entries()) {
    const members: CatProduct[] = [];
    for (const pd of def.products) {
      const product = makeProduct(storeName, def.handle, pd, products.length, rng.uniform(0.28, 0.46));
      pushes.push(productPush(storeName, product, pd, startMs));
      products.push(product);
      members.push(product);
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
  return {
    storeName,
    host,
    origin: `https://${host}`,
    products,
    productDist: new Distribution(products, productWeights),
    collections,
    collectionDist: new Distribution(collections, collectionWeights),
    byHandle: new Map(collections.map((c) => [c.handle, c])),
    searches: SEARCH_QUERIES.map((query) => makeSearch(storeName, products, query)),
    pushes,
    homeTitle: `${storeName} – Everyday basics, made better`,
    cartTitle: `Your Shopping Cart – ${storeName}`,
    checkoutTitle: `Checkout – ${storeName}`,
    thankYouTitle: `Thank you for your purchase! – ${storeName}`,
  };
}

/** Product number `p` of the catalogue, its variants priced from the row and costed at `costShare` of the price. */
function makeProduct(storeName: string, collection: string, pd: ProductDef, p: number, costShare: number): CatProduct {
  const handle = slug(pd.title);
  const productId = String(8_950_316_000_000 + p * 32_771 + 17);
  const skuBase = pd.title
    .split(/[^A-Za-z]+/)
    .filter(Boolean)
    .map((w) => w.slice(0, 3).toUpperCase())
    .slice(0, 2)
    .join('');
  const product: CatProduct = {
    index: p,
    id: productId,
    handle,
    title: pd.title,
    type: pd.type,
    tags: pd.tags,
    collection,
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
  return product;
}

/** The product as the store pushes it (`variants[].cost` included). */
function productPush(storeName: string, product: CatProduct, pd: ProductDef, startMs: number): ShopProduct {
  const p = product.index;
  return {
    id: product.id,
    title: pd.title,
    handle: product.handle,
    body_html: `<p>${pd.title}, made to last. Free shipping on orders over $75.</p>`,
    vendor: storeName,
    product_type: pd.type,
    tags: pd.tags,
    created_at: isoSeconds(startMs - (240 - p * 4) * DAY + 10 * HOUR),
    updated_at: isoSeconds(startMs - 2 * DAY + 9 * HOUR + p * MINUTE),
    images: [{ src: `https://cdn.shopify.com/s/files/1/0612/3456/7890/products/${product.handle}-1.jpg` }],
    variants: product.variants.map((v) => ({
      id: v.id,
      title: v.title,
      sku: v.sku,
      price: decimal(v.priceCents),
      compare_at_price:
        product.collection === 'outerwear' || pd.tags.includes('new') ? null : decimal(v.priceCents + 1000),
      grams: v.grams,
      cost: decimal(v.costCents),
    })),
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

/** A search and its results: the first 8 products whose title or tags contain a word of the query. */
function makeSearch(storeName: string, products: CatProduct[], query: string): CatSearch {
  const words = query.split(' ').filter((w) => w !== 't' && w !== 'shirt');
  const matches = products.filter((x) => words.some((w) => `${x.title} ${x.tags}`.toLowerCase().includes(w)));
  return {
    query,
    pixel: deepFreeze({ query, productVariants: matches.slice(0, 8).map((x) => x.variants[0]!.pixel) }),
    urlQuery: withParams([['q', query]]),
    pageTitle: `Search: ${Math.min(8, matches.length)} results found for “${query}” – ${storeName}`,
  };
}

/** A product by popularity, or any product of `within` when given (and not empty). */
export function pickProduct(cat: Catalogue, rng: Rng, within?: CatCollection | null): CatProduct {
  if (within && within.products.length > 0) return rng.pick(within.products);
  return cat.productDist.sample(rng);
}

export function pickVariant(rng: Rng, product: CatProduct): CatVariant {
  return rng.pick(product.variants);
}
