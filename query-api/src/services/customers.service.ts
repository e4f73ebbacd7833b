/**
 * Customer listing (spec operation 6, docs/product.md, API conventions): the pushed customers of one store (`shop_customers`, whose
 * payload is the validated `ShopCustomer`), paged Shopify-like by ascending id with `since_id`, filtered by
 * creation and update time given in the store's time zone, and mapped to the spec's Customer.
 *
 * Decisions (documented on the route as well):
 * - Ids are digit strings up to 2^63 - 1 in storage. `id`, `last_order_id` and the address ids are JSON
 *   numbers as the spec says, written with every digit even above 2^53 (`exactJsonInteger`); a client that
 *   parses JSON numbers as doubles loses digits there, so `admin_graphql_api_id` carries the id as text as
 *   well, and the `Link` header pages with the exact last id.
 * - Timestamps come out in the store's UTC offset at that instant, like Shopify (`2026-01-02T10:00:00+01:00`,
 *   `+00:00` for a UTC store), with milliseconds only when they are not zero.
 * - Date filters are inclusive bounds. `YYYY-MM-DD HH:MM:SS` (the spec's form) and `YYYY-MM-DD` (midnight) are
 *   store time; an ISO 8601 timestamp with an offset (what Shopify clients send) is taken as that instant.
 * - Required fields missing from the push get Shopify's defaults: email and names `""`, state `disabled`,
 *   orders_count 0, total_spent `"0.00"`, currency the store's, consent `not_subscribed` / `single_opt_in`.
 * - `default_address` is required by the spec: the pushed default address, else the address flagged default,
 *   else the first address; a customer without any address gets a placeholder with id 0, empty strings,
 *   null nullable members and `default: false`.
 */
import type {
  Customer,
  CustomerAddress,
  CustomerState,
  EmailMarketingConsent,
  SmsMarketingConsent,
} from '../../../contracts/src/customers';
import type { ShopCustomer, ShopCustomerAddress } from '../../../contracts/src/pushes';
import { localDateTime, zonedToEpoch } from '../../../contracts/src/time';
import type { StoreRecord } from '../../../storage/store-registry';
import type { Db } from '../../../storage/db';
import { exactJsonInteger } from '../app/exact-json-response';
import { badRequest } from '../app/errors';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 250;

/** The date filters, as given in the query (kept verbatim for the next-page link). */
export const TIME_FILTERS = ['created_at_min', 'created_at_max', 'updated_at_min', 'updated_at_max'] as const;
export type TimeFilter = (typeof TIME_FILTERS)[number];

export interface ListCustomersQuery {
  /** Exact digits of the last id seen (`"0"` for the first page). */
  sinceId: string;
  limit: number;
  filters: Partial<Record<TimeFilter, string>>;
}

