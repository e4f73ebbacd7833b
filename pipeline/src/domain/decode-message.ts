/**
 * Decodes one stream message into a typed fact, or a poison verdict with the reason (docs/product.md, Delivery guarantees).
 * Pure: the validation clock is the time the API accepted the message, so a replay decodes exactly as
 * the live run did.
 */
import type { StorefrontEvent } from '../../../contracts/src/events';
import type { AdSpendRow, ShopCustomer, ShopOrder, ShopProduct } from '../../../contracts/src/pushes';
import {
  LINK_CLICK_SUBJECT_NAME,
  parseEventSubject,
  PUSH_SUBJECT_NAMES,
  SPEND_DAY_SUBJECT_NAME,
} from '../../../contracts/src/subjects';
import {
  formatFieldError,
  validateAdSpendRow,
  validateCustomer,
  validateEvent,
  validateOrder,
  validateProduct,
  type ValidationResult,
} from '../../../contracts/src/validation';
import { findUnstorable } from '../../../contracts/src/validation/storable';

export interface LinkClick {
  code: string;
  clickId: string;
  clientId: string;
  at: string;
  ip: string;
  userAgent: string;
  referrer: string;
}

export type DecodedFact =
  | {
      kind: 'event';
      storeId: string;
      event: StorefrontEvent;
      warnings: string[];
      /**
       * The event's JSON as the API published it (its validators' output, UTF-8), when stamped: stored as it
       * is, without encoding the parsed event again.
       */
      json?: Uint8Array;
    }
  | { kind: 'order'; storeId: string; order: ShopOrder }
  | { kind: 'product'; storeId: string; product: ShopProduct }
  | { kind: 'customer'; storeId: string; customer: ShopCustomer }
  /** One pushed row, or the rows of a pulled day (applied together, in one batch). */
  | { kind: 'ad_spend'; storeId: string; rows: AdSpendRow[] }
  | { kind: 'link_click'; storeId: string; click: LinkClick };

export type DecodeResult = DecodedFact | { kind: 'poison'; storeId: string | null; reason: string };

const poison = (storeId: string | null, reason: string): DecodeResult => ({ kind: 'poison', storeId, reason });

function firstError<T>(result: ValidationResult<T>): string {
  return result.ok ? '' : result.errors.slice(0, 5).map(formatFieldError).join('; ');
}

function decodeLinkClick(body: unknown): LinkClick | null {
  if (typeof body !== 'object' || body === null) return null;
  const b = body as Record<string, unknown>;
  const str = (k: string): string | null => (typeof b[k] === 'string' ? b[k] : null);
  const code = str('code');
  const clickId = str('clickId');
  const at = str('at');
  if (!code || !clickId || !at || Number.isNaN(Date.parse(at))) return null;
  return {
    code,
    clickId,
    at,
    clientId: str('clientId') ?? '',
    ip: str('ip') ?? '',
    userAgent: str('userAgent') ?? '',
    referrer: str('referrer') ?? '',
  };
}

// One decoder for all messages: decode() without streaming keeps no state between calls.
const utf8 = new TextDecoder('utf-8', { fatal: true });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * The payload of a message the API validated (`validated`): the validators' own output, so only what the
 * pipeline routes and keys on is checked. Null when even that does not hold: the message is then validated in
 * full like any other.
 */
function trustedFact(storeId: string, name: string, body: unknown, json: Uint8Array): DecodedFact | null {
  if (!isObject(body)) return null;
  switch (name) {
    case PUSH_SUBJECT_NAMES.orders:
      return isString(body.id) && isString(body.updated_at)
        ? { kind: 'order', storeId, order: body as unknown as ShopOrder }
        : null;
    case PUSH_SUBJECT_NAMES.products:
      return isString(body.id) ? { kind: 'product', storeId, product: body as unknown as ShopProduct } : null;
    case PUSH_SUBJECT_NAMES.customers:
      return isString(body.id) ? { kind: 'customer', storeId, customer: body as unknown as ShopCustomer } : null;
    case PUSH_SUBJECT_NAMES['ad-spend']:
      return isString(body.date) && isString(body.platform)
        ? { kind: 'ad_spend', storeId, rows: [body as unknown as AdSpendRow] }
        : null;
    case SPEND_DAY_SUBJECT_NAME:
    case LINK_CLICK_SUBJECT_NAME:
      return null;
    default:
      return body.name === name && isString(body.id) && isString(body.clientId) && isString(body.timestamp)
        ? { kind: 'event', storeId, event: body as unknown as StorefrontEvent, warnings: [], json }
        : null;
  }
}

