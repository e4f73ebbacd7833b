/**
 * WooCommerce order webhooks to the order push (docs/product.md, Store connections). Pure. The body of
 * `order.created|updated|restored` is the REST API v3 order; `order.deleted` carries only `{id}`. Refunds and
 * cancellations arrive through `order.updated` (`refunds[]` with negative totals, the status). WooCommerce's
 * own order attribution (`meta_data` `_wc_order_attribution_*`) becomes the order's landing_site and
 * referring_site, the touchpoint of an order no browser journey reported.
 */
import { idText, isObject, type HookAction, type JsonObject } from './types';

export const WOO_ORDER_TOPICS = ['order.created', 'order.updated', 'order.restored'] as const;

/** Statuses of an order that is not (or no longer) a purchase: it converts nothing. */
const NOT_PURCHASED = new Set(['cancelled', 'failed', 'trash', 'checkout-draft']);

const FINANCIAL_STATUS: Record<string, string> = {
  pending: 'pending',
  'on-hold': 'pending',
  processing: 'paid',
  completed: 'paid',
  refunded: 'refunded',
  cancelled: 'voided',
  failed: 'voided',
};

const ATTRIBUTION = '_wc_order_attribution_';
const UTM_KEYS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'] as const;
const DECIMAL = /^\d+(\.\d+)?$/;

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** A WooCommerce `*_gmt` time (`2017-03-22T19:28:02`, UTC without a zone) as ISO 8601 with `Z`. */
export function gmtTime(v: unknown): string | undefined {
  const t = text(v);
  if (!t) return undefined;
  return /(Z|[+-]\d{2}:?\d{2})$/i.test(t) ? t : `${t}Z`;
}

/** A money amount as a decimal string (WooCommerce sends line prices as JSON numbers). */
function decimal(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) {
    const s = String(v);
    return DECIMAL.test(s) ? s : v.toFixed(2);
  }
  return typeof v === 'string' ? v : undefined;
}

/** The attribution meta of an order, `_wc_order_attribution_` stripped, and the tracker's client id. */
function metaOf(body: JsonObject): Map<string, string> {
  const meta = new Map<string, string>();
  for (const m of Array.isArray(body.meta_data) ? body.meta_data : []) {
    if (isObject(m) && typeof m.key === 'string' && typeof m.value === 'string') meta.set(m.key, m.value.trim());
  }
  return meta;
}

/** `(none)` is how WooCommerce's attribution script writes a missing value. */
const given = (v: string | undefined): string => (v && v !== '(none)' ? v : '');

/** Path and query of the session's entry page (`/` when it is not a URL). */
function entryPath(entry: string): string {
  if (URL.canParse(entry)) {
    const url = new URL(entry);
    return `${url.pathname}${url.search}`;
  }
  return entry.startsWith('/') ? entry : '/';
}

function withParams(path: string, params: Array<[string, string]>): string {
  const url = new URL(path, 'https://entry.invalid');
  for (const [k, v] of params) if (v && !url.searchParams.has(k)) url.searchParams.set(k, v);
  return `${url.pathname}${url.search}`;
}

/**
 * The order's server-side touchpoint from WooCommerce's order attribution: `utm` gives the entry page with its
 * UTM parameters; `organic` and `referral` the referrer (else their source and medium as UTMs); `typein` the
 * entry page alone (direct); `admin`, `mobile_app` or no attribution no touch at all (not a marketing touch).
 */
export function wooAttribution(meta: ReadonlyMap<string, string>): {
  landing_site: string | null;
  referring_site: string | null;
} {
  const get = (k: string) => given(meta.get(`${ATTRIBUTION}${k}`));
  const type = get('source_type');
  const entry = entryPath(get('session_entry'));
  const referrer = get('referrer');
  const utms = UTM_KEYS.map((k): [string, string] => [k, get(k)]);
  switch (type) {
    case 'utm':
      return { landing_site: withParams(entry, utms), referring_site: referrer || null };
    case 'organic':
    case 'referral':
      return referrer
        ? { landing_site: entry, referring_site: referrer }
        : { landing_site: withParams(entry, utms.slice(0, 2)), referring_site: null };
    case 'typein':
      return { landing_site: entry, referring_site: null };
    default:
      return { landing_site: null, referring_site: null };
  }
}

