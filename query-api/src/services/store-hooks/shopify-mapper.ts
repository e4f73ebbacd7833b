/**
 * Shopify order webhooks to the order push (docs/product.md, Store connections). Pure. The webhook body of
 * `orders/*` is the Admin REST Order the push already takes; only the members the product uses are kept, ids
 * as exact strings. `refunds/create` carries one Refund that names its order. The privacy topics become privacy
 * requests (shopify-privacy.ts).
 */
import { idText, isObject, pick, type HookAction, type JsonObject } from './types';
import { shopifyPrivacyRequest } from './shopify-privacy';

export const SHOPIFY_ORDER_TOPICS = ['orders/create', 'orders/updated', 'orders/paid', 'orders/cancelled'] as const;
export const SHOPIFY_PRIVACY_TOPICS = ['customers/data_request', 'customers/redact', 'shop/redact'] as const;

const ORDER_KEYS = [
  'name',
  'created_at',
  'updated_at',
  'processed_at',
  'cancelled_at',
  'currency',
  'presentment_currency',
  'total_price',
  'subtotal_price',
  'total_discounts',
  'total_tax',
  'financial_status',
  'landing_site',
  'referring_site',
  'checkout_token',
  'test',
] as const;
const LINE_KEYS = ['id', 'variant_id', 'product_id', 'title', 'variant_title', 'sku', 'vendor', 'quantity', 'price'];
const CUSTOMER_KEYS = ['id', 'email', 'first_name', 'last_name'];

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A refund as the order push keeps it: id, time, and its money movements. */
export function shopifyRefund(refund: JsonObject): JsonObject {
  return {
    ...pick(refund, ['id']),
    created_at: refund.created_at ?? refund.processed_at,
    transactions: list(refund.transactions).map((t) => (isObject(t) ? pick(t, ['amount', 'kind', 'status']) : t)),
  };
}

/** The order push of a Shopify Order body (unvalidated: the push validator names a bad member). */
export function shopifyOrder(body: JsonObject): JsonObject {
  const order: JsonObject = { id: body.id, ...pick(body, ORDER_KEYS) };
  const email = body.email ?? body.contact_email;
  if (email !== undefined) order.email = email === '' ? null : email;
  if (isObject(body.customer) && body.customer.id !== undefined && body.customer.id !== null) {
    order.customer = pick(body.customer, CUSTOMER_KEYS);
  }
  order.line_items = list(body.line_items).map((li) => (isObject(li) ? pick(li, LINE_KEYS) : li));
  order.refunds = list(body.refunds).map((r) => (isObject(r) ? shopifyRefund(r) : r));
  if (Array.isArray(body.note_attributes)) {
    order.note_attributes = (body.note_attributes as unknown[]).map((a): unknown =>
      isObject(a) ? { name: a.name, value: typeof a.value === 'number' ? String(a.value) : a.value } : a,
    );
  }
  return order;
}

export function mapShopifyWebhook(topic: string, body: unknown): HookAction {
  if ((SHOPIFY_PRIVACY_TOPICS as readonly string[]).includes(topic)) {
    const request = shopifyPrivacyRequest(topic, body);
    return request.kind === 'invalid' ? request : { kind: 'privacy', topic, request };
  }
  if ((SHOPIFY_ORDER_TOPICS as readonly string[]).includes(topic)) {
    if (!isObject(body)) return { kind: 'invalid', field: 'body', message: 'must be a JSON object (an Order)' };
    const orderId = idText(body.id);
    if (!orderId) return { kind: 'invalid', field: 'order.id', message: 'must be an integer or a string of digits' };
    return { kind: 'order', orderId, order: shopifyOrder(body), restored: false };
  }
  if (topic === 'refunds/create') {
    if (!isObject(body)) return { kind: 'invalid', field: 'body', message: 'must be a JSON object (a Refund)' };
    const orderId = idText(body.order_id);
    if (!orderId)
      return { kind: 'invalid', field: 'refund.order_id', message: 'must be an integer or a string of digits' };
    const id = idText(body.id);
    if (!id) return { kind: 'invalid', field: 'refund.id', message: 'must be an integer or a string of digits' };
    return { kind: 'refund', orderId, refund: { ...shopifyRefund(body), id } };
  }
  if (topic === 'orders/delete') {
    const orderId = isObject(body) ? idText(body.id) : null;
    if (!orderId) return { kind: 'invalid', field: 'order.id', message: 'must be an integer or a string of digits' };
    return { kind: 'delete', orderId };
  }
  return { kind: 'ignore', topic };
}
