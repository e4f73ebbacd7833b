/**
 * Zod building blocks shared by the event and push schemas. Messages are plain words starting with "must "
 * (that is how `issueMessage` tells them from zod's defaults); the field path and `, got <value>` are added there.
 */
import { z } from 'zod';
import type { Money } from '../events';
import { globalIdNumber, ORDER_GID_TYPES } from '../shopify-ids';

/**
 * Upper bounds keep every accepted value storable and exact downstream (see docs/decisions.md, Ingestion):
 * ids and keys fit PostgreSQL index entries and NATS headers; amounts stay exact in micro-units within a
 * JavaScript number and a PostgreSQL bigint.
 */
export const MAX_ID_CHARS = 512;
const MAX_TEXT_CHARS = 8192;
/** Largest money amount in any currency (a billion units). */
const MAX_AMOUNT = 1_000_000_000;
const MAX_QUANTITY = 1_000_000;
const MAX_COUNT = 1_000_000_000_000;

/**
 * Ids and keys are bounded in UTF-8 bytes too: PostgreSQL index entries hold about 2.7 KB, and an ad-spend key
 * of five members of 512 characters of CJK text would be 7.7 KB. The lower-cased form counts as well, since
 * some keys are stored lower-cased (and `İ` grows by a byte when lower-cased).
 */
const MAX_ID_BYTES = 512;
const utf8 = new TextEncoder();
function withinIdBytes(value: string): boolean {
  // A UTF-16 code unit, lower-cased, takes at most 3 bytes: most ids are counted without encoding them. Too
  // many characters is the length check's error alone.
  if (value.length * 3 <= MAX_ID_BYTES || value.length > MAX_ID_CHARS) return true;
  return utf8.encode(value).length <= MAX_ID_BYTES && utf8.encode(value.toLowerCase()).length <= MAX_ID_BYTES;
}
const ID_BYTES_MESSAGE = `must be at most ${MAX_ID_BYTES} bytes in UTF-8`;

/** A string of at most MAX_ID_CHARS characters and MAX_ID_BYTES bytes (an id, a key, a name of an ad). */
export const idText = z.string().max(MAX_ID_CHARS).refine(withinIdBytes, { error: ID_BYTES_MESSAGE });

/** A string with at least one character (an id, a token, a name): at most MAX_ID_CHARS, MAX_ID_BYTES bytes. */
export const nonEmptyString = z.string().min(1).max(MAX_ID_CHARS).refine(withinIdBytes, { error: ID_BYTES_MESSAGE });

/** Client and event ids: 1 to 256 characters. */
export const envelopeId = z.string().min(1).max(256);

/** ISO 4217 code, three upper-case letters. */
const CURRENCY_MESSAGE = 'must be a 3-letter ISO 4217 currency code such as USD';
export const currencyCode = z.string({ error: CURRENCY_MESSAGE }).regex(/^[A-Z]{3}$/, { error: CURRENCY_MESSAGE });

/**
 * The times every stage can store (docs/decisions.md, Ingestion): instants from 1000-01-01 to 8999-12-31 UTC and
 * UTC offsets below 16 hours. PostgreSQL refuses year 0000 and offsets of 16 hours or more, and JavaScript
 * writes an instant beyond 9999 as `+010000-...`, which PostgreSQL refuses too; the margin of centuries keeps
 * every time derived from an accepted one (store-local days, lookback windows, rollup periods) within four-digit
 * years.
 */
const EARLIEST_TIME = '1000-01-01T00:00:00Z';
const LATEST_TIME = '8999-12-31T23:59:59.999Z';
const EARLIEST_MS = Date.parse(EARLIEST_TIME);
const LATEST_MS = Date.parse(LATEST_TIME);
const OFFSET = /([+-])(\d{2}):(\d{2})$/;
const MAX_OFFSET_HOURS = 16;

/** True unless the offset is 16 hours or more (a text that is no date-time is left to the format check). */
function offsetStorable(value: string): boolean {
  const hours = OFFSET.exec(value)?.[2];
  return hours === undefined || Number(hours) < MAX_OFFSET_HOURS;
}

/** True unless the instant lies outside EARLIEST_TIME..LATEST_TIME (an unparsable text is left to the format check). */
function instantStorable(value: string): boolean {
  const ms = Date.parse(value);
  return Number.isNaN(ms) || (ms >= EARLIEST_MS && ms <= LATEST_MS);
}

/** ISO 8601 date-time with a time-zone designator (`Z` or `+hh:mm`), within the storable times. */
export const isoTimestamp = z.iso
  .datetime({
    offset: true,
    error: 'must be an ISO 8601 timestamp with a time zone (e.g. 2025-01-12T04:30:54.751Z)',
  })
  .refine(offsetStorable, { error: `must have a UTC offset below ${MAX_OFFSET_HOURS} hours`, abort: true })
  .refine(instantStorable, { error: 'must lie between 1000-01-01 and 8999-12-31 (UTC)' });

