/**
 * Erases a person (docs/operations.md, Privacy; docs/decisions.md, Privacy): every client linked to the
 * identifiers given, their raw payloads, facts, identity links, sessions, conversions and credits, with the
 * views retracted exactly as a batch would retract them (the rollups then equal a recomputation without the
 * person), their dead letters, queued identity-event deliveries and their messages in the streams. Idempotent.
 *
 * Three steps:
 *  1. The person is found, and tombstones of its clients and identity keys recorded under the store's erasure gate,
 *     taken exclusively (every batch of the store takes it shared first): every batch after reads them and drops
 *     the person's messages. The person is then found again: a batch that committed before the gate may have
 *     linked it to more clients, which get their tombstones in another round. The gate is held for the tombstones
 *     only, so ingestion waits for no more than that.
 *  2. The person's messages are deleted from the streams, before the rows that find them: an erasure cut short
 *     there finds them again when it runs again.
 *  3. One transaction, under the person and key locks of the pipeline: the views retracted, the rows deleted,
 *     the audit written.
 */
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { ErasureCounts, PrivacySource, PrivacySubject } from '../../../contracts/src/privacy';
import { ORDER_CLIENT_PREFIX } from '../../../contracts/src/identity';
import { EVENTS_SUBJECT_PREFIX } from '../../../contracts/src/subjects';
import type { Db, Query } from '../../../storage/db';
import { isTransientDbError } from '../../../storage/db';
import { keyProbeSql } from '../../../storage/key-probe';
import { findPerson, type FoundPerson, identifiersOfKeys, recordPrivacyAudit, seedsOf } from '../../../storage/privacy';
import { customerOwner, namesOfPerson } from '../domain/erasure-names';
import { lockNames } from '../adapters/pg-advisory-locks';
import { takeErasureGate, tombstoneDigest } from '../adapters/pg-erasure-screen';
import { GENERIC_PLANS_SQL } from '../adapters/pg-batch-writer';
import { loadStoredConversions, writeConversions } from '../adapters/pg-conversions';
import { writeSessions } from '../adapters/pg-sessions';
import { applyAdRollupDelta, applyAttributionDelta } from '../adapters/pg-rollups';
import { planAnalytics, writeAnalyticsRollups, writeAnalyticsRows } from '../adapters/pg-analytics';
import { deleteStreamMessages, eraseQueuedDeliveries } from '../adapters/stream-erasure';

export interface ErasureDeps {
  db: Db;
  /** The streams: without them (a database-only erasure in tests) the messages stay. */
  nc?: NatsConnection;
  jsm?: JetStreamManager;
}

export interface ErasureRequest {
  storeId: string;
  subject: PrivacySubject;
  source: PrivacySource;
  /** Who asked, as the audit names it (never a secret). */
  credential: string;
  requestedAt?: Date;
}

/** Attempts of the erasure's transaction on a deadlock or serialization failure (it meets the daemon's batches). */
const ATTEMPTS = 5;

/** What the erasure deletes and searches for: the person's clients, keys and the values in text. */
interface Target {
  found: FoundPerson;
  clientIds: string[];
  browserClients: string[];
  orderIds: string[];
  customerIds: string[];
  owners: string[];
  /** Texts that mark a stored text as the person's: emails, and client ids, customer ids and IPs as JSON strings. */
  needles: string[];
}

/** The person found, with the identifiers the request named that nothing stored carries (yet). */
function withSeeds(subject: PrivacySubject, found: FoundPerson): FoundPerson {
  const seeds = seedsOf(subject);
  return {
    personIds: found.personIds,
    clientIds: [...new Set([...found.clientIds, ...seeds.clientIds])].sort(),
    keys: [...new Set([...found.keys, ...seeds.keys])].sort(),
  };
}

function targetOf(subject: PrivacySubject, found: FoundPerson, ips: readonly string[]): Target {
  const clientIds = found.clientIds;
  const browserClients = clientIds.filter((c) => !c.startsWith(ORDER_CLIENT_PREFIX));
  const ids = identifiersOfKeys(found.keys);
  const orderIds = [
    ...new Set([
      ...ids.orderIds,
      ...clientIds.filter((c) => c.startsWith(ORDER_CLIENT_PREFIX)).map((c) => c.slice(ORDER_CLIENT_PREFIX.length)),
    ]),
  ];
  const customerIds = [...new Set([...ids.customerIds, ...subject.customerIds])];
  return {
    found,
    clientIds,
    browserClients,
    orderIds,
    customerIds,
    owners: [...clientIds, ...customerIds.map(customerOwner)],
    // Ids and addresses as JSON strings: a short one would otherwise match inside unrelated texts.
    needles: [
      ...new Set([
        ...ids.emails,
        ...subject.emails,
        ...[...browserClients, ...customerIds, ...ips].map((v) => `"${v}"`),
      ]),
    ],
  };
}

/** `%text%` for LIKE, the text's own wildcards escaped. */
const containing = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Every client and key of `b` is in `a`. */
const covers = (a: FoundPerson, b: FoundPerson): boolean =>
  b.clientIds.every((c) => a.clientIds.includes(c)) && b.keys.every((k) => a.keys.includes(k));

