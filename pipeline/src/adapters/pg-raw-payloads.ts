/**
 * The raw payloads' writer (docs/decisions.md, Storage, "Raw payloads off the hot path"). The views' batches take as
 * new the events whose facts are not stored and never read a payload, so the payloads follow each batch's commit in
 * a transaction of their own, several batches together, while the next batch runs; none is written for a store that
 * keeps none (`stores.raw_payloads_stored`). Effectively once like the views: the insert skips what is stored, and a
 * batch's messages are acked only once its payloads are. A message of an erased person is dropped here too, behind
 * the same erasure gate as the views' batches.
 */
import type { Db, Query } from '../../../storage/db';
import { isTransientDbError } from '../../../storage/db';
import { copyBytesField, copyFields } from '../../../storage/pg-copy-text';
import type { BatchItem } from '../stream/build-pipeline';
import { copyNewRows, type RawEventRow } from './pg-fact-store';
import { loadTombstones, screenErased, takeErasureGates } from './pg-erasure-screen';

/**
 * Raw events go in by COPY, after one lookup of those already stored (a COPY cannot skip a row). Measured on 4,300
 * of the demo's events, the CPU of the PostgreSQL backend: 90-100 ms, against 200-220 ms as one JSON document
 * through json_to_recordset (which parsed every payload twice) and 150-190 ms by COPY into a staging table then
 * insert-select (docs/decisions.md, Storage).
 */
const RAW_COLUMNS = 'store_id, event_id, client_id, name, occurred_at, received_at, stream_seq, payload';

/**
 * One raw event as a line of COPY text, in RAW_COLUMNS order: the payload as UTF-8 bytes, those the message
 * carried when it carried them ready to store (escaped where needed), else the event encoded.
 */
function rawEventLine(r: RawEventRow): Array<string | Uint8Array> {
  const e = r.event;
  const received = new Date(r.receivedAt).toISOString();
  const json = r.json ?? Buffer.from(JSON.stringify(e));
  return [
    copyFields([r.storeId, e.id, e.clientId, e.name, e.timestamp, received, r.seq]),
    '\t',
    copyBytesField(json),
    '\n',
  ];
}

const rawKey = (storeId: string, eventId: string) => `${storeId}\u0000${eventId}`;

/** Inserts raw events (distinct keys) not stored yet; returns how many were new. */
export async function insertRawEvents(q: Query, rows: readonly RawEventRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const stored = await q<{ store_id: string; event_id: string }>(
    'raw_events.stored',
    `select p.* from unnest($1::text[], $2::text[]) as k(store_id, event_id),
       lateral (select store_id, event_id from raw_events r
                where r.store_id = k.store_id and r.event_id = k.event_id offset 0) as p`,
    [rows.map((r) => r.storeId), rows.map((r) => r.event.id)],
  );
  const old = new Set(stored.map((r) => rawKey(r.store_id, r.event_id)));
  const fresh = rows.filter((r) => !old.has(rawKey(r.storeId, r.event.id)));
  if (fresh.length === 0) return 0;
  await copyNewRows(q, 'raw_events.copy', `copy raw_events (${RAW_COLUMNS}) from stdin`, fresh.flatMap(rawEventLine));
  return fresh.length;
}

/**
 * The stores among `storeIds` that keep raw payloads, with their currency (the erasure screen derives names). Their
 * rows are locked in share mode, so that turning a store to keep none (`retention --days none`) waits for the writes
 * in flight, and every later write sees it: its delete of the kept payloads, which follows, leaves none behind.
 */
async function storesKeepingPayloads(q: Query, storeIds: readonly string[]): Promise<Map<string, string>> {
  if (storeIds.length === 0) return new Map();
  const rows = await q<{ store_id: string; currency: string }>(
    'raw_payloads.stores',
    `select store_id, currency from stores where store_id = any($1::text[]) and raw_payloads_stored
     order by store_id for share`,
    [storeIds],
  );
  return new Map(rows.map((r) => [r.store_id, r.currency]));
}

export interface RawPayloadCounts {
  stored: number;
  duplicate: number;
  erased: number;
  /** Events of stores that keep no raw payload. */
  not_kept: number;
}

export interface RawPayloadWriterOptions {
  /** Called after the commit with the stream sequences of messages dropped because they name an erased person. */
  onErasedMessages?: (seqs: number[]) => void;
  /** Called after each commit with what became of its storefront events. */
  onCommitted?: (counts: RawPayloadCounts) => void;
  /** A write that failed on a transient error after its attempts: its batches' messages are asked for again. */
  onFailed?: (err: unknown, events: number) => void;
  /** A payload PostgreSQL refused for good: left out, its message acked. */
  onRefused?: (item: BatchItem, err: unknown) => void;
  /** Storefront events queued and not yet stored, whenever that changes (a gauge). */
  onQueued?: (events: number) => void;
  /** Attempts of a write that fails on a transient error (backoff from `retryBaseMs`, doubling). */
  attempts?: number;
  retryBaseMs?: number;
}