/** A calendar date `YYYY-MM-DD`, within the storable times. */
export const isoDate = z.iso
  .date({ error: 'must be a date in the form YYYY-MM-DD' })
  .refine((value) => instantStorable(`${value}T00:00:00Z`), {
    error: 'must lie between 1000-01-01 and 8999-12-31',
  });

/** A non-negative decimal number written as a string, as Shopify REST sends money. */
const DECIMAL_MESSAGE = 'must be a non-negative decimal string such as "19.99"';
export const decimalString = z
  .string({ error: DECIMAL_MESSAGE })
  .regex(/^\d+(\.\d+)?$/, { error: DECIMAL_MESSAGE, abort: true })
  .refine((v) => Number(v) < MAX_AMOUNT, { error: `must be below ${MAX_AMOUNT}` });

/** True for an absolute http(s) URL. */
function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

/** An absolute http(s) URL. */
export const httpUrl = z.string().max(MAX_TEXT_CHARS).refine(isHttpUrl, { error: 'must be an absolute http(s) URL' });

/** Something that looks like an email address (`local@domain`). */
const emailAddress = z
  .string()
  .max(320)
  .regex(/^[^\s@]+@[^\s@]+$/, { error: 'must be an email address' });

/** A count of items: a non-negative integer. */
export const quantity = z.int().min(0).max(MAX_QUANTITY);

/** A count of impressions or clicks. */
export const count = z.int().min(0).max(MAX_COUNT);

/** A money amount of a push (spend, value): non-negative, at most MAX_AMOUNT. */
export const amount = z.number().min(0).max(MAX_AMOUNT);

/** A monetary amount: a finite JSON number (a numeric string is rejected) and a currency code. */
export const moneySchema = z.looseObject({
  amount: z.number().min(-MAX_AMOUNT).max(MAX_AMOUNT),
  currencyCode,
}) satisfies z.ZodType<Money>;

const SHOP_ID_DIGITS = /^\d+$/;
const MAX_INT64 = 9223372036854775807n;

/** Fits a signed 64-bit integer (PostgreSQL `bigint`); non-digit strings are left to the pattern check. */
function fitsInt64(value: string): boolean {
  return !SHOP_ID_DIGITS.test(value) || BigInt(value) <= MAX_INT64;
}

/**
 * A Shopify id: a non-negative safe integer or a string of digits up to 2^63 - 1; output as a string.
 * Ids above 2^53 must be sent as strings (a JSON number would already have lost digits).
 */
export const shopId = z
  .union(
    [
      z.int().min(0),
      z
        .string()
        .regex(SHOP_ID_DIGITS, { error: 'must be a string of digits' })
        .refine(fitsInt64, { error: 'must be at most 9223372036854775807' }),
    ],
    { error: 'must be an integer or a string of digits' },
  )
  .transform((v) => String(v));

/** A platform id (ad spend, e.g. Meta's `act_123`): a safe integer or a non-empty string; output as a string. */
export const platformId = z
  .union([z.int(), nonEmptyString], { error: 'must be a string or an integer' })
  .transform((v) => String(v));

/** A platform id that may be `""` (ad-set and ad ids of a campaign-level row). */
export const platformIdOrEmpty = z
  .union([z.int(), idText], { error: 'must be a string or an integer' })
  .transform((v) => String(v));

/**
 * An id that pixels may send as a Shopify global id where the store's own data has the number: a
 * `gid://shopify/<Type>/<digits>` of one of `types` comes out as `<digits>` (so `gid://shopify/OrderIdentity/123`
 * and a pushed order `123` are one order); any other non-empty string is kept as sent; a global id of another
 * type is refused, since it cannot name this kind of object. See docs/decisions.md, Ingestion.
 */
function numericOrGlobalId(types: readonly [string, ...string[]], what: string) {
  const message = `must be ${what} (digits or gid://shopify/${types.join('|')}/<digits>)`;
  return z
    .string()
    .min(1)
    .max(MAX_ID_CHARS)
    .refine(withinIdBytes, { error: ID_BYTES_MESSAGE })
    .transform((value, ctx) => {
      if (!value.startsWith('gid://')) return value;
      const number = globalIdNumber(value, types);
      if (number !== null) return number;
      ctx.addIssue({ code: 'custom', message, input: value });
      return z.NEVER;
    });
}

/** An order id as pixels send it: digits, or `gid://shopify/Order/<n>` / `gid://shopify/OrderIdentity/<n>`. */
export const orderId = numericOrGlobalId(ORDER_GID_TYPES, 'an order id');

/** A customer id as pixels send it: digits, or `gid://shopify/Customer/<n>`. */
export const customerId = numericOrGlobalId(['Customer'], 'a customer id');

/**
 * An email address the visitor typed: trimmed and lower-cased (as identity compares emails), then checked to
 * look like an address; the output is the normalized address.
 */
export const typedEmailAddress = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .pipe(emailAddress);
