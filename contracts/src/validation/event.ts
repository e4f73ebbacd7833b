/**
 * `validateEvent`: the envelope and per-kind checks of docs/product.md, Ingestion, with data-quality warnings.
 * Pure: the clock comes in as `opts.now`.
 */
import type { z } from 'zod';
import {
  EVENT_NAMES,
  type Checkout,
  type EventDataMap,
  type EventName,
  type ProductVariant,
  type StorefrontEvent,
} from '../events';
import { anyObjectSchema, envelopeSchema, EVENT_DATA_SCHEMAS } from './event-schemas';
import { runSchema, type FieldError, type ValidationResult } from './result';

/** Default bound on how far in the future an event timestamp may be (docs/product.md, Ingestion). */
export const DEFAULT_MAX_FUTURE_MS = 24 * 60 * 60 * 1000;

/** `seq` and `type` of an event sent to `/collect` without them (real Shopify pixels omit both). */
export const COLLECT_DEFAULTS = { seq: 0, type: 'standard' } as const;

export interface ValidateEventOptions {
  /** The time the event was received; timestamps more than `maxFutureMs` after it are rejected. */
  now: Date;
  /** Default 24 h. */
  maxFutureMs?: number;
  /** Used as `clientIp` when the event has none (the `/collect` route passes the request's address). */
  clientIpFallback?: string;
  /**
   * The `/collect` route's envelope defaults: a missing `seq` is 0 and a missing `type` is `standard`
   * (`COLLECT_DEFAULTS`). Without it (`/api/events`) both are required.
   */
  collectDefaults?: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && (EVENT_NAMES as readonly string[]).includes(value);
}

