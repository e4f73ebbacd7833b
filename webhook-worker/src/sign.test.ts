import { createHmac } from 'node:crypto';
import {
  decodeSecret,
  generateSecret,
  InvalidSecretError,
  signatureEntry,
  signatureHeader,
  standardWebhookHeaders,
} from './sign';

// The example of the Standard Webhooks reference libraries (secret of 24 bytes).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('signatureEntry', () => {
  it('matches the Standard Webhooks reference example', () => {
    expect(signatureEntry(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it('is HMAC-SHA256 over id.timestamp.body with the decoded key', () => {
    const secret = generateSecret();
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update('msg_1.1700000000.{"a":"é"}').digest('base64');
    expect(signatureEntry(secret, 'msg_1', 1700000000, '{"a":"é"}')).toBe(`v1,${expected}`);
  });

  it('changes with each signed part', () => {
    const s = generateSecret();
    const base = signatureEntry(s, 'msg_1', 1, 'x');
    expect(signatureEntry(s, 'msg_2', 1, 'x')).not.toBe(base);
    expect(signatureEntry(s, 'msg_1', 2, 'x')).not.toBe(base);
    expect(signatureEntry(s, 'msg_1', 1, 'y')).not.toBe(base);
    expect(signatureEntry(generateSecret(), 'msg_1', 1, 'x')).not.toBe(base);
  });
});

describe('signatureHeader', () => {
  it('lists one entry per secret, space-separated', () => {
    const a = generateSecret();
    const b = generateSecret();
    const header = signatureHeader([a, b], 'msg_1', 5, '{}');
    expect(header.split(' ')).toEqual([signatureEntry(a, 'msg_1', 5, '{}'), signatureEntry(b, 'msg_1', 5, '{}')]);
  });

  it('refuses to sign without a secret', () => {
    expect(() => signatureHeader([], 'msg_1', 5, '{}')).toThrow(InvalidSecretError);
  });

  it('builds the three headers', () => {
    expect(standardWebhookHeaders([VECTOR.secret], VECTOR.id, VECTOR.timestamp, VECTOR.body)).toEqual({
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': VECTOR.signature,
    });
  });
});

describe('secrets', () => {
  it('generates whsec_ + base64 of 32 random bytes', () => {
    const s = generateSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decodeSecret(s)).toHaveLength(32);
    expect(generateSecret()).not.toBe(s);
  });

  it.each([
    ['no prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['not base64', 'whsec_not*base64!'],
    ['too short', `whsec_${Buffer.alloc(16).toString('base64')}`],
    ['too long', `whsec_${Buffer.alloc(65).toString('base64')}`],
  ])('rejects a secret with %s, without quoting it', (_case, secret) => {
    expect(() => decodeSecret(secret)).toThrow(InvalidSecretError);
    try {
      decodeSecret(secret);
    } catch (err) {
      expect((err as Error).message).not.toContain(secret.slice(6));
    }
  });
});
