/**
 * What the batch transaction does for erasure (docs/operations.md, Privacy; docs/decisions.md, Privacy):
 *  - it takes each store's erasure gate, shared: an erasure takes it exclusively while it records its tombstones,
 *    so a batch either committed before (the erasure then finds its facts) or reads the tombstones after;
 *  - it drops the messages that name an erased person (published before the erasure, processed after it);
 *  - it records the stream sequence of every other message by the client it belongs to, so that an erasure can
 *    delete them from the stream.
 */
import { createHash } from 'node:crypto';
import type { Query } from '../../../storage/db';
import type { BatchItem } from '../stream/build-pipeline';
import type { DecodedFact } from '../domain/decode-message';
import { namesOfCustomer, namesOfEvent, namesOfOrder, ownerOfMessage, clientName } from '../domain/erasure-names';
import { toEventFact, toOrderFact } from '../domain/facts';
import { lockNames, lockNamesOfStores } from './pg-advisory-locks';

/** The digest a tombstone keeps of a name (hex SHA-256 of its UTF-8). */
export const tombstoneDigest = (name: string): string => createHash('sha256').update(name, 'utf8').digest('hex');

/** The tombstone of a deleted store: every message of it is dropped. */
export const STORE_TOMBSTONE = tombstoneDigest('store');

/** The one name of a store's erasure gate (advisory lock space `erasure`). */
const GATE = ['gate'];

export async function takeErasureGate(q: Query, storeId: string, mode: 'shared' | 'exclusive'): Promise<void> {
  await lockNames(q, `erasure.gate_${mode}`, storeId, 'erasure', GATE, mode);
}

/** Shared gates of the batch's stores, in one statement and in one order for every worker. */
export async function takeErasureGates(q: Query, storeIds: readonly string[]): Promise<void> {
  await lockNamesOfStores(
    q,
    'erasure.gate_shared',
    'erasure',
    storeIds.map((storeId) => ({ storeId, names: GATE })),
    'shared',
  );
}

/** The tombstones of the stores that have any (erasures are rare: most batches read nothing). */
export async function loadTombstones(q: Query, storeIds: readonly string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (storeIds.length === 0) return out;
  const rows = await q<{ store_id: string; digest: string }>(
    'erasure.tombstones',
    'select store_id, digest from erased_identifiers where store_id = any($1::text[])',
    [storeIds],
  );
  for (const r of rows) {
    let set = out.get(r.store_id);
    if (!set) out.set(r.store_id, (set = new Set()));
    set.add(r.digest);
  }
  return out;
}

/** The names a decoded message carries (currency and rates do not change identity: any will do). */
function namesOf(d: DecodedFact, currency: string): string[] {
  const rateOf = () => 1;
  switch (d.kind) {
    case 'event':
      return namesOfEvent(toEventFact(d.event, currency, rateOf).fact);
    case 'order':
      return namesOfOrder(toOrderFact(d.order, currency, rateOf).fact, d.order);
    case 'customer':
      return namesOfCustomer(d.customer);
    case 'link_click':
      return [clientName(d.click.clientId)];
    case 'product':
    case 'ad_spend':
      return [];
  }
}

/**
 * Splits the batch into the messages to apply and those of erased persons. `currencyOf` gives a store's currency
 * (only stores with tombstones are asked).
 */
export function screenErased(
  items: readonly BatchItem[],
  tombstones: ReadonlyMap<string, ReadonlySet<string>>,
  currencyOf: (storeId: string) => string,
): { kept: BatchItem[]; erased: BatchItem[] } {
  if (tombstones.size === 0) return { kept: [...items], erased: [] };
  const kept: BatchItem[] = [];
  const erased: BatchItem[] = [];
  for (const item of items) {
    const d = item.decoded;
    const dead = d.kind === 'poison' ? undefined : tombstones.get(d.storeId);
    if (
      d.kind !== 'poison' &&
      dead &&
      (dead.has(STORE_TOMBSTONE) || namesOf(d, currencyOf(d.storeId)).some((n) => dead.has(tombstoneDigest(n))))
    )
      erased.push(item);
    else kept.push(item);
  }
  return { kept, erased };
}

/** Records who each message belongs to, by its stream sequence (a redelivered message is recorded once). */
export async function recordMessageOwners(q: Query, items: readonly BatchItem[]): Promise<void> {
  const stores: string[] = [];
  const owners: string[] = [];
  const seqs: number[] = [];
  for (const item of items) {
    if (item.decoded.kind === 'poison') continue;
    const owner = ownerOfMessage(item.decoded);
    if (owner === null) continue;
    stores.push(item.decoded.storeId);
    owners.push(owner);
    seqs.push(item.msg.seq);
  }
  if (seqs.length === 0) return;
  await q(
    'erasure.message_owners',
    `insert into message_owners (store_id, owner, stream_seq)
     select * from unnest($1::text[], $2::text[], $3::bigint[]) on conflict do nothing`,
    [stores, owners, seqs],
  );
}
