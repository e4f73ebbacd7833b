/**
 * Touch groups. The id of a touchpoint group (channel, source, medium, campaign, landing page): the web rollups store it
 * instead of the five texts, and `touch_groups` maps it back (docs/decisions.md, Analytics, touch groups).
 * It is a hash, so every worker, the reconciliation and the migration derive the same id without asking the
 * database: the first 64 bits of the MD5 of the values, each preceded by its length in UTF-8 bytes (so no
 * two lists of values share an encoding), as a signed bigint in decimal. `touch_group_id()` in SQL is the
 * same function. `CommittedTouchGroups` remembers which groups a worker's committed batches recorded.
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

/**
 * Touch groups a worker knows to be in touch_groups: committed by one of its own batches (rows of that table
 * are never deleted). A batch names hundreds of groups, nearly all of them old; inserting them again would
 * cost a statement as large as the web_users update. Only committed groups count: one inserted by a batch
 * that then rolled back is not there.
 */
export class CommittedTouchGroups {
  private readonly ids = new Map<string, Set<string>>();
  private size = 0;

  constructor(private readonly limit = 200_000) {}

  has(storeId: string, id: string): boolean {
    return this.ids.get(storeId)?.has(id) ?? false;
  }

  add(storeId: string, ids: readonly string[]): void {
    if (this.size + ids.length > this.limit) {
      this.ids.clear();
      this.size = 0;
    }
    let known = this.ids.get(storeId);
    if (!known) {
      known = new Set();
      this.ids.set(storeId, known);
    }
    for (const id of ids) {
      if (known.has(id)) continue;
      known.add(id);
      this.size++;
    }
  }
}

/** A batch's view of the committed groups: which it may skip, and how to learn its own once committed. */
export interface TouchGroupMemory {
  committed: CommittedTouchGroups;
  afterCommit: (fn: () => void) => void;
}
