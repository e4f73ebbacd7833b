/**
 * The pipeline composition: decode each message (pure), batch by time and size, apply each
 * batch in one transaction, and ack its messages only after the commit. Transient failures are retried
 * with backoff and finally nak'ed for redelivery; a batch that fails for any other reason is split in halves until
 * the bad message is alone, which is dead-lettered instead of blocking the stream.
 */
import { concatMap, defer, from, lastValueFrom, map, type Observable, retry, throwError, timer } from 'rxjs';
import { batchWhileBusy } from './batch-while-busy';
import { createBatchSizeBound } from './batch-size-bound';
import type { DecodeResult } from '../domain/decode-message';
import { decodeMessage } from '../domain/decode-message';
import type { InboundMessage } from './inbound-message';
import { parseEventSubject } from '../../../contracts/src/subjects';

export interface BatchItem {
  msg: InboundMessage;
  decoded: DecodeResult;
}

export interface BatchOutcome {
  size: number;
  stored: number;
  duplicates: number;
  deadLettered: number;
  /** Messages dropped because they name an erased person (docs/operations.md, Privacy). */
  erased?: number;
  /** Per-item receive time (epoch ms) for freshness figures. */
  receivedAt: number[];
  /** The store of each `receivedAt` (same order), for the visibility by store. */
  storeIds?: string[];
  /** Messages other than storefront events applied, by kind (`order`, `ad_spend`, `link_click`, ...). */
  pushes?: Partial<Record<string, number>>;
  /**
   * What must still be written after the commit (the raw payloads): the batch's messages are acked once it
   * resolves, and asked again if it rejects. The next batch does not wait for it.
   */
  durable?: Promise<void>;
}

export interface PipelinePorts {
  applyBatch(items: readonly BatchItem[]): Promise<BatchOutcome>;
  /** Dead-letters one item whose processing failed with a non-transient error. */
  deadLetter(item: BatchItem, reason: string): Promise<void>;
  isTransient(err: unknown): boolean;
}

export interface PipelineOptions {
  flushMs: number;
  batchMax: number;
  /**
   * Batches are kept to the size that commits within this many ms at the recent costs
   * (`batch-size-bound.ts`), never below `min(200, batchMax)`; 0 or absent: `batchMax` only.
   */
  batchTargetMs?: number;
  /**
   * The overflow partitions' messages are batched apart from the live ones, a batch of each kind in flight per lane,
   * and while live messages keep coming their batches are kept to what commits within this many ms; so are a lane's
   * live batches while one store holds most of its buffer (`fair-batch.ts`; docs/decisions.md, Ingestion). 0 or
   * absent: the overflow partitions are batched with the live ones, and the live ones first come first served.
   */
  sharedBatchTargetMs?: number;
  retries: number;
  retryBaseMs: number;
  /** Delay of the redelivery asked for when retries run out. */
  nakDelayMs: number;
  /**
   * Batches applied at once (each in its own transaction), each from its own share of the stream partitions.
   * The views do not depend on the order in which batches commit, and work on one person is serialized by its
   * lock, so this only overlaps the CPU work of the daemon with the database's.
   */
  concurrency?: number;
}

/**
 * Concurrent batches take disjoint stream partitions: all events of a client are in one partition, so two
 * transactions in flight do not wait for each other's locks on the same clients and persons.
 */
const laneOf = (item: Pending): number => item.partition;

/**
 * The smallest batch a lane takes while it is shared (`sharedBatchTargetMs`). Below the batches' own floor (200): that
 * floor keeps a bound taken from a cold start's small batches from staying small, but while other stores' events
 * wait behind a shared batch, its time is what they wait, and on a slow machine 200 messages took up to 600 ms
 * (docs/decisions.md, Operations, "Batches bounded by time").
 */
const SHARED_BATCH_MIN = 50;

/** A live message came within this long: the lane's batches are kept short while it holds overflow messages. */
const LIVE_RECENT_MS = 5000;

/**
 * A message waiting for its batch. Live messages are decoded as they arrive, while the batch before theirs is in
 * the database; the overflow partitions' messages only when their batch starts, so that a backlog arriving faster
 * than it is applied does not take the daemon's CPU from the live messages' batches.
 */
interface Pending {
  msg: InboundMessage;
  /** The subject's partition, lane and store, read once per message. */
  partition: number;
  overflow: boolean;
  store: string;
  decoded?: BatchItem['decoded'];
}

const decode = (msg: InboundMessage): BatchItem['decoded'] =>
  decodeMessage(msg.subject, msg.data, msg.receivedAt, msg.validated === true);

const toBatchItem = (p: Pending): BatchItem => ({ msg: p.msg, decoded: p.decoded ?? decode(p.msg) });

export type PipelineReport =
  | { type: 'committed'; outcome: BatchOutcome; seconds: number }
  | { type: 'nak'; size: number; error: unknown }
  | { type: 'isolated'; size: number; error: unknown };

