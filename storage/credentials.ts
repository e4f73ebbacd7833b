/**
 * Store credentials (docs/product.md, Credentials and tenancy): 256-bit random secrets with a kind prefix, stored as SHA-256 digests only,
 * compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const CREDENTIAL_KINDS = ['api_key', 'ingest_key', 'access_token', 'dashboard_key'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

export const CREDENTIAL_PREFIX: Record<CredentialKind, string> = {
  api_key: 'ak_',
  ingest_key: 'ik_',
  access_token: 'at_',
  // Read-only: the report operations and nothing else (docs/product.md, Credentials and tenancy).
  dashboard_key: 'dk_',
};

/** The kind a secret says it is by its prefix, or null when it has none of ours. */
export function kindOfSecret(secret: string): CredentialKind | null {
  return CREDENTIAL_KINDS.find((k) => secret.startsWith(CREDENTIAL_PREFIX[k])) ?? null;
}

export function generateCredential(kind: CredentialKind): string {
  return CREDENTIAL_PREFIX[kind] + randomBytes(32).toString('base64url');
}

export function digestCredential(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export function newStoreId(): string {
  // Lower-case base32-ish token usable as a NATS subject token (contracts STORE_ID_PATTERN).
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(14);
  let id = 'st_';
  for (const b of bytes) id += alphabet[b % alphabet.length];
  return id;
}
