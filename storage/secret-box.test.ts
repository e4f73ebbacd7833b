import { randomBytes } from 'node:crypto';
import {
  createSecretBox,
  generateSecretsKey,
  parseSecretsKey,
  SealedValueError,
  secretsKeyId,
  SecretsKeyError,
} from './secret-box';

const KEY = parseSecretsKey(generateSecretsKey());
const CONTEXT = 'webhook_destinations/st_one/wd_one/api_key';
const PLAIN = 'pk_0123456789abcdef0123456789abcdef01';

/** Replaces one base64url character of part `index` of a sealed value with another valid one. */
function alterPart(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const part = parts[index]!;
  parts[index] = (part[0] === 'A' ? 'B' : 'A') + part.slice(1);
  return parts.join('.');
}

describe('secret box', () => {
  it('opens what it sealed, for the same record', () => {
    const box = createSecretBox(KEY);
    for (const text of [PLAIN, '', 'ünïcødé ✓ and spaces', 'x'.repeat(5000)]) {
      const sealed = box.seal(text, CONTEXT);
      expect(box.open(sealed, CONTEXT)).toBe(text);
    }
  });

  it('never shows the plaintext and uses a fresh IV each time', () => {
    const box = createSecretBox(KEY);
    const a = box.seal(PLAIN, CONTEXT);
    const b = box.seal(PLAIN, CONTEXT);
    expect(a).not.toBe(b);
    expect(a.split('.')[2]).not.toBe(b.split('.')[2]);
    for (const sealed of [a, b]) {
      expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
      expect(sealed).not.toContain(PLAIN);
      expect(sealed).not.toContain(Buffer.from(PLAIN).toString('base64url').slice(0, 12));
    }
    // A new box over a copy of the same key opens it (nothing is kept between seal and open).
    expect(createSecretBox(Buffer.from(KEY)).open(a, CONTEXT)).toBe(PLAIN);
  });

  it('refuses to open under another key, saying so by key id', () => {
    const sealed = createSecretBox(KEY).seal(PLAIN, CONTEXT);
    const other = createSecretBox(randomBytes(32));
    expect(() => other.open(sealed, CONTEXT)).toThrow(SealedValueError);
    expect(() => other.open(sealed, CONTEXT)).toThrow(
      `sealed under another SECRETS_KEY (key id ${secretsKeyId(KEY)}; the configured key has id ${other.keyId})`,
    );
    // Even with the key id forged to match, the other key cannot authenticate it.
    const forged = sealed.replace(`.${secretsKeyId(KEY)}.`, `.${other.keyId}.`);
    expect(() => other.open(forged, CONTEXT)).toThrow(/failed authentication/);
  });

  it.each([
    ['IV', 2],
    ['ciphertext', 3],
    ['tag', 4],
  ])('refuses a value with an altered %s', (_what, index) => {
    const box = createSecretBox(KEY);
    const sealed = box.seal(PLAIN, CONTEXT);
    const altered = alterPart(sealed, index);
    expect(altered).not.toBe(sealed);
    expect(() => box.open(altered, CONTEXT)).toThrow(
      new SealedValueError('sealed value failed authentication (altered, or sealed for another record)'),
    );
  });

  it('refuses a value sealed for another record (copied between rows)', () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal(PLAIN, CONTEXT);
    expect(() => box.open(sealed, 'webhook_destinations/st_two/wd_one/api_key')).toThrow(/failed authentication/);
  });

  it.each(['', 'pk_plaintext', 'v2.abcd1234.a.b.c', 'v1.abcd.only-three', 'v1.x.AAAA.AAAA.AAAA'])(
    'refuses the malformed value %j',
    (sealed) => {
      const box = createSecretBox(KEY);
      const attempt = () => box.open(sealed.replace('.x.', `.${box.keyId}.`), CONTEXT);
      expect(attempt).toThrow(SealedValueError);
      expect(attempt).toThrow(/malformed/);
    },
  );
});

describe('SECRETS_KEY', () => {
  it('accepts 32 bytes of standard or URL-safe base64, with or without padding', () => {
    const bytes = randomBytes(32);
    expect(parseSecretsKey(bytes.toString('base64'))).toEqual(bytes);
    expect(parseSecretsKey(` ${bytes.toString('base64')}\n`)).toEqual(bytes);
    expect(parseSecretsKey(bytes.toString('base64url'))).toEqual(bytes);
    expect(Buffer.from(generateSecretsKey(), 'base64')).toHaveLength(32);
  });

  it.each([
    ['not base64', 'this is not base64!', /is not base64/],
    ['too short', randomBytes(16).toString('base64'), /decodes to 16 bytes; 32 expected/],
    ['too long', randomBytes(48).toString('base64'), /decodes to 48 bytes; 32 expected/],
    ['empty', '', /is not base64/],
  ])('refuses a key that is %s, without quoting it', (_case, text, message) => {
    expect(() => parseSecretsKey(text)).toThrow(SecretsKeyError);
    expect(() => parseSecretsKey(text)).toThrow(message);
    try {
      parseSecretsKey(text);
    } catch (err) {
      if (text) expect((err as Error).message).not.toContain(text);
    }
  });

  it('gives each key its own id', () => {
    expect(secretsKeyId(KEY)).toMatch(/^[0-9a-f]{8}$/);
    expect(secretsKeyId(KEY)).toBe(createSecretBox(KEY).keyId);
    expect(secretsKeyId(randomBytes(32))).not.toBe(secretsKeyId(KEY));
    expect(() => createSecretBox(randomBytes(31))).toThrow(SecretsKeyError);
  });
});