function formatDuration(ms: number): string {
  const hour = 60 * 60 * 1000;
  if (ms % hour === 0) return `${ms / hour} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

function variantWarnings(warnings: Set<string>, path: string, variant: ProductVariant): void {
  if (variant.image === undefined || (variant.image !== null && variant.image.src === undefined)) {
    warnings.add(`${path}.image.src missing`);
  }
  if (variant.sku === undefined) warnings.add(`${path}.sku missing`);
  if (variant.untranslatedTitle === undefined) warnings.add(`${path}.untranslatedTitle missing`);
  if (variant.product.untranslatedTitle === undefined) warnings.add(`${path}.product.untranslatedTitle missing`);
  if (variant.product.url === undefined) warnings.add(`${path}.product.url missing`);
  if (variant.product.vendor === undefined) warnings.add(`${path}.product.vendor missing`);
}

const TOLERATED_CHECKOUT_MEMBERS = [
  'buyerAcceptsEmailMarketing',
  'buyerAcceptsSmsMarketing',
  'discountsAmount',
  'email',
  'localization',
  'delivery',
  'transactions',
] as const satisfies readonly (keyof Checkout)[];

/** Tolerated checkout members that are absent, including those older pixels predate (`finalLinePrice`, ...). */
function checkoutWarnings(warnings: Set<string>, checkout: Checkout): void {
  for (const member of TOLERATED_CHECKOUT_MEMBERS) {
    if (checkout[member] === undefined) warnings.add(`data.checkout.${member} missing`);
  }
  for (const item of checkout.lineItems) {
    if (item.finalLinePrice === undefined) warnings.add('data.checkout.lineItems[*].finalLinePrice missing');
    variantWarnings(warnings, 'data.checkout.lineItems[*].variant', item.variant);
  }
  for (const transaction of checkout.transactions ?? []) {
    if (transaction.paymentMethod === undefined) warnings.add('data.checkout.transactions[*].paymentMethod missing');
  }
  const customer = checkout.order?.customer;
  if (customer && customer.isFirstOrder === undefined)
    warnings.add('data.checkout.order.customer.isFirstOrder missing');
}

/** Members that the spec marks required but were absent and tolerated; `[*]` stands for any array index. */
function collectWarnings(event: StorefrontEvent, raw: Record<string, unknown>): string[] {
  // Helpers take the set itself rather than an `add` closure, which would be made per event (docs/decisions.md,
  // Shape of the code).
  const warnings = new Set<string>();
  const context = raw['context'];
  const document = isRecord(context) ? context['document'] : undefined;
  if (isRecord(document)) {
    if (document['referrer'] === undefined) warnings.add('context.document.referrer missing');
    if (document['title'] === undefined) warnings.add('context.document.title missing');
  }
  switch (event.name) {
    case 'page_viewed':
    case 'lead_form_submitted':
    case 'custom_event':
    case 'user_identified':
    case 'order_refunded':
      break;
    case 'product_viewed':
      variantWarnings(warnings, 'data.productVariant', event.data.productVariant);
      break;
    case 'collection_viewed':
      for (const v of event.data.collection.productVariants)
        variantWarnings(warnings, 'data.collection.productVariants[*]', v);
      break;
    case 'search_submitted':
      for (const v of event.data.searchResult.productVariants) {
        variantWarnings(warnings, 'data.searchResult.productVariants[*]', v);
      }
      break;
    case 'product_added_to_cart':
    case 'product_removed_from_cart':
      if (event.data.cartLine) variantWarnings(warnings, 'data.cartLine.merchandise', event.data.cartLine.merchandise);
      break;
    case 'cart_viewed':
      for (const line of event.data.cart?.lines ?? [])
        variantWarnings(warnings, 'data.cart.lines[*].merchandise', line.merchandise);
      break;
    case 'checkout_started':
    case 'checkout_contact_info_submitted':
    case 'checkout_address_info_submitted':
    case 'checkout_shipping_info_submitted':
    case 'payment_info_submitted':
    case 'checkout_completed':
      checkoutWarnings(warnings, event.data.checkout);
      break;
  }
  return [...warnings];
}

/** The input with the envelope members the route fills when absent (`clientIp`; `seq` and `type` on `/collect`). */
function withEnvelopeDefaults(input: Record<string, unknown>, opts: ValidateEventOptions): Record<string, unknown> {
  const fills: Record<string, unknown> = {};
  if (input['clientIp'] === undefined && opts.clientIpFallback !== undefined) fills['clientIp'] = opts.clientIpFallback;
  if (opts.collectDefaults) {
    if (input['seq'] === undefined) fills['seq'] = COLLECT_DEFAULTS.seq;
    if (input['type'] === undefined) fills['type'] = COLLECT_DEFAULTS.type;
  }
  return Object.keys(fills).length === 0 ? input : { ...input, ...fills };
}

/**
 * Validates one pushed event (docs/product.md, Ingestion). On success the value is the event, normalized: `context.document`
 * `referrer` and `title` defaulted to `""`, `clientIp` filled from `clientIpFallback` and (with
 * `collectDefaults`) `seq` and `type` filled when absent, a missing `page_viewed` data made `{}`, Shopify global
 * ids of orders and customers turned into their number, lead emails trimmed and lower-cased, and every unknown
 * member kept; `warnings` lists tolerated omissions. On failure every error found is listed, with its field
 * path. The output validates again to itself (the pipeline re-validates what the API published).
 */
export function validateEvent(input: unknown, opts: ValidateEventOptions): ValidationResult<StorefrontEvent> {
  if (!isRecord(input)) {
    return {
      ok: false,
      errors: [
        {
          field: 'event',
          message: `must be an object, got ${Array.isArray(input) ? 'array' : input === null ? 'null' : typeof input}`,
        },
      ],
    };
  }
  const raw = withEnvelopeDefaults(input, opts);

  const errors: FieldError[] = [];
  const envelope = runSchema(envelopeSchema, raw, 'event');
  if (!envelope.ok) errors.push(...envelope.errors);

  const timestamp = raw['timestamp'];
  if (typeof timestamp === 'string' && !errors.some((e) => e.field === 'timestamp')) {
    const maxFutureMs = opts.maxFutureMs ?? DEFAULT_MAX_FUTURE_MS;
    if (Date.parse(timestamp) - opts.now.getTime() > maxFutureMs) {
      errors.push({ field: 'timestamp', message: `is more than ${formatDuration(maxFutureMs)} in the future` });
    }
  }

  const name = raw['name'];
  // With an unknown name, `data` is only checked to be an object (the name error is reported above).
  const dataSchema: z.ZodType<EventDataMap[EventName]> = isEventName(name) ? EVENT_DATA_SCHEMAS[name] : anyObjectSchema;
  const data = runSchema(dataSchema, raw['data'], 'event', ['data']);
  if (!data.ok) errors.push(...data.errors);

  if (!envelope.ok || !data.ok || errors.length > 0) return { ok: false, errors };
  // `name` and `data` were checked together above (the data schema is the one of this name); TypeScript
  // cannot correlate the two, hence the assertion.
  const event = { ...envelope.value, data: data.value } as StorefrontEvent;
  return { ok: true, value: event, warnings: collectWarnings(event, raw) };
}
