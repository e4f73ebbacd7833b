/**
 * Applies one batch in one PostgreSQL transaction (docs/product.md, Delivery guarantees): stored facts first (idempotent on their
 * natural keys), then the view maintenance step for whatever was new, then dead letters. The raw payloads are not
 * written here but after the commit, by `pg-raw-payloads.ts`. The caller acks the batch's messages only after this
 * resolves and, when the outcome says so, once the payloads are written (`durable`).
 */
import type { Db, Query } from '../../../storage/db';
import { isTransientDbError } from '../../../storage/db';
import type { BatchItem, BatchOutcome, PipelinePorts } from '../stream/build-pipeline';
import type { DecodedFact } from '../domain/decode-message';
import { toAdSpendFact } from '../domain/facts';
import { type ChangedPushes, type PushRows, upsertPushes } from './pg-pushes';
import {
  type DeadLetterRow,
  eventsWithoutFacts,
  insertDeadLetters,
  insertLinkClicks,
  loadRates,
  loadStores,
  type RawEventRow,
  type StoreSettings,
} from './pg-fact-store';
import { loadTombstones, recordMessageOwners, screenErased, takeErasureGates } from './pg-erasure-screen';
import type { RawPayloadWriter } from './pg-raw-payloads';

/** What a batch stored that was new: the input of view maintenance. */
export interface NewFacts {
  stores: Map<string, StoreSettings>;
  /** Conversion rates per store (currency -> rate to the store currency). */
  rates: Map<string, Map<string, number>>;
  /** The batch's events whose facts are not stored yet (the writer looked them up). */
  events: RawEventRow[];
  pushes: ChangedPushes;
  clicks: Array<{ storeId: string; click: Extract<DecodedFact, { kind: 'link_click' }>['click'] }>;
}

/**
 * The batch's view maintenance (`createViewMaintainer`), run inside the batch transaction after the stored facts.
 * `afterCommit` runs a function once the transaction has committed (never when it rolls back): for what may only
 * be remembered once it is durable.
 */
export type MaintainViews = (tx: Query, facts: NewFacts, afterCommit: (fn: () => void) => void) => Promise<void>;

const decoder = new TextDecoder('utf-8', { fatal: false });

/** The dead letter of a message: its payload as text, without the NULs PostgreSQL cannot hold. */
export function deadLetterOf(
  msg: Pick<BatchItem['msg'], 'seq' | 'subject' | 'data'>,
  storeId: string | null,
  reason: string,
): DeadLetterRow {
  return {
    storeId,
    seq: msg.seq,
    subject: msg.subject,
    reason,
    payload: decoder.decode(msg.data).replaceAll('\u0000', ''),
  };
}

/** Plans every statement of the transaction once for any value (docs/decisions.md, Storage). */
export const GENERIC_PLANS_SQL = 'set local plan_cache_mode = force_generic_plan';

export interface BatchWriterOptions {
  /**
   * Writes the raw payloads of each committed batch's events (docs/decisions.md, Storage, "Raw payloads off the hot
   * path"); without it (a replay, a rebuild, tests of the views) none is written.
   */
  rawPayloads?: RawPayloadWriter;
  /**
   * Called after the commit with the stream sequences of the messages dropped because they name an erased person
   * (docs/operations.md, Privacy): the daemon deletes them from the stream.
   */
  onErasedMessages?: (seqs: number[]) => void;
}

