/**
 * A rebuild's load (docs/decisions.md, Operations, "A rebuild loads the stream in memory"). In one transaction
 * the store's stream-derived facts and views are emptied, the store's messages read from the stream and their
 * facts derived in memory (`StreamFacts`, the live path's rules), and everything written by COPY or one bulk
 * statement per table: event facts while the stream is read, the rest once it is. No payload is written (the
 * rebuild keeps them) and nothing is looked up: identity is known in full at the end, persons included. The
 * recomputation of the views follows (the repair). A load that fails rolls back to the store as it was.
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import { STREAM_FACT_TABLES, VIEW_TABLES } from '../../../storage/schema';
import type { Query } from '../../../storage/db';
import { copyData, copyLine } from '../../../storage/pg-copy-text';
import { decodeMessage } from '../domain/decode-message';
import { StreamFacts } from '../domain/stream-facts';
import { toInbound } from '../adapters/nats-source';
import { deadLetterOf } from '../adapters/pg-batch-writer';
import {
  type DeadLetterRow,
  insertLinkClicks,
  type PushRows,
  type StoreSettings,
  upsertPushes,
} from '../adapters/pg-fact-store';
import {
  EVENT_FACTS_COPY_SQL,
  eventFactLine,
  upsertOrderFacts,
  upsertVariantCosts,
} from '../adapters/pg-derived-facts';
import { insertProductInfo } from '../adapters/analytics-rollups';
import { rangeMessages, type StreamRange } from './stream-range';

/** What a rebuild empties: the store's views and stream-derived facts but its raw payloads. */
export const EMPTIED_TABLES = [...VIEW_TABLES, ...STREAM_FACT_TABLES.filter((t) => t !== 'raw_events')];

/**
 * The order a load locks the emptied tables in: the daemon's batch writes the push and fact tables, then the
 * clients, then the views, and the product names last. Locking in that order, the load waits for the batches in
 * flight instead of deadlocking with one.
 */
const FIRST_LOCKED = [
  'shop_orders',
  'shop_products',
  'shop_customers',
  'ad_spend',
  'link_clicks',
  'event_facts',
  'order_facts',
  'clients',
  'identity_links',
  'variant_costs',
];
export const LOAD_LOCK_ORDER = [
  ...FIRST_LOCKED,
  ...EMPTIED_TABLES.filter((t) => !FIRST_LOCKED.includes(t) && t !== 'product_info'),
  'product_info',
];

/**
 * Empties a store's views and stream-derived facts, all but its raw payloads, with the tables locked against
 * the daemon's batches until the transaction ends. Returns the rows deleted, by table.
 */
export async function emptyStoreIn(tx: Query, storeId: string): Promise<Map<string, number>> {
  const deleted = new Map<string, number>();
  await tx('replay.lock', `lock table ${LOAD_LOCK_ORDER.join(', ')} in exclusive mode`);
  for (const table of EMPTIED_TABLES) {
    const [row] = await tx<{ n: string }>(
      `replay.empty_${table}`,
      `with d as (delete from ${table} where store_id = $1 returning 1) select count(*) as n from d`,
      [storeId],
    );
    deleted.set(table, Number(row?.n ?? 0));
  }
  return deleted;
}

export interface LoadedStream {
  processed: number;
  stored: number;
  duplicates: number;
  /** Messages that could not be decoded, to be dead-lettered once the load has committed. */
  deadLetters: DeadLetterRow[];
  /** Rows the emptying deleted, by table, and the time it took. */
  deleted: Map<string, number>;
  emptySeconds: number;
  /** Currencies without a rate (1:1 assumed). */
  missingRates: string[];
}

/** Event facts per COPY while the stream is read; rows per statement for the rest. */
const EVENT_LINES_PER_COPY = 5000;
const ROWS_PER_STATEMENT = 5000;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

const toTimestamp = (ms: number): string => (ms === Infinity ? 'infinity' : new Date(ms).toISOString());

/**
 * Empties the store and loads the facts of its messages in the range (up to `lastSeq`), in the transaction `tx`;
 * `onRead` is told how many messages were read so far.
 */
