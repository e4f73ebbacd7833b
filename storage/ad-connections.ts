/**
 * Ad-platform connections of a store (docs/product.md, Ad spend from the ad platforms). The credentials are
 * sealed as one JSON object under the operator's SECRETS_KEY, bound to the connection id, and are never part of
 * what listing returns. The box is passed in: storage holds no key.
 */
import { randomBytes } from 'node:crypto';
import type { AdConnectionStatus } from '../contracts/src/settings';
import type { Db } from './db';

export const AD_CONNECTION_KINDS = ['meta', 'google', 'tiktok'] as const;
export type AdConnectionKind = (typeof AD_CONNECTION_KINDS)[number];

/** The `platform` of the spend rows each kind produces: the names touchpoints carry. */
export const AD_SPEND_PLATFORM: Record<AdConnectionKind, string> = {
  meta: 'facebook',
  google: 'google',
  tiktok: 'tiktok',
};

/** What seals and opens credentials (the secret box, AES-256-GCM under SECRETS_KEY). */
export interface Sealer {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

export interface AdConnection {
  id: string;
  storeId: string;
  kind: AdConnectionKind;
  accountId: string;
  status: 'connected' | 'failing';
  lastError: string | null;
  lastPullAt: Date | null;
  lastRows: number;
  lastDays: number;
  firstDay: string | null;
  lastDay: string | null;
  createdAt: Date;
}

type Row = {
  connection_id: string;
  store_id: string;
  kind: AdConnectionKind;
  account_id: string;
  status: 'connected' | 'failing';
  last_error: string | null;
  last_pull_at: Date | null;
  last_rows: number;
  last_days: number;
  first_day: string | null;
  last_day: string | null;
  created_at: Date;
};

const COLUMNS = `connection_id, store_id, kind, account_id, status, last_error, last_pull_at, last_rows, last_days,
  to_char(first_day, 'YYYY-MM-DD') as first_day, to_char(last_day, 'YYYY-MM-DD') as last_day, created_at`;

function fromRow(r: Row): AdConnection {
  return {
    id: r.connection_id,
    storeId: r.store_id,
    kind: r.kind,
    accountId: r.account_id,
    status: r.status,
    lastError: r.last_error,
    lastPullAt: r.last_pull_at,
    lastRows: r.last_rows,
    lastDays: r.last_days,
    firstDay: r.first_day,
    lastDay: r.last_day,
    createdAt: r.created_at,
  };
}

const context = (id: string): string => `ad_connection:${id}`;

/**
 * Adds a connection, or replaces the credentials of the same (store, kind, account) and marks it connected
 * again (a renewed token fixes a failing connection without losing its history).
 */
export async function upsertAdConnection(
  db: Db,
  box: Sealer,
  input: { storeId: string; kind: AdConnectionKind; accountId: string; secrets: Record<string, string> },
): Promise<AdConnection> {
  const [existing] = await db.query<{ connection_id: string }>(
    'ad_connections.find',
    'select connection_id from ad_connections where store_id = $1 and kind = $2 and account_id = $3',
    [input.storeId, input.kind, input.accountId],
  );
  const id = existing?.connection_id ?? `ac_${randomBytes(9).toString('base64url')}`;
  const sealed = box.seal(JSON.stringify(input.secrets), context(id));
  const [row] = await db.query<Row>(
    'ad_connections.upsert',
    `insert into ad_connections (connection_id, store_id, kind, account_id, secrets_sealed)
     values ($1, $2, $3, $4, $5)
     on conflict (connection_id) do update set secrets_sealed = excluded.secrets_sealed, status = 'connected',
       last_error = null, updated_at = now()
     returning ${COLUMNS}`,
    [id, input.storeId, input.kind, input.accountId, sealed],
  );
  return fromRow(row!);
}

export async function listAdConnections(db: Db, storeId?: string): Promise<AdConnection[]> {
  const rows = await db.query<Row>(
    'ad_connections.list',
    `select ${COLUMNS} from ad_connections where ($1::text is null or store_id = $1) order by store_id, created_at, connection_id`,
    [storeId ?? null],
  );
  return rows.map(fromRow);
}

/** Removes a connection of the store; the spend it pulled stays. False when the store has no such connection. */
export async function removeAdConnection(db: Db, storeId: string, id: string): Promise<boolean> {
  const rows = await db.query<{ connection_id: string }>(
    'ad_connections.remove',
    'delete from ad_connections where store_id = $1 and connection_id = $2 returning connection_id',
    [storeId, id],
  );
  return rows.length > 0;
}

/** The opened credentials of a connection; throws (SealedValueError) when SECRETS_KEY cannot open them. */
export async function adConnectionSecrets(db: Db, box: Sealer, id: string): Promise<Record<string, string>> {
  const [row] = await db.query<{ secrets_sealed: string }>(
    'ad_connections.secrets',
    'select secrets_sealed from ad_connections where connection_id = $1',
    [id],
  );
  if (!row) throw new Error(`no ad connection ${id}`);
  return JSON.parse(box.open(row.secrets_sealed, context(id))) as Record<string, string>;
}

/** Records a successful pull: connected, its rows and days, the days ever covered widened. */
export async function recordPullSuccess(
  db: Db,
  id: string,
  pull: { rows: number; days: number; fromDay: string; toDay: string },
): Promise<void> {
  await db.query(
    'ad_connections.pulled',
    `update ad_connections set status = 'connected', last_error = null, last_pull_at = now(), last_rows = $2,
       last_days = $3, first_day = least(coalesce(first_day, $4::date), $4::date),
       last_day = greatest(coalesce(last_day, $5::date), $5::date), updated_at = now()
     where connection_id = $1`,
    [id, pull.rows, pull.days, pull.fromDay, pull.toDay],
  );
}

/** Records a failed pull with the platform's message; the rows of earlier pulls stay. */
export async function recordPullFailure(db: Db, id: string, message: string): Promise<void> {
  await db.query(
    'ad_connections.failed',
    `update ad_connections set status = 'failing', last_error = $2, updated_at = now() where connection_id = $1`,
    [id, message.slice(0, 1000)],
  );
}

/** A connection's status as the API shows it (`get/connection/source`, `get/data-health`), times in store time. */
export function adConnectionStatusOf(c: AdConnection, local: (d: Date) => string): AdConnectionStatus {
  return {
    id: c.id,
    kind: c.kind,
    account_id: c.accountId,
    status: c.status,
    error: c.lastError,
    last_pull_at: c.lastPullAt ? local(c.lastPullAt) : null,
    rows: c.lastRows,
    days: c.lastDays,
    first_day: c.firstDay,
    last_day: c.lastDay,
  };
}
