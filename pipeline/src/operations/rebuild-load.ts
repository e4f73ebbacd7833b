/**
 * A rebuild's load (docs/decisions.md, Operations, "A rebuild loads the stream in memory"). In one transaction
 * the store's stream-derived facts and views are emptied, the store's messages read from the stream and their
 * facts derived in memory on a worker thread (`rebuild-decoder.ts`, `StreamFacts`: the live path's rules), and
 * everything written by COPY or one bulk statement per table: event facts while the stream is read, the rest once
 * it is. No payload is written (the rebuild keeps them) and nothing is looked up: identity is known in full at the
 * end, persons included. The recomputation of the views follows (the repair). A load that fails rolls back to the
 * store as it was.
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import { STREAM_FACT_TABLES, VIEW_TABLES } from '../../../storage/schema';
import type { Query } from '../../../storage/db';
import { copyData, copyLine } from '../../../storage/pg-copy-text';
import type { StreamFactsSnapshot } from '../domain/stream-facts';
import { toInbound } from '../adapters/nats-source';
import { type DeadLetterRow, insertLinkClicks, type StoreSettings } from '../adapters/pg-fact-store';
import { type PushRows, upsertPushes } from '../adapters/pg-pushes';
import { EVENT_FACTS_COPY_SQL, upsertOrderFacts, upsertVariantCosts } from '../adapters/pg-derived-facts';
import { insertProductInfo } from '../adapters/pg-product-info';
import { toTimestamp } from '../adapters/pg-identity';
import { rangeMessages, type StreamRange } from './stream-range';
import {
  BatchEncoder,
  type DecodedBatch,
  type EncodedBatch,
  type RebuildDecoder,
  startRebuildDecoder,
} from './rebuild-decoder';

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

/** Messages per batch handed to the decoder (and so event facts per COPY, at most); rows per statement after. */
const MESSAGES_PER_DECODE = 2500;
const ROWS_PER_STATEMENT = 5000;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

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
  const decoder = startRebuildDecoder(store, rates);
  try {
    const facts = await readStream(tx, js, source, decoder, onRead);
    await writeHeldFacts(tx, storeId, facts.snapshot);
    return {
      processed: facts.processed,
      stored: facts.snapshot.stored,
      duplicates: facts.snapshot.duplicates,
      deadLetters: facts.deadLetters,
      deleted,
      emptySeconds,
      missingRates: facts.snapshot.missingRates,
    };
  } finally {
    await decoder.close();
  }
}

/** Batches in the decoder's hands at once: one being decoded, the next ones waiting. */
const BATCHES_IN_FLIGHT = 3;

/**
 * Reads the stream range and hands it to the decoder batch by batch, copying each batch's event facts as it comes
 * back (one COPY at a time, while the next batches are read and decoded); returns what the decoder holds at the end.
 */
async function readStream(
  tx: Query,
  js: JetStreamClient,
  source: { filter: string; range: StreamRange; lastSeq: number; batchSize: number; total: number },
  decoder: RebuildDecoder,
  onRead?: (processed: number) => void,
): Promise<{ processed: number; deadLetters: DeadLetterRow[]; snapshot: StreamFactsSnapshot }> {
  const deadLetters: DeadLetterRow[] = [];
  let processed = 0;
  const decoding: Array<Promise<DecodedBatch>> = [];
  let copying: Promise<unknown> = Promise.resolve();
  const takeDecoded = async (): Promise<void> => {
    const decoded = await decoding.shift()!;
    processed += decoded.processed;
    deadLetters.push(...decoded.deadLetters);
    onRead?.(processed);
    await copying;
    if (decoded.lines.length === 0) return;
    const copy = tx.copyFrom('rebuild.events_copy', EVENT_FACTS_COPY_SQL, decoded.lines);
    // Its failure is thrown where it is awaited: at the next COPY, or once the stream is read.
    copy.catch(() => undefined);
    copying = copy;
  };
  const send = (batch: EncodedBatch): void => {
    const decoded = decoder.decode(batch);
    decoded.catch(() => undefined); // thrown where it is taken
    decoding.push(decoded);
  };

  const encoder = new BatchEncoder();
  const messages =
    source.total > 0 ? rangeMessages(js, source.filter, source.range, source.lastSeq, source.batchSize) : [];
  for await (const m of messages) {
    encoder.add(toInbound(m, false));
    if (encoder.size < MESSAGES_PER_DECODE) continue;
    send(encoder.take());
    if (decoding.length >= BATCHES_IN_FLIGHT) await takeDecoded();
  }
  if (encoder.size > 0) send(encoder.take());
  while (decoding.length > 0) await takeDecoded();
  await copying;
  return { processed, deadLetters, snapshot: await decoder.finish() };
}

/** Writes what the load holds once the stream is read: clients, links, pushes and what derives from them. */
async function writeHeldFacts(tx: Query, storeId: string, facts: StreamFactsSnapshot): Promise<void> {
  if (facts.clients.length) {
    await tx.copyFrom(
      'rebuild.clients_copy',
      'copy clients (store_id, client_id, person_id, first_seen_at) from stdin',
      copyData(facts.clients.map((c) => copyLine([storeId, c.clientId, c.personId, toTimestamp(c.firstSeen)]))),
    );
  }
  if (facts.identityLinks.length) {
    await tx.copyFrom(
      'rebuild.links_copy',
      'copy identity_links (store_id, client_id, key) from stdin',
      copyData(facts.identityLinks.map(([clientId, key]) => copyLine([storeId, clientId, key]))),
    );
  }
  await writePushes(tx, storeId, facts);
  for (const part of chunks(facts.orders)) {
    await upsertOrderFacts(tx, [{ storeId, orders: part.map((o) => o.value.fact) }]);
  }
  for (const part of chunks(facts.variantCosts)) await upsertVariantCosts(tx, storeId, part);
  for (const part of chunks(facts.linkClicks)) {
    await insertLinkClicks(
      tx,
      part.map((click) => ({ storeId, click })),
    );
  }
  const sightings = [...facts.productInfo].sort((a, b) => (a.productId < b.productId ? -1 : 1));
  for (const part of chunks(sightings)) await insertProductInfo(tx, storeId, part);
}

/** The pushes' versions held, one statement per table and chunk (each key once, so nothing is compared). */
async function writePushes(tx: Query, storeId: string, facts: StreamFactsSnapshot): Promise<void> {
  const none: PushRows = { orders: [], products: [], customers: [], adSpend: [] };
  for (const part of chunks(facts.orders)) {
    await upsertPushes(tx, { ...none, orders: part.map((o) => ({ storeId, order: o.value.order, seq: o.seq })) });
  }
  for (const part of chunks(facts.products)) {
    await upsertPushes(tx, { ...none, products: part.map((p) => ({ storeId, product: p.value, seq: p.seq })) });
  }
  for (const part of chunks(facts.customers)) {
    await upsertPushes(tx, { ...none, customers: part.map((c) => ({ storeId, customer: c.value, seq: c.seq })) });
  }
  for (const part of chunks(facts.adSpend)) {
    await upsertPushes(tx, {
      ...none,
      adSpend: part.map((a) => ({ storeId, row: a.value.row, fact: a.value.fact, seq: a.seq })),
    });
  }
}