/** The order push of a WooCommerce REST order (unvalidated: the push validator names a bad member). */
export function wooOrder(body: JsonObject): JsonObject {
  const billing = isObject(body.billing) ? body.billing : {};
  const status = text(body.status);
  const updatedAt = gmtTime(body.date_modified_gmt) ?? gmtTime(body.date_created_gmt);
  const email = text(billing.email) || null;
  const customerId = idText(body.customer_id);
  const meta = metaOf(body);
  const clientId = meta.get('_oa_client_id');
  const order: JsonObject = {
    id: body.id,
    name: `#${text(body.number) || String(body.id)}`,
    email,
    created_at: gmtTime(body.date_created_gmt),
    updated_at: updatedAt,
    processed_at: gmtTime(body.date_paid_gmt) ?? null,
    cancelled_at: NOT_PURCHASED.has(status) ? (updatedAt ?? null) : null,
    currency: body.currency,
    total_price: body.total,
    total_discounts: body.discount_total,
    total_tax: body.total_tax,
    financial_status: FINANCIAL_STATUS[status] ?? (status || null),
    ...wooAttribution(meta),
    customer:
      customerId && customerId !== '0'
        ? {
            id: customerId,
            email,
            first_name: text(billing.first_name) || null,
            last_name: text(billing.last_name) || null,
          }
        : null,
    line_items: (Array.isArray(body.line_items) ? (body.line_items as unknown[]) : []).map((li): unknown => {
      if (!isObject(li)) return li;
      const productId = idText(li.product_id);
      const variationId = idText(li.variation_id);
      const product = productId && productId !== '0' ? productId : null;
      // A simple product has no variation (0): the product is its own variant, as for costs and product lines.
      const variant = variationId && variationId !== '0' ? variationId : product;
      const quantity = li.quantity;
      const unit =
        decimal(li.price) ??
        (typeof quantity === 'number' && quantity > 0 ? (Number(text(li.total)) / quantity).toFixed(2) : undefined);
      return {
        id: li.id,
        product_id: product,
        variant_id: variant,
        title: typeof li.name === 'string' ? li.name : undefined,
        sku: typeof li.sku === 'string' && li.sku !== '' ? li.sku : null,
        quantity,
        price: unit,
      };
    }),
    // A refund's total is negative in the order's `refunds[]`; its amount is what it takes off the order.
    refunds: (Array.isArray(body.refunds) ? (body.refunds as unknown[]) : []).map((r): unknown =>
      isObject(r)
        ? {
            id: r.id,
            created_at: updatedAt,
            transactions: [{ amount: text(r.total).replace(/^-/, ''), kind: 'refund', status: 'success' }],
          }
        : r,
    ),
    ...(clientId ? { note_attributes: [{ name: '_oa_client_id', value: clientId }] } : {}),
  };
  return order;
}

export function mapWooWebhook(topic: string, body: unknown): HookAction {
  if ((WOO_ORDER_TOPICS as readonly string[]).includes(topic)) {
    if (!isObject(body)) return { kind: 'invalid', field: 'body', message: 'must be a JSON object (an order)' };
    const orderId = idText(body.id);
    if (!orderId) return { kind: 'invalid', field: 'order.id', message: 'must be an integer or a string of digits' };
    return { kind: 'order', orderId, order: wooOrder(body), restored: topic === 'order.restored' };
  }
  if (topic === 'order.deleted') {
    const orderId = isObject(body) ? idText(body.id) : null;
    if (!orderId) return { kind: 'invalid', field: 'order.id', message: 'must be an integer or a string of digits' };
    return { kind: 'delete', orderId };
  }
  return { kind: 'ignore', topic };
}