/** Step 1: the person, and its tombstones recorded under the store's erasure gate until no batch can extend it. */
async function tombstone(db: Db, storeId: string, subject: PrivacySubject): Promise<FoundPerson> {
  let found = withSeeds(subject, await findPerson(db.query, storeId, subject));
  for (;;) {
    await db.transaction('erasure.tombstone', async (tx) => {
      await takeErasureGate(tx, storeId, 'exclusive');
      await tx(
        'erasure.tombstones_insert',
        `insert into erased_identifiers (store_id, digest) select $1, d from unnest($2::text[]) as d
         on conflict (store_id, digest) do update set erased_at = now()`,
        [storeId, namesOfPerson(found.clientIds, found.keys).map(tombstoneDigest)],
      );
    });
    const now = withSeeds(subject, await findPerson(db.query, storeId, subject));
    if (covers(found, now)) return now;
    found = {
      personIds: [...new Set([...found.personIds, ...now.personIds])].sort(),
      clientIds: [...new Set([...found.clientIds, ...now.clientIds])].sort(),
      keys: [...new Set([...found.keys, ...now.keys])].sort(),
    };
  }
}

/** The IP addresses the person's events and clicks were sent from: searched for in texts (dead letters, ...). */
async function ipsOf(q: Query, storeId: string, browserClients: readonly string[]): Promise<string[]> {
  if (browserClients.length === 0) return [];
  const rows = await q<{ ip: string }>(
    'erasure.ips',
    `select ip from (${keyProbeSql({ select: "payload->>'clientIp' as ip", from: 'raw_events', key: 'client_id' })}) r
     union select ip from (${keyProbeSql({ select: 'client_ip as ip', from: 'event_facts', key: 'client_id' })}) f
     union select ip from (${keyProbeSql({ select: 'ip', from: 'link_clicks', key: 'client_id' })}) c`,
    [storeId, browserClients],
  );
  return rows.map((r) => r.ip).filter((ip) => ip && ip.length >= 7);
}

/** Step 2's input: the stream sequences of the person's messages. */
async function sequencesOf(q: Query, storeId: string, t: Target): Promise<number[]> {
  const probe = (from: string, key: string, keys: readonly string[]) =>
    q<{ stream_seq: string }>(`erasure.sequences_${from}`, keyProbeSql({ select: 'stream_seq', from, key }), [
      storeId,
      keys,
    ]);
  const found = await Promise.all([
    probe('message_owners', 'owner', t.owners),
    probe('raw_events', 'client_id', t.browserClients),
    probe('shop_orders', 'order_id', t.orderIds),
    probe('shop_customers', 'customer_id', t.customerIds),
    q<{ stream_seq: string }>(
      'erasure.sequences_dead_letters',
      `select stream_seq from dead_letters
       where (store_id = $1 or (store_id is null and split_part(subject, '.', 3) = $1))
         and subject like $2 and payload like any($3::text[])`,
      [storeId, `${EVENTS_SUBJECT_PREFIX}.%`, t.needles.map(containing)],
    ),
  ]);
  return [...new Set(found.flat().map((r) => Number(r.stream_seq)))];
}

const count = async (q: Query, tag: string, sql: string, params: unknown[]): Promise<number> =>
  Number((await q<{ n: string }>(tag, `with d as (${sql} returning 1) select count(*) as n from d`, params))[0]!.n);

/**
 * Deletes the store's rows of `table` whose `key` is one of `keys`, found by one index probe per key and deleted by
 * their row ids: written as `key = any(...)`, a store the statistics do not cover yet is read whole instead
 * (docs/decisions.md, Storage, "one index probe per key"). Returns how many went.
 */
const deleteByKeys = (q: Query, table: string, key: string, storeId: string, keys: readonly string[]) =>
  count(
    q,
    `erasure.${table}`,
    `delete from ${table} where ctid = any(array(select p.ctid from (${keyProbeSql({ select: 'ctid', from: table, key })}) p))`,
    [storeId, keys],
  );

