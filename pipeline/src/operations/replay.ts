/**
 * Replay (docs/product.md, Operations): re-consume a store's messages from the EVENTS stream, from a time or a
 * sequence, through the daemon's own batch flow, batch writer and view maintenance. Idempotent: beside the live
 * daemon it changes no figure. With `rebuild`, the store's stream-derived facts and every view are emptied
 * and its facts loaded again from what the stream holds, in memory and in bulk (`rebuild-load.ts`); the views
 * are then recomputed once; the raw payloads are kept rather than deleted and written again (docs/decisions.md,
 * Operations). Replays queue no webhook deliveries.
 */
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { EVENTS_STREAM } from '../../../contracts/src/subjects';
import { type Db, isTransientDbError, type Query } from '../../../storage/db';
import type { Logger } from '../../../runtime/logger';
import { lastValueFrom, Observable, tap } from 'rxjs';
import { buildPipeline, type PipelineReport } from '../stream/build-pipeline';
import { toInbound } from '../adapters/nats-source';
import type { InboundMessage } from '../stream/inbound-message';
import { createBatchWriter } from '../adapters/pg-batch-writer';
import { createViewMaintainer } from '../adapters/pg-view-maintainer';
import { reconcileStore } from './reconcile';
import { vacuumEmptiedTables, watchPlannerCounts } from '../adapters/planner-counts';
import { insertDeadLetters, loadRates, loadStores } from '../adapters/pg-fact-store';
import { EMPTIED_TABLES, emptyStoreIn, type LoadedStream, loadStoreStream } from './rebuild-load';
import { firstSequenceOf, rangeMessages } from './stream-range';

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
  /**
   * With rebuild: the most messages the store's stream may hold for its facts to be loaded in memory
   * (`REBUILD_BULK_MAX_MESSAGES` by default, `REBUILD_BULK_LIMIT` at most); a larger store loads through the batch
   * flow.
   */
  bulkMaxMessages?: number;
}

/**
 * The most messages a rebuild loads in memory by default. Until the load commits it holds about 150 bytes per
 * message (each event id once, the clients, links and latest push versions: 15 MB for the 100k-event demo
 * stream), so 1.5 GB here; and a JavaScript Set holds at most 2^24 (16.8 million) event ids. A store whose
 * stream holds more loads through the batch flow, which holds one batch at a time (docs/decisions.md,
 * Operations, "A rebuild loads the stream in memory").
 */
export const REBUILD_BULK_MAX_MESSAGES = 10_000_000;

/** The most messages a load in memory can take at all: the entries of one JavaScript Set. */
export const REBUILD_BULK_LIMIT = 2 ** 24;

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
  /**
   * With rebuild: how the facts were loaded: `bulk` (the rebuild's own load, in memory), or `batches` (the
   * daemon's batch flow: when PostgreSQL refused a message's facts, or the store's stream held more messages than
   * `bulkMaxMessages`).
   */
  loadedBy?: 'bulk' | 'batches';
  /** With rebuild: the time spent emptying the store (included in seconds). */
  emptySeconds?: number;
  /** With rebuild: the time spent loading the facts from the stream (included in seconds). */
  loadSeconds?: number;
  /** With rebuild: the time spent recomputing the views from the loaded facts (included in seconds). */
  recomputeSeconds?: number;
}

/**
 * Empties a store's views and stream-derived facts for a rebuild through the batch flow, all but its raw payloads
 * (the batch flow never writes those; their own consumer has them already), and `dropPayloadsWithoutFacts` then
 * removes those the stream no longer holds. Returns the rows deleted, by table.
 */
export async function emptyStore(db: Db, storeId: string): Promise<Map<string, number>> {
  return db.transaction('replay.empty', (tx) => emptyStoreIn(tx, storeId));
}

/** One replay: where it reads, where it writes, and what it reports to. */
interface ReplayRun {
  js: JetStreamClient;
  db: Db;
  range: ReplayRange;
  stream: { filter: string; lastSeq: number; started: number; total: number };
  logger: Logger;
  progress: ReplayProgress;
  onProgress?: (p: ReplayProgress) => void;
}

