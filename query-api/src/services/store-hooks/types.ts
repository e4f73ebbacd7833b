/** What one platform webhook asks of the service, as the pure mappers decide it (docs/product.md, Store connections). */
import type { ShopRefund } from '../../../../contracts/src/pushes';
import type { PrivacyHookRequest } from './shopify-privacy';

export type HookAction =
  /** An order version (`order` is unvalidated: the order push validator names what is wrong). */
  | { kind: 'order'; orderId: string; order: Record<string, unknown>; restored: boolean }
  /** A refund that arrived on its own (Shopify `refunds/create`): merged into the order it names. */
  | { kind: 'refund'; orderId: string; refund: Record<string, unknown> & Pick<ShopRefund, 'id'> }
  /** The order was deleted (WooCommerce `order.deleted`): it converts nothing until restored. */
  | { kind: 'delete'; orderId: string }
  /** A privacy request (Shopify's mandatory topics): recorded, and run by the privacy operations. */
  | { kind: 'privacy'; topic: string; request: PrivacyHookRequest }
  /** A topic the service does not use: acknowledged, nothing published. */
  | { kind: 'ignore'; topic: string }
  /** The body does not have the shape its topic promises: `field` names what is wrong. */
  | { kind: 'invalid'; field: string; message: string };

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An id as the order push takes it: digits as a string (from a safe integer or the exact parser's digits). */
export function idText(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return v;
  return null;
}

/** Copies the members of `keys` that `from` has (omitting undefined), so that the push validator sees them. */
export function pick(from: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}
