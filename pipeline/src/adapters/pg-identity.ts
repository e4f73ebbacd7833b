/**
 * The identity step of a store's maintenance (docs/product.md, Identity; docs/decisions.md, Identity): the batch's
 * clients and identity links are recorded, the persons they belong to resolved and locked, and persons that a
 * new link joins merged into one.
 */
import type { Query } from '../../../storage/db';
import { keyProbeSql } from '../../../storage/key-probe';
import type { EventFact, OrderFact } from '../domain/facts';
import { ClientIdentity, PersonUnion } from '../domain/identity';
import { lockNames } from './pg-advisory-locks';

/** What identity is derived from: a store's new events and orders, and the browser clients orders name. */
export interface IdentityFacts {
  events: readonly EventFact[];
  orders: readonly OrderFact[];
  /** Orders naming the browser client of their cart (identity hand-off). */
  handoffs: ReadonlyArray<{ orderId: string; browserClientId: string }>;
}

/** An epoch-ms time as PostgreSQL timestamptz text; Infinity is PostgreSQL's `infinity` (not seen yet). */
export const toTimestamp = (ms: number): string => (ms === Infinity ? 'infinity' : new Date(ms).toISOString());

/**
 * Records the batch's clients and identity links; returns the clients and the links that were new.
 * An order naming a browser client links both to the hand-off key; a client not seen yet is recorded with
 * `first_seen_at` infinity, which its first event lowers.
 */
export async function recordIdentity(
  q: Query,
  storeId: string,
  batch: IdentityFacts,
): Promise<{ batchClients: string[]; newLinks: Array<{ client_id: string; key: string }> }> {
  const identity = new ClientIdentity();
  for (const e of batch.events) identity.addEvent(e);
  for (const o of batch.orders) identity.addOrder(o);
  for (const h of batch.handoffs) identity.addHandoff(h.orderId, h.browserClientId);
  const firstSeen = identity.firstSeen;
  const batchClients = [...firstSeen.keys()];
  if (batchClients.length === 0) return { batchClients, newLinks: [] };

  await q(
    'identity.clients_upsert',
    `insert into clients (store_id, client_id, person_id, first_seen_at)
     select $1, c, c, t from unnest($2::text[], $3::timestamptz[]) as u(c, t)
     on conflict (store_id, client_id) do update set first_seen_at = excluded.first_seen_at
       where excluded.first_seen_at < clients.first_seen_at`,
    [storeId, batchClients, batchClients.map((c) => toTimestamp(firstSeen.get(c)!))],
  );
  const uniqueLinks = identity.links();
  const newLinks = uniqueLinks.length
    ? await q<{ client_id: string; key: string }>(
        'identity.links_insert',
        `insert into identity_links (store_id, client_id, key)
         select $1, * from unnest($2::text[], $3::text[])
         on conflict do nothing
         returning client_id, key`,
        [storeId, uniqueLinks.map((l) => l[0]), uniqueLinks.map((l) => l[1])],
      )
    : [];
  return { batchClients, newLinks };
}

/** The persons of the clients that carry any of the keys ($2) in store $1. */
export const PERSONS_OF_KEYS_SQL = keyProbeSql({
  select: 'l.client_id, l.key, c.person_id',
  from: 'identity_links l join clients c on c.store_id = l.store_id and c.client_id = l.client_id',
  key: 'l.key',
  store: 'l.store_id',
});

/**
 * How many times the persons are resolved and the new ones locked before the batch gives up: each round after the
 * first means another worker merged a person meanwhile, so 21 rounds are never needed in practice.
 */
export const IDENTITY_LOCK_ROUNDS = 21;

/**
 * The persons of a batch could not all be locked within the rounds allowed: another worker kept merging them.
 * A serialization failure (40001), so the batch flow retries the whole transaction.
 */
export class IdentityLocksExhaustedError extends Error {
  readonly code = '40001';

  constructor(
    readonly storeId: string,
    readonly unlocked: number,
    readonly rounds: number,
  ) {
    super(`store ${storeId}: ${unlocked} persons still unlocked after ${rounds} rounds of identity locks`);
    this.name = 'IdentityLocksExhaustedError';
  }
}

export async function updateIdentity(
  q: Query,
  storeId: string,
  batch: IdentityFacts,
  maxLockRounds = IDENTITY_LOCK_ROUNDS,
): Promise<{ persons: Set<string>; mergedAway: string[]; mergedInto: Set<string> }> {
  const { batchClients, newLinks } = await recordIdentity(q, storeId, batch);
  if (batchClients.length === 0) return { persons: new Set(), mergedAway: [], mergedInto: new Set() };
  const newKeys = [...new Set(newLinks.map((l) => l.key))];
  // Two batches that link the same key (an order's browser checkout and the order push, in different
  // partitions) would each miss the other's uncommitted link and both credit the order. The key lock makes the
  // second wait for the first's commit; its lookup below then sees the first's link and merges.
  await lockNames(q, 'identity.lock_keys', storeId, 'key', newKeys);

  // Resolve and lock until stable: a concurrent worker may merge one of these persons meanwhile. Going on with
  // a person unlocked would let two batches recompute it at once, so running out of rounds fails the batch.
  let locked = new Set<string>();
  for (let round = 0; ; round++) {
    const [own, viaKeys] = await Promise.all([
      q<{ client_id: string; person_id: string }>(
        'identity.persons_of_clients',
        keyProbeSql({ select: 'client_id, person_id', from: 'clients', key: 'client_id' }),
        [storeId, batchClients],
      ),
      newKeys.length
        ? q<{ client_id: string; key: string; person_id: string }>('identity.persons_of_keys', PERSONS_OF_KEYS_SQL, [
            storeId,
            newKeys,
          ])
        : Promise.resolve([]),
    ]);
    const involved = new Set([...own.map((r) => r.person_id), ...viaKeys.map((r) => r.person_id)]);
    const missing = [...involved].filter((p) => !locked.has(p));
    if (missing.length === 0) {
      const personOf = new Map(own.map((r) => [r.client_id, r.person_id]));
      const uf = new PersonUnion();
      for (const p of involved) uf.find(p);
      const personsOfKey = new Map<string, string[]>();
      for (const r of viaKeys) personsOfKey.set(r.key, [...(personsOfKey.get(r.key) ?? []), r.person_id]);
      for (const l of newLinks) {
        const p = personOf.get(l.client_id)!;
        for (const other of personsOfKey.get(l.key) ?? []) uf.union(p, other);
      }
      const mergedAway = [...involved].filter((p) => uf.find(p) !== p);
      if (mergedAway.length) {
        await q(
          'identity.merge',
          `update clients c set person_id = m.target
           from unnest($2::text[], $3::text[]) as m(source, target)
           where c.store_id = $1 and c.person_id = m.source`,
          [storeId, mergedAway, mergedAway.map((p) => uf.find(p))],
        );
      }
      const persons = new Set([...involved].map((p) => uf.find(p)));
      return { persons, mergedAway, mergedInto: new Set(mergedAway.map((p) => uf.find(p))) };
    }
    if (round >= maxLockRounds) throw new IdentityLocksExhaustedError(storeId, missing.length, round);
    await lockNames(q, 'identity.lock', storeId, 'person', missing);
    locked = new Set([...locked, ...missing]);
  }
}
