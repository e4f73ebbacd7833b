/**
 * What the privacy operations share (docs/operations.md, Privacy): a person found through its identifiers, the
 * requests the API and the Shopify receiver hand to the pipeline, and the audit. The erasure itself is the
 * pipeline's (pipeline/src/operations/erase-person.ts), since it retracts the person's views.
 */
import { randomBytes } from 'node:crypto';
import { IDENTITY_KEY_PREFIX, ORDER_CLIENT_PREFIX } from '../contracts/src/identity';
import type { PrivacySource, PrivacySubject } from '../contracts/src/privacy';
import type { Db, Query } from './db';
import { keyProbeSql } from './key-probe';

/** Every client of the persons an identifier names, and every identity key of those clients. */
export interface FoundPerson {
  personIds: string[];
  /** Browser clients and order pseudo-clients (`order:<id>`). */
  clientIds: string[];
  /** Identity keys of those clients as stored (`e:<email>`, `c:<customer id>`, `o:<order id>`, ...). */
  keys: string[];
}

/** The identity keys and clients a subject names directly. */
export function seedsOf(subject: PrivacySubject): { keys: string[]; clientIds: string[] } {
  return {
    keys: [
      ...subject.emails.map((e) => `${IDENTITY_KEY_PREFIX.email}${e}`),
      ...subject.customerIds.map((c) => `${IDENTITY_KEY_PREFIX.customer}${c}`),
      ...subject.orderIds.map((o) => `${IDENTITY_KEY_PREFIX.order}${o}`),
    ],
    clientIds: [...subject.clientIds, ...subject.orderIds.map((o) => `${ORDER_CLIENT_PREFIX}${o}`)],
  };
}

/**
 * The persons a subject names: the clients carrying its keys or named by it, their persons, every client of those
 * persons and their keys. Persons are the clients table's (the pipeline keeps it equal to the components of the
 * identity links).
 */
export async function findPerson(q: Query, storeId: string, subject: PrivacySubject): Promise<FoundPerson> {
  const seeds = seedsOf(subject);
  const [viaKeys, direct] = await Promise.all([
    q<{ person_id: string }>(
      'privacy.persons_of_keys',
      keyProbeSql({
        select: 'c.person_id',
        from: 'identity_links l join clients c on c.store_id = l.store_id and c.client_id = l.client_id',
        key: 'l.key',
        store: 'l.store_id',
      }),
      [storeId, seeds.keys],
    ),
    q<{ person_id: string }>(
      'privacy.persons_of_clients',
      keyProbeSql({ select: 'person_id', from: 'clients', key: 'client_id' }),
      [storeId, seeds.clientIds],
    ),
  ]);
  const personIds = [...new Set([...viaKeys, ...direct].map((r) => r.person_id))].sort();
  const clients = personIds.length
    ? await q<{ client_id: string }>(
        'privacy.clients_of_persons',
        keyProbeSql({ select: 'client_id', from: 'clients', key: 'person_id' }),
        [storeId, personIds],
      )
    : [];
  const clientIds = [...new Set([...clients.map((c) => c.client_id)])].sort();
  const keys = clientIds.length
    ? await q<{ key: string }>(
        'privacy.keys_of_clients',
        keyProbeSql({ select: 'key', from: 'identity_links', key: 'client_id' }),
        [storeId, clientIds],
      )
    : [];
  return { personIds, clientIds, keys: [...new Set(keys.map((k) => k.key))].sort() };
}

