/**
 * User data for the ad platforms' conversion APIs, normalised by each platform's own rules and SHA-256 hashed:
 * nothing identifying leaves the service in clear. Pure.
 *
 * - Meta (Conversions API, customer information parameters): emails trimmed and lower-cased; phones as digits only,
 *   country code first, without leading zeros; names lower-cased without punctuation, UTF-8 kept.
 * - Google Ads (enhanced conversions): emails trimmed and lower-cased, the dots of a gmail.com or googlemail.com
 *   address's local part removed; phones in E.164 (`+` and digits) before hashing.
 * - TikTok (Events API): emails trimmed and lower-cased; phones in E.164 before hashing.
 */
import { createHash } from 'node:crypto';

export type AdPlatform = 'meta' | 'google' | 'tiktok';

/** Lower-case hex SHA-256 of the UTF-8 text, as all three platforms expect it. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The email as `platform` wants it hashed, or null when the text is not an email. */
export function normaliseEmail(platform: AdPlatform, text: string): string | null {
  const email = text.trim().toLowerCase();
  if (!EMAIL.test(email)) return null;
  if (platform !== 'google') return email;
  const at = email.lastIndexOf('@');
  const [local, domain] = [email.slice(0, at), email.slice(at + 1)];
  return domain === 'gmail.com' || domain === 'googlemail.com' ? `${local.replaceAll('.', '')}@${domain}` : email;
}

/**
 * A phone number's digits with its country code, from text in E.164 (`+15555550100`) or international form
 * (`0044 ...`); a national number without a country code is null (the platforms cannot match it, and guessing the
 * country would send another person's number).
 */
export function phoneDigits(text: string): string | null {
  const trimmed = text.trim();
  const international = trimmed.startsWith('+') || trimmed.startsWith('00');
  const digits = trimmed.replace(/\D/g, '').replace(/^00/, '');
  if (!international || digits.length < 8 || digits.length > 15 || digits.startsWith('0')) return null;
  return digits;
}

/** The phone as `platform` wants it hashed: digits only for Meta, E.164 for Google and TikTok. */
export function normalisePhone(platform: AdPlatform, text: string): string | null {
  const digits = phoneDigits(text);
  if (digits === null) return null;
  return platform === 'meta' ? digits : `+${digits}`;
}

/** A first or last name as Meta wants it hashed: lower case, punctuation and spaces removed, letters kept. */
export function normaliseName(text: string): string | null {
  const name = text
    .trim()
    .toLowerCase()
    .replace(/[\s\p{P}\p{S}]/gu, '');
  return name === '' ? null : name;
}

/** The hash of a normalised value, or null for a value that did not normalise. */
export const hashed = (normalised: string | null): string | null =>
  normalised === null ? null : sha256Hex(normalised);
