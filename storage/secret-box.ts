/**
 * Encryption at rest of credentials the service must send (Klaviyo private keys): AES-256-GCM under the
 * operator's SECRETS_KEY (32 random bytes, base64). Each value gets a fresh 96-bit IV and is bound to the record
 * it belongs to (the `context`, authenticated but not stored), so a sealed value copied into another row does not
 * open. The sealed text names the key it was sealed with by a short fingerprint, so a changed SECRETS_KEY is told
 * apart from a tampered value. Format: `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export const SECRETS_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';

/** A SECRETS_KEY that is not 32 bytes of base64; the message never quotes the value. */
export class SecretsKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsKeyError';
  }
}

/** A sealed value that does not open: malformed, sealed under another key, tampered, or for another record. */
export class SealedValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealedValueError';
  }
}

/** The 32 key bytes of a SECRETS_KEY given as base64 (standard or URL-safe, padding optional). */
export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    throw new SecretsKeyError('is not base64 (generate one with: openssl rand -base64 32)');
  }
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== SECRETS_KEY_BYTES) {
    throw new SecretsKeyError(
      `decodes to ${key.length} bytes; ${SECRETS_KEY_BYTES} expected (generate one with: openssl rand -base64 32)`,
    );
  }
  return key;
}

/** A new SECRETS_KEY value: base64 of 32 random bytes. */
export function generateSecretsKey(): string {
  return randomBytes(SECRETS_KEY_BYTES).toString('base64');
}

/** A public fingerprint of a key (8 hex digits of its SHA-256): tells keys apart, reveals nothing useful. */
export function secretsKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export interface SecretBox {
  /** Fingerprint of the key (see `secretsKeyId`). */
  readonly keyId: string;
  /** Encrypts `plaintext` for the record named by `context`. */
  seal(plaintext: string, context: string): string;
  /** Decrypts a value sealed for the same `context`; throws SealedValueError otherwise. */
  open(sealed: string, context: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== SECRETS_KEY_BYTES) {
    throw new SecretsKeyError(`key has ${key.length} bytes; ${SECRETS_KEY_BYTES} expected`);
  }
  const keyBytes = Buffer.from(key);
  const keyId = secretsKeyId(keyBytes);
  return {
    keyId,
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyBytes, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const parts = [iv, ciphertext, cipher.getAuthTag()].map((b) => b.toString('base64url'));
      return [VERSION, keyId, ...parts].join('.');
    },
    open(sealed, context) {
      const parts = sealed.split('.');
      if (parts.length !== 5 || parts[0] !== VERSION) throw new SealedValueError('sealed value is malformed');
      const [, sealedKeyId, ivText, ciphertextText, tagText] = parts as [string, string, string, string, string];
      if (sealedKeyId !== keyId) {
        throw new SealedValueError(
          `sealed under another SECRETS_KEY (key id ${sealedKeyId}; the configured key has id ${keyId})`,
        );
      }
      const iv = Buffer.from(ivText, 'base64url');
      const tag = Buffer.from(tagText, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SealedValueError('sealed value is malformed');
      const decipher = createDecipheriv('aes-256-gcm', keyBytes, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SealedValueError('sealed value failed authentication (altered, or sealed for another record)');
      }
    },
  };
}