export function backoffMs(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** (attempt - 1), 30_000);
}

export function buildPipeline(
  source$: Observable<InboundMessage>,
  ports: PipelinePorts,
  opts: PipelineOptions,
  now: () => number = Date.now,
): Observable<PipelineReport> {
  const applyWithRetry = (items: readonly BatchItem[]): Observable<BatchOutcome> =>
    defer(() => ports.applyBatch(items)).pipe(
      retry({
        count: opts.retries,
        delay: (err: unknown, attempt: number) => {
          if (!ports.isTransient(err)) return throwError(() => err);
          for (const it of items) it.msg.working();
          return timer(backoffMs(attempt, opts.retryBaseMs));
        },
      }),
    );

  /** Acks the items once what their batch still writes is written; asks for them again if it fails. */
  const ackWhenDurable = (items: readonly BatchItem[], outcome: BatchOutcome): void => {
    const ack = () => {
      for (const it of items) it.msg.ack();
    };
    if (!outcome.durable) return ack();
    outcome.durable.then(ack, () => {
      for (const it of items) it.msg.nak(opts.nakDelayMs);
    });
  };

  const sizeBound = createBatchSizeBound({
    min: Math.min(200, opts.batchMax),
    max: opts.batchMax,
    targetMs: opts.batchTargetMs ?? 0,
  });

  const processBatch = async (pending: Pending[]): Promise<PipelineReport[]> => {
    const started = now();
    const items = pending.map(toBatchItem);
    try {
      const outcome = await lastValueFrom(applyWithRetry(items));
      ackWhenDurable(items, outcome);
      sizeBound.observe(items.length, now() - started);
      return [{ type: 'committed', outcome, seconds: (now() - started) / 1000 }];
    } catch (err) {
      if (ports.isTransient(err)) {
        for (const it of items) it.msg.nak(opts.nakDelayMs);
        return [{ type: 'nak', size: items.length, error: err }];
      }
      // Not transient: split in halves, again and again where one fails, so that only the offending message is
      // dead-lettered and the rest go in batches (a poison message among 5,000 costs some 25 attempts, not 5,000).
      const reports: PipelineReport[] = [{ type: 'isolated', size: items.length, error: err }];
      await isolate(items, reports);
      return reports;
    }
  };

  /** Applies the halves of a batch that failed for good, splitting further where a half fails too. */
  const isolate = async (items: readonly BatchItem[], reports: PipelineReport[]): Promise<void> => {
    const half = Math.ceil(items.length / 2);
    for (const part of [items.slice(0, half), items.slice(half)]) {
      if (part.length === 0) continue;
      const started = now();
      try {
        const outcome = await lastValueFrom(applyWithRetry(part));
        ackWhenDurable(part, outcome);
        reports.push({ type: 'committed', outcome, seconds: (now() - started) / 1000 });
      } catch (err) {
        if (ports.isTransient(err)) {
          for (const it of part) it.msg.nak(opts.nakDelayMs);
          reports.push({ type: 'nak', size: part.length, error: err });
        } else if (part.length > 1) await isolate(part, reports);
        else reports.push(await deadLetterOne(part[0]!, err, started));
      }
    }
  };

  /** Dead-letters a message that failed alone for good, then acks it; naks it if the dead letter fails. */
  const deadLetterOne = async (it: BatchItem, err: unknown, started: number): Promise<PipelineReport> => {
    try {
      await ports.deadLetter(it, `processing failed: ${err instanceof Error ? err.message : String(err)}`);
    } catch (dlErr) {
      it.msg.nak(opts.nakDelayMs);
      return { type: 'nak', size: 1, error: dlErr };
    }
    it.msg.ack();
    return {
      type: 'committed',
      outcome: { size: 1, stored: 0, duplicates: 0, deadLettered: 1, receivedAt: [] },
      seconds: (now() - started) / 1000,
    };
  };

  const shared = (opts.sharedBatchTargetMs ?? 0) > 0;
  return source$.pipe(
    map((msg): Pending => {
      const subject = parseEventSubject(msg.subject);
      const partition = subject?.partition ?? 0;
      const overflow = shared && subject?.overflow === true;
      const store = subject?.storeId ?? '';
      return overflow ? { msg, partition, overflow, store } : { msg, partition, overflow, store, decoded: decode(msg) };
    }),
    batchWhileBusy(
      () => sizeBound.current(),
      opts.flushMs,
      processBatch,
      opts.concurrency ?? 1,
      undefined,
      laneOf,
      shared
        ? {
            deferred: (p) => p.overflow,
            sizeWhileShared: () => sizeBound.within(opts.sharedBatchTargetMs ?? 0, SHARED_BATCH_MIN),
            recentMs: LIVE_RECENT_MS,
            keyOf: (p) => p.store,
          }
        : undefined,
    ),
    concatMap((reports) => from(reports)),
  );
}