/** The events of several batches written together, at most this many. */
const MAX_WRITE = 20_000;

export interface RawPayloadWriter {
  /**
   * Queues the storefront events of a committed batch; resolves once their payloads are stored (or deliberately
   * not: a store that keeps none, an erased person), rejects if they could not be. The batch's messages are acked
   * only then, so a crash before it brings them again: the views take them for duplicates, and this stores them.
   */
  write(items: readonly BatchItem[]): Promise<void>;
  /** Resolves once everything queued so far is written or has failed. */
  drain(): Promise<void>;
}

/**
 * Stores one group of events' payloads in one transaction. An erasure in progress is waited for, so that it cannot
 * miss a payload written while it runs.
 */
async function storeRawPayloads(
  db: Db,
  items: readonly BatchItem[],
  options: RawPayloadWriterOptions,
): Promise<RawPayloadCounts> {
  const events = items.filter((it) => it.decoded.kind === 'event');
  let erasedSeqs: number[] = [];
  const counts = await db.transaction('raw_payloads', async (tx) => {
    const storeIds = [...new Set(events.map((it) => (it.decoded.kind === 'event' ? it.decoded.storeId : '')))];
    await takeErasureGates(tx, storeIds);
    const keeping = await storesKeepingPayloads(tx, storeIds);
    const ofKeepers = events.filter((it) => it.decoded.kind === 'event' && keeping.has(it.decoded.storeId));
    const { kept, erased } = screenErased(
      ofKeepers,
      await loadTombstones(tx, [...keeping.keys()]),
      (id) => keeping.get(id) ?? '',
    );
    erasedSeqs = erased.map((it) => it.msg.seq);
    const rows = new Map<string, RawEventRow>();
    for (const { decoded: d, msg } of kept) {
      if (d.kind !== 'event') continue;
      const key = rawKey(d.storeId, d.event.id);
      if (!rows.has(key))
        rows.set(key, { storeId: d.storeId, event: d.event, json: d.json, receivedAt: msg.receivedAt, seq: msg.seq });
    }
    const stored = await insertRawEvents(tx, [...rows.values()]);
    return {
      stored,
      duplicate: kept.length - stored,
      erased: erased.length,
      not_kept: events.length - ofKeepers.length,
    };
  });
  if (erasedSeqs.length) options.onErasedMessages?.(erasedSeqs);
  options.onCommitted?.(counts);
  return counts;
}

interface Waiting {
  items: readonly BatchItem[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * The raw payloads' writer: one write at a time, each taking what the batches committed meanwhile queued, so that
 * the views' next batch does not wait for the payloads of the last one.
 */
export function createRawPayloadWriter(db: Db, options: RawPayloadWriterOptions = {}): RawPayloadWriter {
  const queue: Waiting[] = [];
  let queued = 0;
  let running: Promise<void> | null = null;
  const attempts = options.attempts ?? 5;
  const retryBaseMs = options.retryBaseMs ?? 200;

  const take = (): Waiting[] => {
    const group: Waiting[] = [];
    let n = 0;
    while (queue.length && (group.length === 0 || n + queue[0]!.items.length <= MAX_WRITE)) {
      const w = queue.shift()!;
      n += w.items.length;
      group.push(w);
    }
    queued -= n;
    options.onQueued?.(queued);
    return group;
  };

  /** Stores `items`, retrying a transient failure; rejects with the last error. */
  const store = async (items: readonly BatchItem[]): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await storeRawPayloads(db, items, options);
        return;
      } catch (err) {
        if (attempt >= attempts || !isTransientDbError(err)) throw err;
        await new Promise((r) => setTimeout(r, retryBaseMs * 2 ** (attempt - 1)));
      }
    }
  };

  /**
   * Stores `items`, in halves where PostgreSQL refuses them for good (again where a half is refused), leaving out
   * only the payloads it refuses: their facts and views are stored, the stream keeps the message for its age, and
   * sending them again would only be refused again. Throws a transient failure.
   */
  const storeLeavingOutRefused = async (items: readonly BatchItem[]): Promise<void> => {
    try {
      await store(items);
    } catch (err) {
      if (isTransientDbError(err)) throw err;
      if (items.length === 1) return options.onRefused?.(items[0]!, err);
      const half = Math.ceil(items.length / 2);
      await storeLeavingOutRefused(items.slice(0, half));
      await storeLeavingOutRefused(items.slice(half));
    }
  };

  const writeGroup = async (group: Waiting[]): Promise<void> => {
    const items = group.flatMap((w) => w.items);
    try {
      await storeLeavingOutRefused(items);
      for (const w of group) w.resolve();
    } catch (err) {
      options.onFailed?.(err, items.length);
      for (const w of group) w.reject(err);
    }
  };

  const run = async (): Promise<void> => {
    while (queue.length) await writeGroup(take());
    running = null;
  };

  return {
    write(items) {
      if (items.length === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        queue.push({ items, resolve, reject });
        queued += items.length;
        options.onQueued?.(queued);
        running ??= run();
      });
    },
    async drain() {
      while (running) await running;
    },
  };
}