export function decodeMessage(
  subject: string,
  data: Uint8Array,
  receivedAt: number | null,
  validated = false,
): DecodeResult {
  const parsed = parseEventSubject(subject);
  if (!parsed) return poison(null, `subject ${subject} is not ev.<partition>.<storeId>.<name>`);
  const { storeId, name } = parsed;
  let text: string;
  let body: unknown;
  try {
    text = utf8.decode(data);
    body = JSON.parse(text);
  } catch (err) {
    return poison(storeId, `undecodable JSON: ${(err as Error).message}`);
  }
  if (validated) {
    // The decoder drops a byte order mark; the stored JSON must not have one either.
    const bom = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf;
    const fact = trustedFact(storeId, name, body, bom ? data.subarray(3) : data);
    if (fact) return fact;
  }
  // What PostgreSQL cannot hold (NUL, unpaired surrogates) or a serializer cannot traverse would fail its
  // batch forever. The API refuses such input; a replayed file or an old message may still carry it.
  const unstorable = findUnstorable(body, 'message');
  if (unstorable) return poison(storeId, `${unstorable.field}: ${unstorable.message}`);
  const now = new Date(receivedAt ?? Number.MAX_SAFE_INTEGER / 2);

  switch (name) {
    case PUSH_SUBJECT_NAMES.orders: {
      const r = validateOrder(body);
      return r.ok ? { kind: 'order', storeId, order: r.value } : poison(storeId, `invalid order: ${firstError(r)}`);
    }
    case PUSH_SUBJECT_NAMES.products: {
      const r = validateProduct(body);
      return r.ok
        ? { kind: 'product', storeId, product: r.value }
        : poison(storeId, `invalid product: ${firstError(r)}`);
    }
    case PUSH_SUBJECT_NAMES.customers: {
      const r = validateCustomer(body);
      return r.ok
        ? { kind: 'customer', storeId, customer: r.value }
        : poison(storeId, `invalid customer: ${firstError(r)}`);
    }
    case PUSH_SUBJECT_NAMES['ad-spend']: {
      const r = validateAdSpendRow(body);
      return r.ok
        ? { kind: 'ad_spend', storeId, rows: [r.value] }
        : poison(storeId, `invalid ad spend row: ${firstError(r)}`);
    }
    case SPEND_DAY_SUBJECT_NAME: {
      const list = isObject(body) && Array.isArray(body.rows) ? (body.rows as unknown[]) : null;
      if (!list) return poison(storeId, 'invalid ad spend day: rows must be an array');
      const rows: AdSpendRow[] = [];
      for (const [i, item] of list.entries()) {
        const r = validateAdSpendRow(item);
        if (!r.ok) return poison(storeId, `invalid ad spend day: rows[${i}]: ${firstError(r)}`);
        rows.push(r.value);
      }
      return { kind: 'ad_spend', storeId, rows };
    }
    case LINK_CLICK_SUBJECT_NAME: {
      const click = decodeLinkClick(body);
      return click ? { kind: 'link_click', storeId, click } : poison(storeId, 'invalid link click');
    }
    default: {
      const r = validateEvent(body, { now });
      if (!r.ok) return poison(storeId, `invalid event: ${firstError(r)}`);
      if (r.value.name !== name) return poison(storeId, `event name ${r.value.name} does not match subject ${subject}`);
      return { kind: 'event', storeId, event: r.value, warnings: r.warnings };
    }
  }
}
