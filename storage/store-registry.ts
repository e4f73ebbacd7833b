/** Stores (tenants) and their credentials (docs/product.md, Credentials and tenancy). Used by the admin CLI and the query API. */
import type { Db, Query } from './db';
import {
  CREDENTIAL_KINDS,
  type CredentialKind,
  digestCredential,
  digestsEqual,
  generateCredential,
  newStoreId,
} from './credentials';

export interface StoreRecord {
  store_id: string;
  name: string;
  timezone: string;
  currency: string;
  lookback_days: number;
  /** Half-life of the time-decay model, in days. */
  half_life_days: number;
  created_at: Date;
}

export interface NewStore {
  name: string;
  timezone: string;
  currency: string;
  lookbackDays: number;
  /** Default 7 (docs/product.md, Attribution). */
  halfLifeDays?: number;
}

/** The attribution settings a store can change after it was created. */
export interface StoreSettingsChange {
  lookbackDays?: number;
  halfLifeDays?: number;
}

const STORE_COLUMNS =
  'store_id, name, timezone, currency, lookback_days, half_life_days::float8 as half_life_days, created_at';

export type StoreCredentials = Record<CredentialKind, string>;

async function insertCredential(q: Query, storeId: string, kind: CredentialKind): Promise<string> {
  const secret = generateCredential(kind);
  await q('credential.insert', 'insert into credentials (store_id, kind, digest) values ($1, $2, $3)', [
    storeId,
    kind,
    digestCredential(secret),
  ]);
  return secret;
}

export async function createStore(
  db: Db,
  store: NewStore,
): Promise<{ store: StoreRecord; credentials: StoreCredentials }> {
  return db.transaction('store.create', async (tx) => {
    const storeId = newStoreId();
    const [row] = await tx<StoreRecord>(
      'store.insert',
      `insert into stores (store_id, name, timezone, currency, lookback_days, half_life_days)
       values ($1, $2, $3, $4, $5, coalesce($6::numeric, 7))
       returning ${STORE_COLUMNS}`,
      [storeId, store.name, store.timezone, store.currency, store.lookbackDays, store.halfLifeDays ?? null],
    );
    const credentials = {} as StoreCredentials;
    for (const kind of CREDENTIAL_KINDS) credentials[kind] = await insertCredential(tx, storeId, kind);
    return { store: row!, credentials };
  });
}

export async function listStores(db: Db): Promise<Array<StoreRecord & { active_credentials: string[] }>> {
  return db.query(
    'store.list',
    `
    select s.store_id, s.name, s.timezone, s.currency, s.lookback_days, s.half_life_days::float8 as half_life_days, s.created_at,
           coalesce(array_agg(distinct c.kind) filter (where c.kind is not null), '{}') as active_credentials
    from stores s left join credentials c on c.store_id = s.store_id and c.revoked_at is null
    group by s.store_id order by s.created_at`,
  );
}

export async function getStore(db: Db, storeId: string): Promise<StoreRecord | null> {
  const rows = await db.query<StoreRecord>('store.get', `select ${STORE_COLUMNS} from stores where store_id = $1`, [
    storeId,
  ]);
  return rows[0] ?? null;
}

/**
 * Changes a store's attribution settings; returns the store as it now is, or null when there is no such store.
 * The change applies to conversions recomputed afterwards (docs/product.md, Attribution).
 */
export async function updateStoreSettings(
  db: Db,
  storeId: string,
  change: StoreSettingsChange,
): Promise<StoreRecord | null> {
  const rows = await db.query<StoreRecord>(
    'store.update_settings',
    `update stores set lookback_days = coalesce($2::integer, lookback_days),
                       half_life_days = coalesce($3::numeric, half_life_days)
     where store_id = $1 returning ${STORE_COLUMNS}`,
    [storeId, change.lookbackDays ?? null, change.halfLifeDays ?? null],
  );
  return rows[0] ?? null;
}

/** Revokes every active credential of the kind and issues a new one, atomically. */
export async function rotateCredential(db: Db, storeId: string, kind: CredentialKind): Promise<string> {
  return db.transaction('credential.rotate', async (tx) => {
    await tx(
      'credential.revoke',
      'update credentials set revoked_at = now() where store_id = $1 and kind = $2 and revoked_at is null',
      [storeId, kind],
    );
    return insertCredential(tx, storeId, kind);
  });
}

/** Revokes every active credential of the kind; returns how many were revoked. */
export async function revokeCredential(db: Db, storeId: string, kind: CredentialKind): Promise<number> {
  const rows = await db.query(
    'credential.revoke',
    'update credentials set revoked_at = now() where store_id = $1 and kind = $2 and revoked_at is null returning 1',
    [storeId, kind],
  );
  return rows.length;
}

/**
 * The channel on which PostgreSQL announces every change to a credential or a store (migration 0016's triggers;
 * the payload is the store id): what the API listens to before it trusts a verification it holds.
 */
export const CREDENTIAL_CHANGES_CHANNEL = 'credential_changes';

/**
 * The store a credential belongs to, or null when it is unknown or revoked. The lookup is by digest (the
 * secret never reaches the database) and the digest is compared again in constant time.
 */
export async function findStoreByCredential(db: Db, kind: CredentialKind, secret: string): Promise<StoreRecord | null> {
  if (!secret || secret.length > 200) return null;
  const digest = digestCredential(secret);
  const rows = await db.query<StoreRecord & { digest: Buffer }>(
    'credential.lookup',
    `select s.store_id, s.name, s.timezone, s.currency, s.lookback_days, s.half_life_days::float8 as half_life_days, s.created_at, c.digest
     from credentials c join stores s on s.store_id = c.store_id
     where c.digest = $1 and c.kind = $2 and c.revoked_at is null`,
    [digest, kind],
  );
  const row = rows[0];
  if (!row || !digestsEqual(row.digest, digest)) return null;
  const { digest: _digest, ...store } = row;
  return store;
}
