/**
 * The daemon's rehearsal before it takes messages (docs/decisions.md, Operations, "The daemon rehearses before it
 * takes messages"). A fresh process runs its batch path unoptimized, and V8 compiles it while the first minute's
 * batches wait: a store's first import paid that in its own time. The rehearsal runs a made-up store's history
 * (`domain/rehearsal-history.ts`) through the daemon's own batch writer and view maintenance, as the API would
 * have published it, in one transaction that is always rolled back: nothing it wrote is ever seen, and what it
 * leaves is compiled code (and dead rows for autovacuum). It never stops the daemon: a failure is logged and
 * the daemon starts cold.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../../storage/db';
import type { Logger } from '../../../runtime/logger';
import { validateEvent, validateOrder } from '../../../contracts/src/validation';
import { eventSubject, PUSH_SUBJECT_NAMES } from '../../../contracts/src/subjects';
import { createBatchWriter, type MaintainViews } from '../adapters/pg-batch-writer';
import { decodeMessage } from '../domain/decode-message';
import { rehearsalHistory, type RehearsalItem } from '../domain/rehearsal-history';
import type { BatchItem } from '../stream/build-pipeline';

export interface RehearsalOptions {
  /** About how many messages to rehearse (0: none). */
  messages: number;
  /** Messages per rehearsed batch (default: large enough that each runs the batch path as a backlog's do). */
  batchSize?: number;
  /** No further batch starts after this long (default 15 s: a slow machine starts sooner, less rehearsed). */
  maxMs?: number;
  now: number;
}

const DEFAULT_BATCH = 2000;
const DEFAULT_MAX_MS = 15_000;

export interface RehearsalResult {
  messages: number;
  batches: number;
  seconds: number;
}

/** Shoppers of the made-up history per rehearsed message (its shoppers bring about 16 messages each). */
const PERSONS_PER_MESSAGE = 1 / 16;

/** Thrown to end the rehearsal's transaction: it must never commit. */
class RolledBack extends Error {}

/** The history as the API publishes it: validated, serialized, on the subjects of a made-up store. */
function rehearsalMessages(storeId: string, items: readonly RehearsalItem[], now: number): BatchItem[] {
  const at = new Date(now);
  const encoder = new TextEncoder();
  const out: BatchItem[] = [];
  for (const item of items) {
    const r = item.kind === 'event' ? validateEvent(item.event, { now: at }) : validateOrder(item.order);
    // The history is valid by construction (its unit test validates every item); an item that is not is left out.
    if (!r.ok) continue;
    const name = item.kind === 'event' ? item.event.name : PUSH_SUBJECT_NAMES.orders;
    const subject = eventSubject(0, storeId, name, true);
    const data = encoder.encode(JSON.stringify(r.value));
    const seq = out.length + 1;
    out.push({
      msg: {
        subject,
        seq,
        data,
        receivedAt: now,
        redelivered: false,
        validated: true,
        ack: () => {},
        nak: () => {},
        working: () => {},
      },
      decoded: decodeMessage(subject, data, now, true),
    });
  }
  return out;
}

/**
 * Runs the rehearsal; resolves with what it did, or with `null` when it failed (logged). `maintain` must be a
 * view maintainer of its own: what its batches remember after their "commit" (the touch groups they recorded)
 * was rolled back.
 */
export async function rehearse(
  db: Db,
  maintain: MaintainViews,
  opts: RehearsalOptions,
  logger: Logger,
): Promise<RehearsalResult | null> {
  if (opts.messages <= 0) return null;
  const started = performance.now();
  const storeId = `rehearsal_${randomBytes(8).toString('hex')}`;
  const history = rehearsalHistory({
    persons: Math.max(1, Math.round(opts.messages * PERSONS_PER_MESSAGE)),
    end: opts.now - 86_400_000,
    days: 60,
  });
  const items = rehearsalMessages(storeId, history, opts.now);
  let batches = 0;
  let messages = 0;
  try {
    await db.transaction('rehearsal', async (tx) => {
      await tx(
        'rehearsal.store',
        `insert into stores (store_id, name, timezone, currency, lookback_days, half_life_days)
         values ($1, 'Rehearsal', 'UTC', 'USD', 30, 7)`,
        [storeId],
      );
      // Every batch in the one transaction, so later batches meet the persons of earlier ones, as a store's do.
      const inRehearsal: Db = { ...db, transaction: (_tag, fn) => fn(tx) };
      const writer = createBatchWriter(inRehearsal, maintain);
      const { batchSize = DEFAULT_BATCH, maxMs = DEFAULT_MAX_MS } = opts;
      for (let i = 0; i < items.length && performance.now() - started < maxMs; i += batchSize) {
        const batch = items.slice(i, i + batchSize);
        await writer.applyBatch(batch);
        batches++;
        messages += batch.length;
      }
      throw new RolledBack();
    });
  } catch (err) {
    if (!(err instanceof RolledBack)) {
      logger.warn({ err, batches }, 'rehearsal failed; taking messages without it');
      return null;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  logger.info({ messages, batches, seconds: Number(seconds.toFixed(2)) }, 'rehearsed before taking messages');
  return { messages, batches, seconds };
}
