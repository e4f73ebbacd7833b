/**
 * Store platform connections (infra/migrations/0019_store_connections.sql; docs/product.md, Store connections):
 * a Shopify shop or a WooCommerce site whose signed order webhooks the API receives. The signing secret is
 * sealed under SECRETS_KEY and bound to its row; `findConnectionForVerify` is the one reader that opens it,
 * listings never select it.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from './db';
import type { SecretBox } from './secret-box';

export const CONNECTION_KINDS = ['shopify', 'woocommerce'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

export interface StoreConnection {
  connection_id: string;
  store_id: string;
  kind: ConnectionKind;
  /** The shop's myshopify.com domain, or the WooCommerce site URL. */
  account: string;
  created_at: Date;
}

/** A connection with its opened secret, for verifying one delivery. */
export interface VerifiableConnection extends StoreConnection {
  secret: string;
}

const PUBLIC_COLUMNS = 'connection_id, store_id, kind, account, created_at';
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `sc_` and 26 random characters (about 134 bits): the connection id is part of a public URL, never guessable. */
export function newConnectionId(): string {
  let id = 'sc_';
  for (const b of randomBytes(26)) id += ID_ALPHABET[b % 32];
  return id;
}

/** What a sealed secret is bound to: a sealed value copied into another row does not open. */
export function connectionSecretContext(storeId: string, connectionId: string): string {
  return `store_connections/${storeId}/${connectionId}/secret`;
}

/** `shop.myshopify.com` from what an operator may paste (`https://Shop.myshopify.com/admin`); null if not a shop domain. */
export function normalizeShopDomain(input: string): string | null {
  const host = input
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/\/.*$/, '');
  return /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/.test(host) ? host : null;
}

/** The site URL without a trailing slash; null unless an absolute http(s) URL. */
export function normalizeSiteUrl(input: string): string | null {
  const text = input.trim();
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export async function createConnection(
  db: Db,
  box: SecretBox,
  input: { storeId: string; kind: ConnectionKind; account: string; secret: string },
): Promise<StoreConnection> {
  const connectionId = newConnectionId();
  const sealed = box.seal(input.secret, connectionSecretContext(input.storeId, connectionId));
  const [row] = await db.query<StoreConnection>(
    'store_connection.insert',
    `insert into store_connections (connection_id, store_id, kind, account, secret_sealed)
     values ($1, $2, $3, $4, $5) returning ${PUBLIC_COLUMNS}`,
    [connectionId, input.storeId, input.kind, input.account, sealed],
  );
  return row!;
}

export function listConnections(db: Db, storeId: string): Promise<StoreConnection[]> {
  return db.query<StoreConnection>(
    'store_connection.list',
    `select ${PUBLIC_COLUMNS} from store_connections where store_id = $1 order by created_at, connection_id`,
    [storeId],
  );
}

/** Removes a connection (and its delivery records); false when the store has no such connection. */
export async function removeConnection(db: Db, storeId: string, connectionId: string): Promise<boolean> {
  const rows = await db.query(
    'store_connection.delete',
    'delete from store_connections where store_id = $1 and connection_id = $2 returning connection_id',
    [storeId, connectionId],
  );
  return rows.length > 0;
}

/**
 * The connection of `connectionId` with its secret opened by `box`; null when there is none. Throws
 * SealedValueError when the secret does not open (SECRETS_KEY changed): the operator must re-add it.
 */
export async function findConnectionForVerify(
  db: Db,
  box: SecretBox,
  connectionId: string,
): Promise<VerifiableConnection | null> {
  const [row] = await db.query<StoreConnection & { secret_sealed: string }>(
    'store_connection.get_for_verify',
    `select ${PUBLIC_COLUMNS}, secret_sealed from store_connections where connection_id = $1`,
    [connectionId],
  );
  if (!row) return null;
  const { secret_sealed: sealed, ...connection } = row;
  return { ...connection, secret: box.open(sealed, connectionSecretContext(row.store_id, row.connection_id)) };
}