export interface CustomersPage {
  customers: Customer[];
  /** The exact id to pass as since_id for the next page, or null on the last page. */
  nextSinceId: string | null;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/**
 * An instant as ISO 8601 in the time zone's offset at that instant, e.g. `2026-03-01T23:30:00-05:00`.
 * Falls back to UTC `Z` for historical offsets that are not whole minutes.
 */
export function isoInZone(epochMs: number, timeZone: string): string {
  const local = localDateTime(epochMs, timeZone).replace(' ', 'T');
  const wallMs = Date.parse(`${local}Z`);
  const offsetMinutes = (wallMs - Math.floor(epochMs / 1000) * 1000) / 60_000;
  const ms = ((epochMs % 1000) + 1000) % 1000;
  const fraction = ms ? `.${String(ms).padStart(3, '0')}` : '';
  if (!Number.isInteger(offsetMinutes) || Number.isNaN(wallMs)) return new Date(epochMs).toISOString();
  const abs = Math.abs(offsetMinutes);
  return `${local}${fraction}${offsetMinutes < 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

/** A stored ISO 8601 timestamp re-expressed in the store's offset; text that does not parse is kept as is. */
function storeTime(iso: string, timeZone: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : isoInZone(ms, timeZone);
}

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * The instants PostgreSQL's timestamptz and every time zone can express, 0001-01-01 to 9999-12-31 UTC: a
 * bound beyond them selects what the nearest one selects (no stored time lies outside).
 */
const FIRST_INSTANT = Date.UTC(2000, 0, 1) - 730_119 * 86_400_000;
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const clampInstant = (ms: number): number => Math.min(LAST_INSTANT, Math.max(FIRST_INSTANT, ms));

/** A date filter's instant: store time for `YYYY-MM-DD[ HH:MM:SS]`, the given instant for ISO 8601 with an offset. */
export function parseTimeFilter(param: string, value: string, timeZone: string): number {
  const text = value.trim();
  const zoned = zonedToEpoch(text, timeZone);
  if (zoned !== null) return clampInstant(zoned);
  if (ISO_WITH_OFFSET.test(text)) {
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return clampInstant(ms);
  }
  const shown = text.length > 40 ? `${text.slice(0, 40)}...` : text;
  throw badRequest(
    param,
    `must be a date-time YYYY-MM-DD HH:MM:SS in the store time zone (${timeZone}), got "${shown}"`,
  );
}

/** Builds the query: validates the date filters and their order (a min after its max is a 400). */
export function resolveTimeFilters(
  filters: Partial<Record<TimeFilter, string>>,
  timeZone: string,
): Partial<Record<TimeFilter, number>> {
  const out: Partial<Record<TimeFilter, number>> = {};
  for (const name of TIME_FILTERS) {
    const value = filters[name];
    if (value !== undefined) out[name] = parseTimeFilter(name, value, timeZone);
  }
  for (const field of ['created_at', 'updated_at'] as const) {
    const min = out[`${field}_min`];
    const max = out[`${field}_max`];
    if (min !== undefined && max !== undefined && min > max) throw badRequest(`${field}_min`, `is after ${field}_max`);
  }
  return out;
}

const text = (v: string | null | undefined): string => v ?? '';
const nullable = (v: string | null | undefined): string | null => v ?? null;

function toAddress(a: ShopCustomerAddress, customerId: number, isDefault: boolean): CustomerAddress {
  const firstName = text(a.first_name);
  const lastName = text(a.last_name);
  return {
    id: exactJsonInteger(a.id),
    customer_id: a.customer_id !== undefined ? exactJsonInteger(a.customer_id) : customerId,
    first_name: firstName,
    last_name: lastName,
    company: nullable(a.company),
    address1: text(a.address1),
    address2: nullable(a.address2),
    city: text(a.city),
    province: text(a.province),
    country: text(a.country),
    zip: text(a.zip),
    phone: nullable(a.phone),
    name: a.name ?? [firstName, lastName].filter(Boolean).join(' '),
    province_code: text(a.province_code),
    country_code: text(a.country_code),
    country_name: a.country_name ?? text(a.country),
    default: isDefault,
  };
}

/** Stands in for `default_address` when the customer has no address (the spec marks it required). */
function placeholderAddress(customerId: number): CustomerAddress {
  return {
    id: 0,
    customer_id: customerId,
    first_name: '',
    last_name: '',
    company: null,
    address1: '',
    address2: null,
    city: '',
    province: '',
    country: '',
    zip: '',
    phone: null,
    name: '',
    province_code: '',
    country_code: '',
    country_name: '',
    default: false,
  };
}

/** Maps a stored customer push to the spec's Customer, filling Shopify's defaults for what was not pushed. */
export function toCustomer(c: ShopCustomer, store: Pick<StoreRecord, 'timezone' | 'currency'>): Customer {
  const id = exactJsonInteger(c.id);
  const tz = store.timezone;
  const pushedAddresses = c.addresses ?? (c.default_address ? [c.default_address] : []);
  const defaultSource = c.default_address ?? pushedAddresses.find((a) => a.default) ?? pushedAddresses[0] ?? null;
  const email: EmailMarketingConsent = {
    state: c.email_marketing_consent?.state ?? 'not_subscribed',
    opt_in_level: c.email_marketing_consent?.opt_in_level ?? 'single_opt_in',
    consent_updated_at: c.email_marketing_consent?.consent_updated_at
      ? storeTime(c.email_marketing_consent.consent_updated_at, tz)
      : null,
  };
  const sms: SmsMarketingConsent | null = c.sms_marketing_consent
    ? {
        state: c.sms_marketing_consent.state,
        opt_in_level: c.sms_marketing_consent.opt_in_level ?? null,
        consent_updated_at: c.sms_marketing_consent.consent_updated_at
          ? storeTime(c.sms_marketing_consent.consent_updated_at, tz)
          : null,
        consent_collected_from: c.sms_marketing_consent.consent_collected_from ?? 'OTHER',
      }
    : null;
  return {
    id,
    email: text(c.email),
    created_at: storeTime(c.created_at, tz),
    updated_at: storeTime(c.updated_at, tz),
    first_name: text(c.first_name),
    last_name: text(c.last_name),
    orders_count: c.orders_count ?? 0,
    state: (c.state as CustomerState | undefined) ?? 'disabled',
    total_spent: c.total_spent ?? '0.00',
    last_order_id: c.last_order_id != null ? exactJsonInteger(c.last_order_id) : null,
    last_order_name: c.last_order_name ?? null,
    note: c.note ?? null,
    verified_email: c.verified_email ?? false,
    multipass_identifier: c.multipass_identifier ?? null,
    tax_exempt: c.tax_exempt ?? false,
    tags: c.tags ?? '',
    currency: c.currency ?? store.currency,
    phone: nullable(c.phone),
    addresses: pushedAddresses.map((a) => toAddress(a, id, a.default ?? a.id === defaultSource?.id)),
    tax_exemptions: c.tax_exemptions ?? [],
    email_marketing_consent: email,
    sms_marketing_consent: sms,
    admin_graphql_api_id: `gid://shopify/Customer/${c.id}`,
    default_address: defaultSource ? toAddress(defaultSource, id, true) : placeholderAddress(id),
  };
}

