/**
 * Replay (docs/product.md, Operations): re-consume a store's messages from the EVENTS stream, from a time or a
 * sequence, through the daemon's own batch flow, batch writer and view maintenance. Idempotent: beside the live
 * daemon it changes no figure. With `rebuild`, the store's stream-derived facts and every view are emptied
 * first, so the views are recomputed from what the stream holds; the raw payloads are kept rather than deleted
 * and written again (docs/decisions.md, Operations). Replays queue no webhook deliveries.
 */
import { jetstream, jetstreamManager, DeliverPolicy, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { EVENTS_STREAM } from '../../../contracts/src/subjects';
import { STREAM_FACT_TABLES, VIEW_TABLES } from '../../../storage/schema';
import type { Db } from '../../../storage/db';
import type { Logger } from '../../../runtime/logger';
import { lastValueFrom, Observable, tap } from 'rxjs';
import { buildPipeline, type PipelineReport } from '../stream/build-pipeline';
import { toInbound } from '../adapters/nats-source';
import type { InboundMessage } from '../stream/inbound-message';
import { createBatchWriter } from '../adapters/pg-batch-writer';
import { createViewMaintainer } from '../adapters/pg-view-maintainer';
import { reconcileStore } from './reconcile';
import { vacuumEmptiedTables, watchPlannerCounts } from '../adapters/planner-counts';

export interface ReplayRange {
  storeId: string;
  /** Start: a stream sequence, or an instant (epoch ms). Default: the beginning of the stream. */
  fromSeq?: number;
  fromTime?: number;
  /** End (inclusive): a sequence, or an instant; default: the stream's last message when the replay starts. */
  toSeq?: number;
  toTime?: number;
  rebuild?: boolean;
  batchSize?: number;
  /** How long one fetch waits for the messages it asked for (default 2 s); the replay never waits for it to expire. */
  fetchExpiresMs?: number;
}

export interface ReplayProgress {
  processed: number;
  total: number;
  stored: number;
  duplicates: number;
  deadLettered: number;
  /** Messages that could not be applied after retries (the replay then fails). */
  failed: number;
  seconds: number;
  /** With rebuild: raw payloads deleted because the stream no longer holds their events (or they lay outside the range). */
  payloadsDropped?: number;
  /** With rebuild: the time spent emptying the store (included in seconds). */
  emptySeconds?: number;
  /** With rebuild: the time spent loading the facts from the stream (included in seconds). */
  loadSeconds?: number;
  /** With rebuild: the time spent recomputing the views from the loaded facts (included in seconds). */
  recomputeSeconds?: number;
}

/** What a rebuild empties: the store's views and stream-derived facts but its raw payloads. */
const EMPTIED_TABLES = [...VIEW_TABLES, ...STREAM_FACT_TABLES.filter((t) => t !== 'raw_events')];

/**
 * Empties a store's views and stream-derived facts for a rebuild, all but its raw payloads: the stream brings the
 * same messages again, so the load stores none (`payloadsKept`) and `dropPayloadsWithoutFacts` then removes those
 * the stream no longer holds. Returns the rows deleted, by table.
 */
export async function emptyStore(db: Db, storeId: string): Promise<Map<string, number>> {
  const deleted = new Map<string, number>();
  await db.transaction('replay.empty', async (tx) => {
    // The write lock keeps the live daemon's batches out while the store is emptied.
    await tx('replay.lock', `lock table ${VIEW_TABLES.join(', ')} in exclusive mode`);
    for (const table of EMPTIED_TABLES) {
      const [row] = await tx<{ n: string }>(
        `replay.empty_${table}`,
        `with d as (delete from ${table} where store_id = $1 returning 1) select count(*) as n from d`,
        [storeId],
      );
      deleted.set(table, Number(row?.n ?? 0));
    }
  });
  return deleted;
}

/**
 * After a rebuild's load, the payloads of events it stored no facts for (older than the stream's retention, or
 * outside the replayed range): the live path takes an event with a stored payload for a duplicate, so such a
 * payload would keep that event out if it were ever sent again. Returns how many were deleted.
 */
export async function dropPayloadsWithoutFacts(db: Db, storeId: string): Promise<number> {
  const deleted = await db.query<{ n: string }>(
    'replay.drop_payloads_without_facts',
    `with d as (
       delete from raw_events r
       where r.store_id = $1
         and not exists (select 1 from event_facts f where f.store_id = r.store_id and f.event_id = r.event_id)
       returning 1)
     select count(*) as n from d`,
    [storeId],
  );
  return Number(deleted[0]?.n ?? 0);
}

/**
 * Applies the store's messages of the range through the daemon's batch flow, counting into `progress`; throws when
 * some could not be applied.
 */
async function applyStreamRange(
  js: JetStreamClient,
  db: Db,
  range: ReplayRange,
  stream: { filter: string; lastSeq: number; started: number },
  logger: Logger,
  progress: ReplayProgress,
  onProgress?: (p: ReplayProgress) => void,
): Promise<void> {
  const { filter, lastSeq, started } = stream;
  // A rebuild loads the facts alone and recomputes every view once at the end (each person once, instead
  // of once per batch that touches it); a plain replay maintains the views batch by batch like the daemon.
  const writer = createBatchWriter(db, createViewMaintainer(logger, { factsOnly: range.rebuild }), {
    payloadsKept: range.rebuild,
  });
  const consumer = await js.consumers.get(EVENTS_STREAM, {
    filter_subjects: filter,
    ...(range.fromSeq !== undefined
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: range.fromSeq }
      : range.fromTime !== undefined
        ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(range.fromTime).toISOString() }
        : { deliver_policy: DeliverPolicy.All }),
  });
  const batchSize = range.batchSize ?? 5000;

  // The stream range as a source of messages: fetch batch after batch until the end of the range or until
  // the stream has nothing more for the store. An ordered consumer has no max_ack_pending to hold it back,
  // so the source waits while two batches' worth of messages are not yet applied.
  const maxPending = 2 * batchSize;
  let pending = 0;
  let resume: (() => void) | null = null;
  const settled = (n: number): void => {
    pending -= n;
    if (pending < maxPending) resume?.();
  };
  const source$ = new Observable<InboundMessage>((subscriber) => {
    let stopped = false;
    const pull = async (): Promise<void> => {
      for (let done = false; !done && !stopped;) {
        const messages = await consumer.fetch({ max_messages: batchSize, expires: range.fetchExpiresMs ?? 2000 });
        let received = 0;
        for await (const m of messages) {
          received++;
          const inbound = toInbound(m, false);
          if (inbound.seq > lastSeq || (range.toTime !== undefined && m.info.timestampNanos / 1e6 > range.toTime)) {
            done = true;
            break;
          }
          pending++;
          subscriber.next(inbound);
          while (pending >= maxPending && !stopped) await new Promise<void>((r) => (resume = r));
          // The range's last message, or the last the stream holds for the store (nothing more pending): a fetch
          // short of its count would otherwise idle the replay until it expires.
          if (inbound.seq === lastSeq || m.info.pending === 0) {
            done = true;
            break;
          }
        }
        if (received === 0) done = true;
      }
    };
    pull().then(
      () => subscriber.complete(),
      (err: unknown) => subscriber.error(err),
    );
    return () => {
      stopped = true;
      resume?.();
    };
  });

  // The daemon's own batch flow: adaptive batches, two in flight, retries, and a failing batch split so that
  // only a bad message is dead-lettered.
  await lastValueFrom(
    buildPipeline(source$, writer, {
      flushMs: 50,
      batchMax: batchSize,
      retries: 5,
      retryBaseMs: 200,
      nakDelayMs: 0,
      concurrency: 2,
    }).pipe(
      tap((r: PipelineReport) => {
        if (r.type === 'isolated') return;
        if (r.type === 'nak') {
          // A replay cannot ask for redelivery: what could not be applied is counted and reported.
          progress.failed += r.size;
          progress.processed += r.size;
          settled(r.size);
          return;
        }
        progress.processed += r.outcome.size;
        progress.stored += r.outcome.stored;
        progress.duplicates += r.outcome.duplicates;
        progress.deadLettered += r.outcome.deadLettered;
        progress.seconds = (Date.now() - started) / 1000;
        settled(r.outcome.size);
        onProgress?.({ ...progress });
      }),
    ),
    { defaultValue: undefined },
  );
  if (progress.failed > 0) {
    throw new Error(`replay: ${progress.failed} messages could not be applied (database unavailable); run it again`);
  }
}