/**
 * The payloads of a store's events that have no facts. Both sides are the store's whole range, so the anti-join
 * must hash or merge them: a nested loop scans the store's facts once per payload wherever the planner believes
 * the store holds a row or two (a store its statistics do not cover yet, beside others they do: 302 s instead of
 * under a second for 100k events beside a store of 1M; docs/decisions.md, Operations).
 */
export const PAYLOADS_WITHOUT_FACTS_DELETE_SQL = `with d as (
    delete from raw_events r
    where r.store_id = $1
      and not exists (select 1 from event_facts f where f.store_id = r.store_id and f.event_id = r.event_id)
    returning 1)
  select count(*) as n from d`;

/** For the transaction's remaining statements: no nested loop (the planner's own setting, reset at commit). */
export const NO_NESTED_LOOPS_SQL = 'set local enable_nestloop = off';

/**
 * After a rebuild's load, the payloads of events it stored no facts for (older than the stream's retention, or
 * outside the replayed range): nothing shows them any more, and the store's data must not outlive its facts.
 * Returns how many were deleted.
 */
export async function dropPayloadsWithoutFacts(db: Db, storeId: string): Promise<number> {
  return db.transaction('replay.drop_payloads', (tx) => dropPayloadsWithoutFactsIn(tx, storeId));
}

/** `dropPayloadsWithoutFacts` in the transaction `tx`. */
export async function dropPayloadsWithoutFactsIn(tx: Query, storeId: string): Promise<number> {
  await tx('replay.no_nested_loops', NO_NESTED_LOOPS_SQL);
  const deleted = await tx<{ n: string }>('replay.drop_payloads_without_facts', PAYLOADS_WITHOUT_FACTS_DELETE_SQL, [
    storeId,
  ]);
  return Number(deleted[0]?.n ?? 0);
}

/**
 * Applies the store's messages of the range through the daemon's batch flow, counting into `progress`; throws when
 * some could not be applied.
 */
