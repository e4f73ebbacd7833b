/**
 * The identity step of a batch's maintenance (docs/product.md, Identity; docs/decisions.md, Identity): the
 * clients and identity links of every store in the batch are recorded, the persons they belong to resolved and
 * locked, and persons that a new link joins merged into one; each statement takes all the stores at once.
 */
import type { Query } from '../../../storage/db';
import { type KeyProbe, keyProbeSql, probeKeysOfStores } from '../../../storage/key-probe';
import type { EventFact, OrderFact } from '../domain/facts';
import { ClientIdentity, PersonUnion } from '../domain/identity';
import { lockNamesOfStores } from './pg-advisory-locks';

/** What identity is derived from: a store's new events and orders, and the browser clients orders name. */
export interface IdentityFacts {
  events: readonly EventFact[];
  orders: readonly OrderFact[];
  /** Orders naming the browser client of their cart (identity hand-off). */
  handoffs: ReadonlyArray<{ orderId: string; browserClientId: string }>;
}

/** An epoch-ms time as PostgreSQL timestamptz text; Infinity is PostgreSQL's `infinity` (not seen yet). */
export const toTimestamp = (ms: number): string => (ms === Infinity ? 'infinity' : new Date(ms).toISOString());

/** One store's identity facts of the batch. */
export interface StoreIdentityFacts {
  storeId: string;
  batch: IdentityFacts;
}

/** The clients of a store's batch and the identity links that were new. */
export interface RecordedIdentity {
  batchClients: string[];
  newLinks: Array<{ client_id: string; key: string }>;
}

/**
 * Records the batch's clients and identity links of every store, one statement each for all of them; returns
 * each store's clients and the links that were new. An order naming a browser client links both to the
 * hand-off key; a client not seen yet is recorded with `first_seen_at` infinity, which its first event lowers.
 */
export async function recordIdentity(
  q: Query,
  entries: readonly StoreIdentityFacts[],
): Promise<Map<string, RecordedIdentity>> {
  const recorded = new Map<string, RecordedIdentity>();
  const clients: { stores: string[]; ids: string[]; times: string[] } = { stores: [], ids: [], times: [] };
  const links: { stores: string[]; clients: string[]; keys: string[] } = { stores: [], clients: [], keys: [] };
  for (const { storeId, batch } of entries) {
    const identity = new ClientIdentity();
    for (const e of batch.events) identity.addEvent(e);
    for (const o of batch.orders) identity.addOrder(o);
    for (const h of batch.handoffs) identity.addHandoff(h.orderId, h.browserClientId);
    recorded.set(storeId, { batchClients: [...identity.firstSeen.keys()], newLinks: [] });
    for (const [c, t] of identity.firstSeen) {
      clients.stores.push(storeId);
      clients.ids.push(c);
      clients.times.push(toTimestamp(t));
    }
    for (const [c, key] of identity.links()) {
      links.stores.push(storeId);
      links.clients.push(c);
      links.keys.push(key);
    }
  }
  if (clients.ids.length === 0) return recorded;
  // A client already stored as first seen no later than here is left out: the conflict would lock its row (and
  // log the lock) only to leave it as it is, and a concurrent batch of the store would wait for that lock. A row
  // the statement's snapshot does not show yet still meets the conflict clause. The probe is one index lookup per
  // client, fenced by `offset 0` for the reason storage/key-probe.ts gives.
  await q(
    'identity.clients_upsert',
    `insert into clients (store_id, client_id, person_id, first_seen_at)
     select u.s, u.c, u.c, u.t from unnest($1::text[], $2::text[], $3::timestamptz[]) as u(s, c, t)
     left join lateral (
       select x.first_seen_at from clients x where x.store_id = u.s and x.client_id = u.c offset 0
     ) as stored on true
     where stored.first_seen_at is null or u.t < stored.first_seen_at
     on conflict (store_id, client_id) do update set first_seen_at = excluded.first_seen_at
       where excluded.first_seen_at < clients.first_seen_at`,
    [clients.stores, clients.ids, clients.times],
  );
  if (links.keys.length) {
    const fresh = await q<{ store_id: string; client_id: string; key: string }>(
      'identity.links_insert',
      `insert into identity_links (store_id, client_id, key)
       select * from unnest($1::text[], $2::text[], $3::text[])
       on conflict do nothing
       returning store_id, client_id, key`,
      [links.stores, links.clients, links.keys],
    );
    for (const l of fresh) recorded.get(l.store_id)!.newLinks.push({ client_id: l.client_id, key: l.key });
  }
  return recorded;
}

/** The persons of the clients that carry any of the keys ($2) in store $1. */
export const PERSONS_OF_KEYS: KeyProbe = {
  select: 'l.client_id, l.key, c.person_id',
  from: 'identity_links l join clients c on c.store_id = l.store_id and c.client_id = l.client_id',
  key: 'l.key',
  store: 'l.store_id',
};
export const PERSONS_OF_KEYS_SQL = keyProbeSql(PERSONS_OF_KEYS);

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

