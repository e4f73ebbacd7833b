/**
 * The Standard Webhooks `webhook-id` of a delivery (docs/product.md, Identity events and destinations): a pure function of (store, destination, source
 * event, identity event), so every retry and every redelivery or replay of the source event carries the same id,
 * and two destinations never share one. No `node:crypto` in domain code: FNV-1a 128-bit over UTF-8 (128 bits
 * keep accidental collisions out of reach for receivers that dedupe on the id; it is not a secret).
 */

const FNV128_OFFSET = 0x6c62272e07bb014262b821756295c58dn;
const FNV128_PRIME = 0x0000000001000000000000000000013bn;
const MASK128 = (1n << 128n) - 1n;

/** UTF-8 bytes of `text` (a lone surrogate is encoded as its own three bytes, deterministically). */
function utf8(text: string): number[] {
  const bytes: number[] = [];
  for (const char of text) {
    const cp = char.codePointAt(0) ?? 0;
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else {
      bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    }
  }
  return bytes;
}

/** FNV-1a 128-bit of the UTF-8 bytes of `text`, as 32 lower-case hex digits. */
export function fnv1a128Hex(text: string): string {
  let hash = FNV128_OFFSET;
  for (const byte of utf8(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV128_PRIME) & MASK128;
  }
  return hash.toString(16).padStart(32, '0');
}

/** `msg_` + 32 hex digits; the parts are length-prefixed, so no two different inputs share an encoding. */
export function webhookId(storeId: string, destinationId: string, eventId: string, name: string): string {
  const encoded = [storeId, destinationId, eventId, name].map((part) => `${part.length}:${part}`).join('');
  return `msg_${fnv1a128Hex(encoded)}`;
}