async function applyStreamRange(run: ReplayRun): Promise<void> {
  const { js, db, range, logger, progress, onProgress } = run;
  const { filter, lastSeq, started } = run.stream;
  // A rebuild's fallback loads the facts alone and recomputes every view once at the end (each person once,
  // instead of once per batch that touches it); a plain replay maintains the views batch by batch like the daemon.
  const writer = createBatchWriter(db, createViewMaintainer(logger, { factsOnly: range.rebuild }));
  const batchSize = range.batchSize ?? 5000;

  // The stream range as a source of messages. An ordered consumer has no max_ack_pending to hold it back, so
  // the source waits while two batches' worth of messages are not yet applied.
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
      for await (const m of rangeMessages(js, filter, range, lastSeq, batchSize)) {
        if (stopped) break;
        pending++;
        subscriber.next(toInbound(m, false));
        while (pending >= maxPending && !stopped) await new Promise<void>((r) => (resume = r));
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

/** Attempts of a rebuild's load that failed on the database (a deadlock at its locks, a connection lost). */
const LOAD_ATTEMPTS = 5;

/**
 * Empties the store and loads its facts from the stream range in bulk, in one transaction (`rebuild-load.ts`);
 * then writes the dead letters. A load that failed on the database is run again from the start.
 */
async function loadInBulk(run: ReplayRun): Promise<LoadedStream> {
  const { js, db, range, stream, logger, progress, onProgress } = run;
  const { storeId } = range;
  const store = (await loadStores(db.query, [storeId])).get(storeId);
  if (!store) throw new Error(`no store with id ${storeId}`);
  const rates = (await loadRates(db.query, [storeId])).get(storeId) ?? new Map<string, number>();
  const source = { ...stream, range, batchSize: range.batchSize ?? 5000 };
  const onRead = (processed: number): void => {
    progress.processed = processed;
    progress.seconds = (Date.now() - stream.started) / 1000;
    onProgress?.({ ...progress });
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const loaded = await db.transaction('rebuild.load', (tx) =>
        loadStoreStream(tx, js, source, store, rates, onRead),
      );
      progress.processed = loaded.processed;
      progress.stored = loaded.stored;
      progress.duplicates = loaded.duplicates;
      progress.deadLettered = loaded.deadLetters.length;
      for (let i = 0; i < loaded.deadLetters.length; i += 1000) {
        await insertDeadLetters(db.query, loaded.deadLetters.slice(i, i + 1000));
      }
      if (loaded.missingRates.length) {
        logger.warn(
          { storeId, currencies: loaded.missingRates },
          'no conversion rate for these currencies: 1:1 assumed',
        );
      }
      return loaded;
    } catch (err) {
      if (!isTransientDbError(err) || attempt >= LOAD_ATTEMPTS) throw err;
      logger.warn({ err, storeId, attempt }, 'rebuild load failed on the database; loading again');
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
    }
  }
}

/**
 * Rebuilds the store: the bulk load, then every view recomputed once from the loaded facts. Should PostgreSQL
 * refuse a message's facts (which the bulk load cannot set apart), the load runs again through the daemon's batch
 * flow, which dead-letters that message alone. A store with more messages than the bulk load holds in memory
 * loads through the batch flow from the start.
 */
async function rebuildStore(run: ReplayRun): Promise<void> {
  const { db, range, stream, logger, progress } = run;
  const { storeId } = range;
  const loadStarted = Date.now();
  const bulkMax = Math.min(range.bulkMaxMessages ?? REBUILD_BULK_MAX_MESSAGES, REBUILD_BULK_LIMIT);
  let loaded: LoadedStream | null = null;
  try {
    if (stream.total <= bulkMax) loaded = await loadInBulk(run);
    else {
      logger.info(
        { storeId, messages: stream.total, bulkMaxMessages: bulkMax },
        'rebuild: more messages than a load in memory holds; loading through the batch flow',
      );
    }
  } catch (err) {
    if (isTransientDbError(err)) throw err;
    logger.warn({ err, storeId }, 'rebuild: the bulk load failed; loading through the batch flow instead');
    Object.assign(progress, { processed: 0, stored: 0, duplicates: 0, deadLettered: 0 });
  }
  // Refilled tables' planner counts are kept from reading zero through the load and the repair.
  const statistics = watchPlannerCounts(db, EMPTIED_TABLES, logger, { everyMs: 250 });
  try {
    progress.loadedBy = loaded ? 'bulk' : 'batches';
    if (loaded) {
      progress.emptySeconds = loaded.emptySeconds;
      // The dead entries of the deleted rows out of the indexes, and the planner's counts right.
      await vacuumEmptiedTables(db, loaded.deleted, logger);
      await statistics.check();
    } else {
      const emptyStarted = Date.now();
      await vacuumEmptiedTables(db, await emptyStore(db, storeId), logger);
      progress.emptySeconds = (Date.now() - emptyStarted) / 1000;
      if (stream.total > 0) await applyStreamRange(run);
    }
    progress.payloadsDropped = await dropPayloadsWithoutFacts(db, storeId);
    progress.loadSeconds = Math.round(Date.now() - loadStarted - progress.emptySeconds * 1000) / 1000;
    if (stream.total > 0) {
      const t = Date.now();
      await reconcileStore(db, storeId, { repair: true });
      progress.recomputeSeconds = (Date.now() - t) / 1000;
    }
  } finally {
    await statistics.stop();
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
  const subjects = info.state.subjects ?? {};
  const total = Object.values(subjects).reduce((a, b) => a + b, 0);
  const lastSeq = range.toSeq ?? info.state.last_seq;
  // From the store's first message rather than the stream's: the other stores' messages before it are not read.
  if (range.fromSeq === undefined && range.fromTime === undefined && total > 0) {
    // Only a shortcut: should the lookups fail, the replay reads from the stream's beginning as before.
    const first = await firstSequenceOf(nc, EVENTS_STREAM, Object.keys(subjects)).catch((err: unknown) => {
      logger.warn(
        { err, storeId: range.storeId },
        "replay: the store's first message was not found; reading from the stream's beginning",
      );
      return null;
    });
    if (first !== null) range = { ...range, fromSeq: first };
  }
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
  const run: ReplayRun = { js, db, range, stream: { filter, lastSeq, started, total }, logger, progress, onProgress };
  if (range.rebuild) await rebuildStore(run);
  else if (total > 0) await applyStreamRange(run);
  progress.seconds = (Date.now() - started) / 1000;
  logger.info({ ...progress, storeId: range.storeId }, 'replay finished');
  return progress;
}