export async function loadStoreStream(
  tx: Query,
  js: JetStreamClient,
  source: { filter: string; range: StreamRange; lastSeq: number; batchSize: number; total: number },
  store: StoreSettings,
  rates: ReadonlyMap<string, number>,
  onRead?: (processed: number) => void,
): Promise<LoadedStream> {
  const storeId = store.storeId;
  const emptyStarted = Date.now();
  const deleted = await emptyStoreIn(tx, storeId);
  const emptySeconds = (Date.now() - emptyStarted) / 1000;
  const facts = new StreamFacts(store.currency, (c) => rates.get(c));
  const deadLetters: DeadLetterRow[] = [];
  let processed = 0;
  let lines: string[] = [];
  // One COPY in flight while the next lines are derived: the statement runs while the stream is read.
  let copying: Promise<unknown> = Promise.resolve();
  const copyLines = async (): Promise<void> => {
    await copying;
    if (lines.length === 0) return;
    const copy = tx.copyFrom('rebuild.events_copy', EVENT_FACTS_COPY_SQL, copyData(lines));
    // Its failure is thrown where it is awaited, at the next COPY or the end of the stream.
    copy.catch(() => undefined);
    copying = copy;
    lines = [];
  };

  const messages =
    source.total > 0 ? rangeMessages(js, source.filter, source.range, source.lastSeq, source.batchSize) : [];
  for await (const m of messages) {
    const msg = toInbound(m, false);
    const decoded = decodeMessage(msg.subject, msg.data, msg.receivedAt, msg.validated === true);
    processed++;
    if (decoded.kind === 'poison') deadLetters.push(deadLetterOf(msg, decoded.storeId, decoded.reason));
    else {
      const event = facts.add(decoded, msg.seq);
      if (event) lines.push(eventFactLine(storeId, event));
    }
    if (lines.length >= EVENT_LINES_PER_COPY) await copyLines();
    if (processed % source.batchSize === 0) onRead?.(processed);
  }
  await copyLines();
  await copying;
  onRead?.(processed);

  const clients = facts.clients();
  if (clients.length) {
    await tx.copyFrom(
      'rebuild.clients_copy',
      'copy clients (store_id, client_id, person_id, first_seen_at) from stdin',
      copyData(clients.map((c) => copyLine([storeId, c.clientId, c.personId, toTimestamp(c.firstSeen)]))),
    );
  }
  const links = facts.identityLinks();
  if (links.length) {
    await tx.copyFrom(
      'rebuild.links_copy',
      'copy identity_links (store_id, client_id, key) from stdin',
      copyData(links.map(([clientId, key]) => copyLine([storeId, clientId, key]))),
    );
  }
  await writePushes(tx, storeId, facts);
  for (const part of chunks(facts.orders())) {
    await upsertOrderFacts(
      tx,
      storeId,
      part.map((o) => o.value.fact),
    );
  }
  for (const part of chunks(facts.variantCosts())) await upsertVariantCosts(tx, storeId, part);
  for (const part of chunks(facts.linkClicks())) {
    await insertLinkClicks(
      tx,
      part.map((click) => ({ storeId, click })),
    );
  }
  const sightings = facts
    .productInfo()
    .map((s) => ({ ...s.info, at: new Date(s.at).toISOString() }))
    .sort((a, b) => (a.productId < b.productId ? -1 : 1));
  for (const part of chunks(sightings)) await insertProductInfo(tx, storeId, part);

  return {
    processed,
    stored: facts.stored,
    duplicates: facts.duplicates,
    deadLetters,
    deleted,
    emptySeconds,
    missingRates: [...facts.missingRates],
  };
}

/** The pushes' versions held, one statement per table and chunk (each key once, so nothing is compared). */
async function writePushes(tx: Query, storeId: string, facts: StreamFacts): Promise<void> {
  const none: PushRows = { orders: [], products: [], customers: [], adSpend: [] };
  for (const part of chunks(facts.orders())) {
    await upsertPushes(tx, { ...none, orders: part.map((o) => ({ storeId, order: o.value.order, seq: o.seq })) });
  }
  for (const part of chunks(facts.products())) {
    await upsertPushes(tx, { ...none, products: part.map((p) => ({ storeId, product: p.value, seq: p.seq })) });
  }
  for (const part of chunks(facts.customers())) {
    await upsertPushes(tx, { ...none, customers: part.map((c) => ({ storeId, customer: c.value, seq: c.seq })) });
  }
  for (const part of chunks(facts.adSpend())) {
    await upsertPushes(tx, {
      ...none,
      adSpend: part.map((a) => ({ storeId, row: a.value.row, fact: a.value.fact, seq: a.seq })),
    });
  }
}