export class CustomersService {
  constructor(private readonly db: Db) {}

  /** One page of the store's customers with id > since_id, ascending by id (numerically). */
  async listCustomers(store: StoreRecord, query: ListCustomersQuery): Promise<CustomersPage> {
    const bounds = resolveTimeFilters(query.filters, store.timezone);
    const at = (name: TimeFilter): string | null => {
      const ms = bounds[name];
      return ms === undefined ? null : new Date(ms).toISOString();
    };
    // One row more than the page tells whether a next page exists.
    const rows = await this.db.query<{ customer_id: string; payload: ShopCustomer }>(
      'customers.list',
      `select customer_id, payload
       from shop_customers
       where store_id = $1
         and customer_id::numeric > $2::numeric
         and ($3::timestamptz is null or (payload->>'created_at')::timestamptz >= $3::timestamptz)
         and ($4::timestamptz is null or (payload->>'created_at')::timestamptz <= $4::timestamptz)
         and ($5::timestamptz is null or updated_at >= $5::timestamptz)
         and ($6::timestamptz is null or updated_at <= $6::timestamptz)
       order by customer_id::numeric
       limit $7`,
      [
        store.store_id,
        query.sinceId,
        at('created_at_min'),
        at('created_at_max'),
        at('updated_at_min'),
        at('updated_at_max'),
        query.limit + 1,
      ],
    );
    const page = rows.slice(0, query.limit);
    return {
      customers: page.map((r) => toCustomer(r.payload, store)),
      nextSinceId: rows.length > query.limit ? (page[page.length - 1]?.customer_id ?? null) : null,
    };
  }
}
