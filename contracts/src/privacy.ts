/**
 * Privacy and data rights (docs/product.md, Privacy; docs/operations.md, Privacy): erase a person, export a
 * person, delete a store. Request and response shapes of `POST /{version}/api/privacy/erase` and `.../export`,
 * and what the API, the CLI and the pipeline share about the requests they hand each other.
 */

/**
 * Who to erase or export: exactly one of the three. A person is every client linked to it (docs/product.md,
 * Identity), so any one identifier finds all of them.
 */
export interface PrivacySubjectRequest {
  /** The person's email (compared trimmed and lower-cased). */
  email?: string;
  /** The store's customer id, as an exact string (Shopify's exceed 2^53). */
  customer_id?: string;
  /** A browser client id of the person. */
  client_id?: string;
}

/** What one request names, after validation: identifiers of any of the person's clients. */
export interface PrivacySubject {
  emails: string[];
  customerIds: string[];
  clientIds: string[];
  orderIds: string[];
}

/** What an erasure removed: rows by table, messages by stream. */
export interface ErasureCounts {
  /** Persons found through the identifiers (0: nothing was stored about them). */
  persons: number;
  clients: number;
  raw_events: number;
  event_facts: number;
  orders: number;
  customers: number;
  link_clicks: number;
  identity_links: number;
  sessions: number;
  conversions: number;
  credits: number;
  dead_letters: number;
  webhook_dead_letters: number;
  /** Queued identity-event deliveries (WEBHOOKS stream). */
  webhook_messages: number;
  /** Messages of the person deleted from the EVENTS stream. */
  stream_messages: number;
  /** Other privacy requests and webhook bodies that named the person (exports kept for the operator, ...). */
  privacy_records: number;
}

/** The answer of the erase operation. */
export interface PrivacyEraseData {
  request_id: string;
  /** `done`: erased, `removed` holds the counts; `pending`: queued, the pipeline erases it within a minute. */
  status: 'done' | 'pending';
  removed: ErasureCounts | null;
}

export interface PrivacyEraseResponse {
  /** @isInt */
  code: number;
  message: string;
  data: PrivacyEraseData;
}

/** One stored event of a person. */
export interface ExportedEvent {
  event_id: string;
  client_id: string;
  name: string;
  /** ISO 8601. */
  occurred_at: string;
  page_url: string;
  referrer: string;
  /** What the facts keep of the event for the journeys, profiles and ad platforms; null where it had none. */
  page_title: string | null;
  client_ip: string | null;
  user_agent: string | null;
  fbp: string | null;
  /** The event's data (products, cart, checkout with addresses, lead form), for the kinds whose data is kept. */
  data: unknown;
  /** The event as received, while the store keeps raw payloads; null once pruned or when it keeps none. */
  payload: unknown;
}

/** One order of a person, as the store pushed it. */
export interface ExportedOrder {
  order_id: string;
  /** ISO 8601. */
  created_at: string;
  cancelled: boolean;
  email: string | null;
  customer_id: string | null;
  /** The latest order version pushed (null when only the storefront's checkout recorded it). */
  payload: unknown;
}

/** Everything stored about a person, as one document. */
export interface PersonExport {
  store_id: string;
  /** ISO 8601. */
  exported_at: string;
  identifiers: {
    client_ids: string[];
    emails: string[];
    customer_ids: string[];
    order_ids: string[];
  };
  events: ExportedEvent[];
  orders: ExportedOrder[];
  customers: unknown[];
  link_clicks: Array<{
    click_id: string;
    code: string;
    client_id: string;
    clicked_at: string;
    ip: string;
    user_agent: string;
    referrer: string;
  }>;
}

export interface PrivacyExportResponse {
  /** @isInt */
  code: number;
  message: string;
  data: PersonExport;
}

/** Where a privacy request came from. */
export type PrivacySource = 'api' | 'cli' | 'shopify';

/** Core NATS subject on which the pipeline runs a pending privacy request by id and answers when done. */
export const PRIVACY_REQUESTS_SUBJECT = 'privacy.requests';

/** Emails are compared trimmed and lower-cased, as identity compares them (docs/product.md, Identity). */
export const normalizedEmail = (email: string): string => email.trim().toLowerCase();

/** Longest identifier a request may name (an event's clientId is at most 256 characters). */
const MAX_IDENTIFIER = 512;

/**
 * The subject of an erase or export request, or what is wrong with it, naming the field: exactly one of `email`,
 * `customer_id`, `client_id`, a non-empty string.
 */
export function privacySubjectOf(
  body: PrivacySubjectRequest,
): { ok: true; subject: PrivacySubject } | { ok: false; field: string; message: string } {
  const given = (['email', 'customer_id', 'client_id'] as const).filter((f) => body[f] !== undefined);
  if (given.length !== 1)
    return {
      ok: false,
      field: given.length ? given.join(', ') : 'email',
      message: 'exactly one of email, customer_id, client_id is required',
    };
  const field = given[0]!;
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '')
    return { ok: false, field, message: 'must be a non-empty string' };
  if (value.length > MAX_IDENTIFIER) return { ok: false, field, message: `longer than ${MAX_IDENTIFIER} characters` };
  const subject: PrivacySubject = { emails: [], customerIds: [], clientIds: [], orderIds: [] };
  if (field === 'email') {
    const email = normalizedEmail(value);
    if (!email.includes('@')) return { ok: false, field, message: 'is not an email address' };
    subject.emails.push(email);
  } else if (field === 'customer_id') subject.customerIds.push(value.trim());
  else subject.clientIds.push(value);
  return { ok: true, subject };
}
