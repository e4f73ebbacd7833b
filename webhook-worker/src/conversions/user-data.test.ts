/**
 * The normalisation and hashing rules against the platforms' own documented examples (sources in
 * test/fixtures/meta/README.md and beside each case).
 */
import { hashed, normaliseEmail, normaliseName, normalisePhone, phoneDigits, sha256Hex } from './user-data';

describe("Meta's documented examples (Conversions API, customer information parameters)", () => {
  it('hashes an email trimmed and lower-cased', () => {
    expect(normaliseEmail('meta', ' John_Smith@gmail.com ')).toBe('john_smith@gmail.com');
    expect(hashed(normaliseEmail('meta', 'John_Smith@gmail.com'))).toBe(
      '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f',
    );
  });

  it('hashes a US phone as its digits with the country code', () => {
    // Meta's example: "(650)555-1212", a US number, normalised to 16505551212.
    expect(normalisePhone('meta', '+1 (650) 555-1212')).toBe('16505551212');
    expect(hashed(normalisePhone('meta', '+1 (650) 555-1212'))).toBe(
      'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176',
    );
  });

  it('hashes names lower-cased, UTF-8 kept', () => {
    expect(hashed(normaliseName('Mary'))).toBe('6915771be1c5aa0c886870b6951b03d7eafc121fea0e80a5ea83beb7c449f4ec');
    expect(hashed(normaliseName('Valéry'))).toBe('08e1996b5dd49e62a4b4c010d44e4345592a863bb9f8e3976219bac29417149c');
    expect(normaliseName("O'Brien-Smith")).toBe('obriensmith');
    expect(normaliseName('  ')).toBeNull();
  });
});

describe("Google's and TikTok's rules", () => {
  it("Google drops the dots of a Gmail address's local part, and only there", () => {
    expect(normaliseEmail('google', ' Jane.Doe@GMail.com')).toBe('janedoe@gmail.com');
    expect(normaliseEmail('google', 'jane.doe@googlemail.com')).toBe('janedoe@googlemail.com');
    expect(normaliseEmail('google', 'jane.doe@example.com')).toBe('jane.doe@example.com');
    expect(normaliseEmail('tiktok', 'Jane.Doe@gmail.com')).toBe('jane.doe@gmail.com');
  });

  it('Google and TikTok take E.164, Meta the digits', () => {
    expect(normalisePhone('google', '+44 844 412 4653')).toBe('+448444124653');
    expect(normalisePhone('tiktok', '0044 844 412 4653')).toBe('+448444124653');
    expect(normalisePhone('meta', '0044 844 412 4653')).toBe('448444124653');
  });

  it('refuses what cannot be matched: no email, a national number', () => {
    expect(normaliseEmail('meta', 'not an email')).toBeNull();
    expect(phoneDigits('(650) 555-1212')).toBeNull();
    expect(phoneDigits('+0 123 456 789')).toBeNull();
    expect(phoneDigits('+1 23')).toBeNull();
    expect(hashed(null)).toBeNull();
  });

  it('hashes as lower-case hex SHA-256 of UTF-8', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