/** The emails, customer ids and order ids among identity keys. */
export function identifiersOfKeys(keys: readonly string[]): {
  emails: string[];
  customerIds: string[];
  orderIds: string[];
} {
  const of = (prefix: string) => keys.filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
  return {
    emails: of(IDENTITY_KEY_PREFIX.email),
    customerIds: of(IDENTITY_KEY_PREFIX.customer),
    orderIds: of(IDENTITY_KEY_PREFIX.order),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------

export type PrivacyRequestKind = 'erase' | 'export' | 'delete_store';

export interface PrivacyRequestRow {
  request_id: string;
  store_id: string;
  kind: PrivacyRequestKind;
  source: PrivacySource;
  credential: string;
  subject: PrivacySubject | null;
  status: 'pending' | 'running' | 'done' | 'failed';
  received_at: Date;
  finished_at: Date | null;
  result: unknown;
  error: string | null;
}

export const newPrivacyRequestId = (): string => `pr_${randomBytes(12).toString('hex')}`;

export interface NewPrivacyRequest {
  storeId: string;
  kind: PrivacyRequestKind;
  source: PrivacySource;
  /** Who asked: `api_key:<digest prefix>`, `cli`, `shopify:<connection id>`. */
  credential: string;
  subject: PrivacySubject | null;
  /** A request answered at once (an export Shopify asked for): stored done with its result. */
  result?: unknown;
}

export async function insertPrivacyRequest(q: Query, r: NewPrivacyRequest): Promise<string> {
  const id = newPrivacyRequestId();
  const done = r.result !== undefined;
  await q(
    'privacy.request_insert',
    `insert into privacy_requests (request_id, store_id, kind, source, credential, subject, status, result, finished_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, case when $9 then now() end)`,
    [
      id,
      r.storeId,
      r.kind,
      r.source,
      r.credential,
      r.subject === null ? null : JSON.stringify(r.subject),
      done ? 'done' : 'pending',
      done ? JSON.stringify(r.result) : null,
      done,
    ],
  );
  return id;
}

/** A running request older than this is taken for abandoned (its worker died) and run again: erasure is idempotent. */
export const ABANDONED_AFTER_S = 600;

/** Takes a request to run: pending, or running but abandoned. Null when done, unknown, or another worker runs it. */
export async function claimPrivacyRequest(db: Db, requestId: string): Promise<PrivacyRequestRow | null> {
  const [row] = await db.query<PrivacyRequestRow>(
    'privacy.request_claim',
    `update privacy_requests set status = 'running', started_at = now()
     where request_id = $1 and kind <> 'export'
       and (status = 'pending' or (status = 'running' and started_at < now() - make_interval(secs => $2)))
     returning *`,
    [requestId, ABANDONED_AFTER_S],
  );
  return row ?? null;
}

/** Requests waiting for the pipeline (or abandoned by it), oldest first. */
export async function pendingPrivacyRequests(db: Db, limit = 100): Promise<string[]> {
  const rows = await db.query<{ request_id: string }>(
    'privacy.requests_pending',
    `select request_id from privacy_requests
     where status in ('pending', 'running') and kind <> 'export'
       and (status = 'pending' or started_at < now() - make_interval(secs => $2))
     order by received_at limit $1`,
    [limit, ABANDONED_AFTER_S],
  );
  return rows.map((r) => r.request_id);
}

/** Ends a request: its identifiers are forgotten, its result or error kept. */
export async function finishPrivacyRequest(
  q: Query,
  requestId: string,
  outcome: { result: unknown } | { error: string },
): Promise<void> {
  await q(
    'privacy.request_finish',
    `update privacy_requests set subject = null, finished_at = now(), status = $2, result = $3, error = $4
     where request_id = $1`,
    'result' in outcome
      ? [requestId, 'done', JSON.stringify(outcome.result), null]
      : [requestId, 'failed', null, outcome.error],
  );
}

export async function getPrivacyRequest(db: Db, requestId: string): Promise<PrivacyRequestRow | null> {
  const [row] = await db.query<PrivacyRequestRow>(
    'privacy.request_get',
    'select * from privacy_requests where request_id = $1',
    [requestId],
  );
  return row ?? null;
}

/** A store's requests, newest first, without their results (an export's document is read one at a time). */
export async function listPrivacyRequests(
  db: Db,
  storeId: string,
): Promise<Array<Omit<PrivacyRequestRow, 'result' | 'subject'>>> {
  return db.query(
    'privacy.requests_list',
    `select request_id, store_id, kind, source, credential, status, received_at, finished_at, error
     from privacy_requests where store_id = $1 order by received_at desc`,
    [storeId],
  );
}

// ---------------------------------------------------------------------------------------------------------
// Audit
// ---------------------------------------------------------------------------------------------------------

export interface PrivacyAuditEntry {
  storeId: string;
  action: PrivacyRequestKind;
  source: PrivacySource;
  credential: string;
  requestedAt: Date;
  /** Counts only: never an identifier. */
  counts: Record<string, number>;
}

export async function recordPrivacyAudit(q: Query, e: PrivacyAuditEntry): Promise<void> {
  await q(
    'privacy.audit_insert',
    `insert into privacy_audit (store_id, action, source, credential, requested_at, counts)
     values ($1, $2, $3, $4, $5, $6)`,
    [e.storeId, e.action, e.source, e.credential, e.requestedAt.toISOString(), JSON.stringify(e.counts)],
  );
}

export interface PrivacyAuditRow {
  id: string;
  store_id: string;
  action: PrivacyRequestKind;
  source: PrivacySource;
  credential: string;
  requested_at: Date;
  finished_at: Date;
  counts: Record<string, number>;
}

export async function listPrivacyAudit(db: Db, storeId: string): Promise<PrivacyAuditRow[]> {
  return db.query<PrivacyAuditRow>(
    'privacy.audit_list',
    'select * from privacy_audit where store_id = $1 order by id',
    [storeId],
  );
}

/** How a credential is named in requests and the audit: its kind and the first hex digits of its digest. */
export const credentialLabel = (kind: string, keyId: string): string => `${kind}:${keyId.slice(0, 12)}`;