export function createBatchWriter(
  db: Db,
  maintainViews: MaintainViews,
  options: BatchWriterOptions = {},
): Pick<PipelinePorts, 'applyBatch' | 'deadLetter' | 'isTransient'> {
  async function applyBatch(items: readonly BatchItem[]): Promise<BatchOutcome> {
    const committed: Array<() => void> = [];
    let eventItems: BatchItem[] = [];
    const outcome = await db.transaction('batch', async (tx) => {
      committed.length = 0;
      // Generic plans for the batch's keyed lookups: a custom plan for a store the table statistics do not
      // cover yet (a new or fast-growing store) counts it as one row and scans the whole store per key
      // (docs/decisions.md, Storage).
      await tx('batch.generic_plans', GENERIC_PLANS_SQL);
      const storeIds = [...new Set(items.flatMap((it) => (it.decoded.kind === 'poison' ? [] : [it.decoded.storeId])))];
      // Before anything is read: an erasure of one of these stores in progress is waited for (docs/decisions.md, Privacy).
      await takeErasureGates(tx, storeIds);
      const stores = await loadStores(tx, storeIds);
      const rates = await loadRates(tx, storeIds);
      const { kept, erased } = screenErased(
        items,
        await loadTombstones(tx, storeIds),
        (id) => stores.get(id)?.currency ?? '',
      );
      if (erased.length) committed.push(() => options.onErasedMessages?.(erased.map((it) => it.msg.seq)));

      const events: RawEventRow[] = [];
      const seenEvents = new Set<string>();
      const pushes: PushRows = { orders: [], products: [], customers: [], adSpend: [] };
      const clicks: NewFacts['clicks'] = [];
      const dead: DeadLetterRow[] = [];
      let inBatchDuplicates = 0;
      const pushCounts: Partial<Record<string, number>> = {};

      eventItems = kept.filter((it) => it.decoded.kind === 'event' && stores.has(it.decoded.storeId));
      for (const item of kept) {
        const d = item.decoded;
        if (d.kind === 'poison') {
          dead.push(deadLetterOf(item.msg, d.storeId, d.reason));
          continue;
        }
        if (!stores.has(d.storeId)) {
          dead.push(deadLetterOf(item.msg, d.storeId, `unknown store ${d.storeId}`));
          continue;
        }
        const seq = item.msg.seq;
        if (d.kind !== 'event') pushCounts[d.kind] = (pushCounts[d.kind] ?? 0) + 1;
        switch (d.kind) {
          case 'event': {
            const key = `${d.storeId}\u0000${d.event.id}`;
            if (seenEvents.has(key)) {
              inBatchDuplicates++;
              break;
            }
            seenEvents.add(key);
            events.push({
              storeId: d.storeId,
              event: d.event,
              json: d.json,
              receivedAt: item.msg.receivedAt,
              seq,
            });
            break;
          }
          case 'order':
            pushes.orders.push({ storeId: d.storeId, order: d.order, seq });
            break;
          case 'product':
            pushes.products.push({ storeId: d.storeId, product: d.product, seq });
            break;
          case 'customer':
            pushes.customers.push({ storeId: d.storeId, customer: d.customer, seq });
            break;
          case 'ad_spend': {
            const store = stores.get(d.storeId)!;
            const rateOf = (c: string) => rates.get(d.storeId)?.get(c);
            for (const row of d.rows)
              pushes.adSpend.push({
                storeId: d.storeId,
                row,
                fact: toAdSpendFact(row, store.currency, rateOf).fact,
                seq,
              });
            break;
          }
          case 'link_click':
            clicks.push({ storeId: d.storeId, click: d.click });
            break;
        }
      }

      // An event is new when its facts are not stored: the raw payloads are written after this transaction, and no
      // read needs them (docs/decisions.md, Storage, "Raw payloads off the hot path").
      const newEvents = await eventsWithoutFacts(tx, events);
      await recordMessageOwners(
        tx,
        kept.filter((it) => it.decoded.kind !== 'poison' && stores.has(it.decoded.storeId)),
      );
      const changed = await upsertPushes(tx, pushes);
      await insertLinkClicks(tx, clicks);
      await insertDeadLetters(tx, dead);
      await maintainViews(
        tx,
        {
          stores,
          rates,
          events: newEvents,
          pushes: changed,
          clicks,
        },
        (fn) => committed.push(fn),
      );

      return {
        size: items.length,
        stored: newEvents.length,
        duplicates: events.length - newEvents.length + inBatchDuplicates,
        deadLettered: dead.length,
        erased: erased.length,
        receivedAt: newEvents.map((e) => e.receivedAt),
        storeIds: newEvents.map((e) => e.storeId),
        pushes: pushCounts,
      };
    });
    for (const fn of committed) fn();
    // Every event of the batch, the duplicates too: a crash after an earlier commit may have left their payloads out.
    if (options.rawPayloads && eventItems.length) return { ...outcome, durable: options.rawPayloads.write(eventItems) };
    return outcome;
  }

  async function deadLetter(item: BatchItem, reason: string): Promise<void> {
    const storeId = item.decoded.kind === 'poison' ? item.decoded.storeId : item.decoded.storeId;
    await db.transaction('dead_letter', (tx) => insertDeadLetters(tx, [deadLetterOf(item.msg, storeId, reason)]));
  }

  return { applyBatch, deadLetter, isTransient: isTransientDbError };
}