/** Step 3: the views retracted and the rows deleted, in one transaction. */
async function eraseRows(
  tx: Query,
  storeId: string,
  t: Target,
): Promise<Omit<ErasureCounts, 'stream_messages' | 'webhook_messages'>> {
  const { personIds } = t.found;
  await lockNames(tx, 'erasure.lock_keys', storeId, 'key', t.found.keys);
  await lockNames(tx, 'erasure.lock_persons', storeId, 'person', personIds);
  const patterns = t.needles.map(containing);
  const p = [storeId];

  // The facts first, as a batch writes them, then the views.
  const raw = await deleteByKeys(tx, 'raw_events', 'client_id', storeId, t.browserClients);
  const facts = await deleteByKeys(tx, 'event_facts', 'client_id', storeId, t.browserClients);
  const orders = await deleteByKeys(tx, 'order_facts', 'order_id', storeId, t.orderIds);
  await deleteByKeys(tx, 'shop_orders', 'order_id', storeId, t.orderIds);
  await deleteByKeys(tx, 'store_hook_orders', 'order_id', storeId, t.orderIds);
  const customers = await deleteByKeys(tx, 'shop_customers', 'customer_id', storeId, t.customerIds);
  const clicks = await deleteByKeys(tx, 'link_clicks', 'client_id', storeId, t.browserClients);
  const links = await deleteByKeys(tx, 'identity_links', 'client_id', storeId, t.clientIds);
  await deleteByKeys(tx, 'message_owners', 'owner', storeId, t.owners);

  // The views: the person's rows go, and their difference to the rollups is applied, as for a person whose facts
  // all went (docs/decisions.md, Privacy).
  const [credits] = await tx<{ n: string }>(
    'erasure.credits_count',
    `select count(*) as n from (${keyProbeSql({ select: 'goal, conversion_key', from: 'conversions', key: 'person_id' })}) v
     join conversion_credits c on c.store_id = $1 and c.goal = v.goal and c.conversion_key = v.conversion_key`,
    [...p, personIds],
  );
  const stored = await loadStoredConversions(tx, storeId, personIds);
  const analytics = planAnalytics(tx, storeId, personIds, []);
  analytics.catch(() => undefined);
  const sessions = await writeSessions(tx, storeId, t.clientIds, []);
  const conv = await writeConversions(tx, storeId, stored, []);
  const plan = await analytics;
  await writeAnalyticsRows(tx, storeId, plan);
  // The rollups last, in the maintainer's order (docs/decisions.md, Storage, "Two batches in flight").
  await applyAttributionDelta(tx, storeId, conv.delta);
  await writeAnalyticsRollups(tx, storeId, plan);
  await applyAdRollupDelta(tx, storeId, conv.adDelta);
  const clients = await deleteByKeys(tx, 'clients', 'client_id', storeId, t.clientIds);

  // Texts that name the person: dead letters, failed deliveries, exports kept for the operator, webhook bodies.
  const deadLetters = patterns.length
    ? await count(
        tx,
        'erasure.dead_letters',
        `delete from dead_letters where (store_id = $1 or (store_id is null and split_part(subject, '.', 3) = $1))
         and payload like any($2::text[])`,
        [...p, patterns],
      )
    : 0;
  const webhookDeadLetters = patterns.length
    ? await count(
        tx,
        'erasure.webhook_dead_letters',
        'delete from webhook_dead_letters where store_id = $1 and body like any($2::text[])',
        [...p, patterns],
      )
    : 0;
  const records = patterns.length
    ? (await count(
        tx,
        'erasure.exports',
        `delete from privacy_requests where store_id = $1 and kind = 'export' and result::text like any($2::text[])`,
        [...p, patterns],
      )) +
      (await count(
        tx,
        'erasure.hook_bodies',
        `update store_hook_deliveries set payload = null
         where connection_id in (select connection_id from store_connections where store_id = $1)
           and payload is not null and payload::text like any($2::text[])`,
        [...p, patterns],
      ))
    : 0;
  return {
    persons: personIds.length,
    clients,
    raw_events: raw,
    event_facts: facts,
    orders,
    customers,
    link_clicks: clicks,
    identity_links: links,
    sessions: sessions.deleted,
    conversions: conv.removed,
    credits: Number(credits!.n),
    dead_letters: deadLetters,
    webhook_dead_letters: webhookDeadLetters,
    privacy_records: records,
  };
}

export async function erasePerson(deps: ErasureDeps, req: ErasureRequest): Promise<ErasureCounts> {
  const { db } = deps;
  const { storeId } = req;
  const requestedAt = req.requestedAt ?? new Date();
  const found = await tombstone(db, storeId, req.subject);
  const browserClients = found.clientIds.filter((c) => !c.startsWith(ORDER_CLIENT_PREFIX));
  const target = targetOf(req.subject, found, await ipsOf(db.query, storeId, browserClients));

  let streamMessages = 0;
  let webhookMessages = 0;
  if (deps.jsm) {
    streamMessages = await deleteStreamMessages(deps.jsm, await sequencesOf(db.query, storeId, target));
    if (deps.nc) webhookMessages = await eraseQueuedDeliveries(deps.nc, deps.jsm, storeId, target.needles);
  }

  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction('erasure.person', async (tx) => {
        // Planned for any store, as the batch's statements are (docs/decisions.md, Storage).
        await tx('erasure.generic_plans', GENERIC_PLANS_SQL);
        const rows = await eraseRows(tx, storeId, target);
        const counts: ErasureCounts = { ...rows, stream_messages: streamMessages, webhook_messages: webhookMessages };
        await recordPrivacyAudit(tx, {
          storeId,
          action: 'erase',
          source: req.source,
          credential: req.credential,
          requestedAt,
          counts: { ...counts },
        });
        return counts;
      });
    } catch (err) {
      if (attempt >= ATTEMPTS || !isTransientDbError(err)) throw err;
    }
  }
}