export async function replayStore(
  nc: NatsConnection,
  db: Db,
  range: ReplayRange,
  logger: Logger,
  onProgress?: (p: ReplayProgress) => void,
): Promise<ReplayProgress> {
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const filter = `ev.*.${range.storeId}.*`;
  const info = await jsm.streams.info(EVENTS_STREAM, { subjects_filter: filter });
  const total = Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
  const lastSeq = range.toSeq ?? info.state.last_seq;
  const started = Date.now();
  const progress: ReplayProgress = {
    processed: 0,
    total,
    stored: 0,
    duplicates: 0,
    deadLettered: 0,
    failed: 0,
    seconds: 0,
  };
  if (range.rebuild) {
    await vacuumEmptiedTables(db, await emptyStore(db, range.storeId), logger);
    progress.emptySeconds = (Date.now() - started) / 1000;
  }
  // Refilled tables' planner counts are kept from reading zero through the load and the repair.
  const statistics = range.rebuild ? watchPlannerCounts(db, EMPTIED_TABLES, logger, { everyMs: 250 }) : undefined;
  try {
    const loadStarted = Date.now();
    if (total > 0) await applyStreamRange(js, db, range, { filter, lastSeq, started }, logger, progress, onProgress);
    if (range.rebuild) {
      progress.payloadsDropped = await dropPayloadsWithoutFacts(db, range.storeId);
      progress.loadSeconds = (Date.now() - loadStarted) / 1000;
      if (total > 0) {
        const t = Date.now();
        await reconcileStore(db, range.storeId, { repair: true });
        progress.recomputeSeconds = (Date.now() - t) / 1000;
      }
    }
  } finally {
    await statistics?.stop();
  }
  progress.seconds = (Date.now() - started) / 1000;
  logger.info({ ...progress, storeId: range.storeId }, 'replay finished');
  return progress;
}
