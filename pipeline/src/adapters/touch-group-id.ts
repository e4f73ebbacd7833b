/**
 * The id of a touchpoint group (channel, source, medium, campaign, landing page): the web rollups store it
 * instead of the five texts, and `touch_groups` maps it back (docs/decisions.md, Analytics, touch groups).
 * It is a hash, so every worker, the reconciliation and the migration derive the same id without asking the
 * database: the first 64 bits of the MD5 of the values, each preceded by its length in UTF-8 bytes (so no
 * two lists of values share an encoding), as a signed bigint in decimal. `touch_group_id()` in SQL is the
 * same function.
 */
import { createHash } from 'node:crypto';

export const TOUCH_GROUP_DIMENSIONS = ['channel', 'source', 'medium', 'campaign', 'landing_page'] as const;

/** Recently seen groups: a batch asks for the same few hundred ids again and again. */
const cache = new Map<string, string>();
const CACHE_LIMIT = 100_000;

export function touchGroupId(values: readonly string[]): string {
  if (values.length !== TOUCH_GROUP_DIMENSIONS.length) {
    throw new RangeError(`touchGroupId: expected ${TOUCH_GROUP_DIMENSIONS.length} values, got ${values.length}`);
  }
  // Cached by the values joined with NUL, which PostgreSQL's text never holds: cheaper than the encoding.
  const joined = values.join('\u0000');
  const hit = cache.get(joined);
  if (hit !== undefined) return hit;
  const encoded = values.map((v) => `${Buffer.byteLength(v)}:${v}`).join('');
  const hex = createHash('md5').update(encoded).digest('hex').slice(0, 16);
  const id = BigInt.asIntN(64, BigInt(`0x${hex}`)).toString();
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(joined, id);
  return id;
}