/** A store's persons after the batch's identity: locked, with those merged away and those merged into. */
export interface ResolvedPersons {
  persons: Set<string>;
  mergedAway: string[];
  mergedInto: Set<string>;
}

/** A store whose persons are being resolved: its clients, new links and keys, and the persons locked so far. */
interface Resolving extends RecordedIdentity {
  storeId: string;
  newKeys: string[];
  locked: Set<string>;
}

/**
 * Records the identity of every store's batch and resolves and locks the persons it touches, merging those a new
 * link joins; each round's statements take every store still resolving. Returns every store's persons.
 */
export async function updateIdentity(
  q: Query,
  entries: readonly StoreIdentityFacts[],
  maxLockRounds = IDENTITY_LOCK_ROUNDS,
): Promise<Map<string, ResolvedPersons>> {
  const recorded = await recordIdentity(q, entries);
  const resolved = new Map<string, ResolvedPersons>();
  let pending: Resolving[] = [];
  for (const [storeId, r] of recorded) {
    if (r.batchClients.length === 0)
      resolved.set(storeId, { persons: new Set(), mergedAway: [], mergedInto: new Set() });
    else pending.push({ storeId, ...r, newKeys: [...new Set(r.newLinks.map((l) => l.key))], locked: new Set() });
  }
  // Two batches that link the same key (an order's browser checkout and the order push, in different
  // partitions) would each miss the other's uncommitted link and both credit the order. The key lock makes the
  // second wait for the first's commit; its lookup below then sees the first's link and merges.
  await lockNamesOfStores(
    q,
    'identity.lock_keys',
    'key',
    pending.map((r) => ({ storeId: r.storeId, names: r.newKeys })),
  );
  const merges: Array<{ storeId: string; source: string; target: string }> = [];
  // Resolve and lock until stable: a concurrent worker may merge one of these persons meanwhile. Going on with
  // a person unlocked would let two batches recompute it at once, so running out of rounds fails the batch.
  for (let round = 0; pending.length > 0; round++) {
    const [own, viaKeys] = await Promise.all([
      probeKeysOfStores<{ client_id: string; person_id: string }>(
        q,
        'identity.persons_of_clients',
        { select: 'client_id, person_id', from: 'clients', key: 'client_id' },
        pending.map((r) => ({ storeId: r.storeId, keys: r.batchClients })),
      ),
      probeKeysOfStores<{ client_id: string; key: string; person_id: string }>(
        q,
        'identity.persons_of_keys',
        PERSONS_OF_KEYS,
        pending.map((r) => ({ storeId: r.storeId, keys: r.newKeys })),
      ),
    ]);
    const toLock: Array<{ storeId: string; names: string[] }> = [];
    for (const r of pending) {
      const ownRows = own.get(r.storeId)!;
      const keyRows = viaKeys.get(r.storeId)!;
      const involved = new Set([...ownRows.map((o) => o.person_id), ...keyRows.map((k) => k.person_id)]);
      const missing = [...involved].filter((p) => !r.locked.has(p));
      if (missing.length) {
        toLock.push({ storeId: r.storeId, names: missing });
        continue;
      }
      const personOf = new Map(ownRows.map((o) => [o.client_id, o.person_id]));
      const uf = new PersonUnion();
      for (const p of involved) uf.find(p);
      const personsOfKey = new Map<string, string[]>();
      for (const k of keyRows) personsOfKey.set(k.key, [...(personsOfKey.get(k.key) ?? []), k.person_id]);
      for (const l of r.newLinks) {
        const p = personOf.get(l.client_id)!;
        for (const other of personsOfKey.get(l.key) ?? []) uf.union(p, other);
      }
      const mergedAway = [...involved].filter((p) => uf.find(p) !== p);
      for (const source of mergedAway) merges.push({ storeId: r.storeId, source, target: uf.find(source) });
      resolved.set(r.storeId, {
        persons: new Set([...involved].map((p) => uf.find(p))),
        mergedAway,
        mergedInto: new Set(mergedAway.map((p) => uf.find(p))),
      });
    }
    pending = pending.filter((r) => !resolved.has(r.storeId));
    if (pending.length === 0) break;
    if (round >= maxLockRounds) {
      const [first] = toLock;
      throw new IdentityLocksExhaustedError(first!.storeId, first!.names.length, round);
    }
    await lockNamesOfStores(q, 'identity.lock', 'person', toLock);
    for (const { storeId, names } of toLock) {
      const r = pending.find((p) => p.storeId === storeId)!;
      for (const n of names) r.locked.add(n);
    }
  }
  // Persons merged into others: their clients now belong to the persons they joined.
  if (merges.length) {
    await q(
      'identity.merge',
      `update clients c set person_id = m.target
       from unnest($1::text[], $2::text[], $3::text[]) as m(store_id, source, target)
       where c.store_id = m.store_id and c.person_id = m.source`,
      [merges.map((m) => m.storeId), merges.map((m) => m.source), merges.map((m) => m.target)],
    );
  }
  return resolved;
}
