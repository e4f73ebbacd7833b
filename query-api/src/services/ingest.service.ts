/**
 * Ingestion (docs/product.md, Ingestion): validate each item, publish the valid ones to JetStream with their
 * de-duplication id, and answer only once the stream has acknowledged every publish. Bad items of a batch
 * are reported by index; the good ones are accepted.
 */
import { createHash } from 'node:crypto';
import type { IngestResult, RejectedItem } from '../../../contracts/src/ingest';
import { eventMsgId, eventSubject, headerSafe, partitionOf, PUSH_SUBJECT_NAMES } from '../../../contracts/src/subjects';
import { browserClientOfOrder } from '../../../contracts/src/identity';
import {
  validateAdSpendRow,
  validateCustomer,
  validateEvent,
  validateOrder,
  validateProduct,
  type ValidationResult,
} from '../../../contracts/src/validation';
import type { StoreRecord } from '../../../storage/store-registry';
import type { StoreLiveRate } from './store-live-rate';
import type { Logger } from '../../../runtime/logger';
import type { EventPublisher } from '../adapters/event-publisher';
import type { ApiMetrics } from '../app/metrics';
import { ApiError, badRequest } from '../app/errors';
import { findUnstorable } from '../../../contracts/src/validation/storable';

export type PushKind = keyof typeof PUSH_SUBJECT_NAMES;

/** The name a push item goes by in error messages (as its validator names it). */
const PUSH_ROOTS: Record<PushKind, string> = {
  orders: 'order',
  products: 'product',
  customers: 'customer',
  'ad-spend': 'row',
};

/** A valid item: its partition is chosen, its lane (live or overflow) only when its request is published. */
interface Publishable {
  index: number;
  partition: number;
  name: string;
  payload: string;
  msgId: string;
}

function asItems(body: unknown, maxBatch: number): unknown[] {
  if (Array.isArray(body)) {
    if (body.length === 0) throw badRequest('body', 'is an empty array');
    if (body.length > maxBatch) throw badRequest('body', `has ${body.length} items; at most ${maxBatch} per request`);
    return body;
  }
  if (typeof body !== 'object' || body === null)
    throw badRequest('body', 'must be a JSON object or an array of objects');
  return [body];
}

/**
 * A message must fit in one JetStream message (1 MB by default) with its headers: an item this large is
 * refused by name instead of failing at the publish with an error a retry cannot cure.
 */
export const MAX_ITEM_BYTES = 512 * 1024;

function tooLarge(root: string, payload: string): RejectedItem['errors'] | null {
  // A UTF-16 code unit takes at most 3 bytes in UTF-8: most items are counted without encoding them.
  if (payload.length * 3 <= MAX_ITEM_BYTES) return null;
  const bytes = Buffer.byteLength(payload);
  return bytes > MAX_ITEM_BYTES
    ? [{ field: root, message: `is ${bytes} bytes once serialized; at most ${MAX_ITEM_BYTES}` }]
    : null;
}

function summarize(rejected: RejectedItem[], batch: boolean): string {
  return rejected
    .slice(0, 3)
    .map((r) =>
      r.errors
        .slice(0, 3)
        .map((e) => `${batch ? `[${r.index}].` : ''}${e.field}: ${e.message}`)
        .join('; '),
    )
    .join('; ');
}

export interface IngestServiceDeps {
  publisher: EventPublisher;
  logger: Logger;
  metrics: Pick<ApiMetrics, 'eventsReceived' | 'dataQualityWarnings' | 'eventsOverflowed' | 'requestsPaced'>;
  now: () => number;
  /** Items per request. */
  maxBatch: number;
  eventPartitions: number;
  /** Which stores are over their live rate; without it every request goes to the live partitions. */
  liveRate?: StoreLiveRate;
}

export class IngestService {
  constructor(private readonly deps: IngestServiceDeps) {}

  /**
   * Events of `/api/events` (every envelope member required) or, with `collect`, of the browser route `/collect`,
   * which fills a missing `clientIp` from the request and a missing `seq` and `type` with their defaults.
   */
  async ingestEvents(store: StoreRecord, body: unknown, collect?: { clientIp: string }): Promise<IngestResult> {
    const items = asItems(body, this.deps.maxBatch);
    const receivedAt = this.deps.now();
    const now = new Date(receivedAt);
    const rejected: RejectedItem[] = [];
    const valid: Publishable[] = [];
    let warnings = 0;
    items.forEach((item, index) => {
      const r = this.prepareEvent(store, item, index, { now, clientIpFallback: collect?.clientIp, collect });
      if ('errors' in r) rejected.push({ index, errors: r.errors });
      else {
        valid.push(r.publishable);
        if (r.warned) warnings++;
      }
    });
    // A shopper's browser is not held or refused for pacing: its events go to the overflow partitions at most.
    return this.publishAll(store, 'event', valid, rejected, warnings, receivedAt, Array.isArray(body), !collect);
  }

  /**
   * Events in groups that stand or fall together, rejected by the group's index: a connector's message that
   * gives an event and an identity link (the Segment-compatible source) is refused whole when one of them is
   * bad, or with the errors the connector found itself. Groups of no event are accepted and publish nothing.
   */
  async ingestEventGroups(
    store: StoreRecord,
    groups: ReadonlyArray<{ events: readonly unknown[] } | { errors: RejectedItem['errors'] }>,
  ): Promise<IngestResult> {
    const receivedAt = this.deps.now();
    const now = new Date(receivedAt);
    const rejected: RejectedItem[] = [];
    const valid: Publishable[] = [];
    let warnings = 0;
    groups.forEach((group, index) => {
      if ('errors' in group) {
        rejected.push({ index, errors: group.errors });
        return;
      }
      const prepared: Publishable[] = [];
      let warned = false;
      for (const event of group.events) {
        const r = this.prepareEvent(store, event, index, { now });
        if ('errors' in r) {
          rejected.push({ index, errors: r.errors });
          return;
        }
        prepared.push(r.publishable);
        warned ||= r.warned;
      }
      valid.push(...prepared);
      if (warned) warnings++;
    });
    if (valid.length === 0 && rejected.length === 0) return { accepted: 0, duplicates: 0, rejected, warnings };
    return this.publishAll(store, 'event', valid, rejected, warnings, receivedAt, true);
  }

  /** One event validated and ready to publish, or its errors. */
  private prepareEvent(
    store: StoreRecord,
    item: unknown,
    index: number,
    opts: { now: Date; clientIpFallback?: string; collect?: unknown },
  ): { publishable: Publishable; warned: boolean } | { errors: RejectedItem['errors'] } {
    const unstorable = findUnstorable(item, 'event');
    if (unstorable) return { errors: [unstorable] };
    const r = validateEvent(item, {
      now: opts.now,
      clientIpFallback: opts.clientIpFallback,
      collectDefaults: opts.collect !== undefined,
    });
    if (!r.ok) return { errors: r.errors };
    for (const w of r.warnings) this.deps.metrics.dataQualityWarnings.inc({ field: w.split(' ')[0] ?? w });
    const e = r.value;
    const payload = JSON.stringify(e);
    const large = tooLarge('event', payload);
    if (large) return { errors: large };
    return {
      publishable: {
        index,
        partition: partitionOf(store.store_id, e.clientId, this.deps.eventPartitions),
        name: e.name,
        payload,
        msgId: eventMsgId(store.store_id, e.id),
      },
      warned: r.warnings.length > 0,
    };
  }

  async ingestPushes(store: StoreRecord, kind: PushKind, body: unknown): Promise<IngestResult> {
    const items = asItems(body, this.deps.maxBatch);
    const receivedAt = this.deps.now();
    const rejected: RejectedItem[] = [];
    const valid: Publishable[] = [];
    items.forEach((item, index) => {
      const unstorable = findUnstorable(item, PUSH_ROOTS[kind]);
      if (unstorable) {
        rejected.push({ index, errors: [unstorable] });
        return;
      }
      const r = this.validatePush(kind, item, receivedAt);
      if (!r.ok) {
        rejected.push({ index, errors: r.errors });
        return;
      }
      const payload = JSON.stringify(r.value.value);
      const large = tooLarge(PUSH_ROOTS[kind], payload);
      if (large) {
        rejected.push({ index, errors: large });
        return;
      }
      // Content-addressed id: the same version pushed twice is dropped by the stream, a changed one is not.
      const digest = createHash('sha256').update(payload).digest('base64url').slice(0, 22);
      valid.push({
        index,
        partition: partitionOf(
          store.store_id,
          r.value.partitionKey ?? `${kind}:${r.value.key}`,
          this.deps.eventPartitions,
        ),
        name: PUSH_SUBJECT_NAMES[kind],
        payload,
        msgId: `${store.store_id}:${kind}:${headerSafe(r.value.key)}:${digest}`,
      });
    });
    return this.publishAll(store, kind, valid, rejected, 0, receivedAt, Array.isArray(body));
  }

  private validatePush(
    kind: PushKind,
    item: unknown,
    receivedAt: number,
  ): ValidationResult<{ key: string; value: unknown; partitionKey?: string }> {
    const wrap = <T>(
      r: ValidationResult<T>,
      key: (v: T) => string,
      partitionKey?: (v: T) => string | null,
    ): ValidationResult<{ key: string; value: unknown; partitionKey?: string }> => {
      if (!r.ok) return r;
      const partition = partitionKey?.(r.value);
      return {
        ok: true,
        value: { key: key(r.value), value: r.value, ...(partition ? { partitionKey: partition } : {}) },
        warnings: r.warnings,
      };
    };
    switch (kind) {
      case 'orders':
        // An order that names its browser client goes to that client's partition, with the client's events: the
        // daemon's two batches in flight then do not both link the order's keys (docs/decisions.md, Ingestion).
        // Its versions stay ordered by updated_at wherever they land.
        return wrap(validateOrder(item), (o) => o.id, browserClientOfOrder);
      case 'products':
        return wrap(validateProduct(item), (p) => p.id);
      case 'customers':
        return wrap(validateCustomer(item), (c) => c.id);
      case 'ad-spend':
        return wrap(validateAdSpendRow(item), (row) => {
          // A row without updated_at is versioned by the time we accepted it.
          row.updated_at ??= new Date(receivedAt).toISOString();
          return [row.date, row.platform, row.account_id, row.campaign_id, row.adset_id, row.ad_id].join('|');
        });
    }
  }

  private async publishAll(
    store: StoreRecord,
    kind: string,
    valid: Publishable[],
    rejected: RejectedItem[],
    warnings: number,
    receivedAt: number,
    batch: boolean,
    paced = true,
  ): Promise<IngestResult> {
    this.deps.metrics.eventsReceived.inc({ kind, result: 'rejected' }, rejected.length);
    if (valid.length === 0) throw new ApiError(400, summarize(rejected, batch));
    // The whole request goes to one lane: the live partitions, or their overflow twins while the store is over its
    // live rate (docs/decisions.md, Ingestion).
    const route = this.deps.liveRate?.route(store.store_id, valid.length, paced) ?? { lane: 'live', delayMs: 0 };
    if (route.lane === 'refused') {
      this.deps.metrics.requestsPaced.inc({ result: 'refused' });
      throw new ApiError(429, `store: over its rate while other stores are sending; retry (event ids make it safe)`, {
        'Retry-After': String(Math.ceil(route.retryAfterMs / 1000)),
      });
    }
    if (route.delayMs > 0) {
      this.deps.metrics.requestsPaced.inc({ result: 'held' });
      await new Promise((resolve) => setTimeout(resolve, route.delayMs));
    }
    const overflow = route.lane === 'overflow';
    const messages = valid.map((v) => ({
      subject: eventSubject(v.partition, store.store_id, v.name, overflow),
      payload: v.payload,
      msgId: v.msgId,
    }));
    let duplicates = 0;
    try {
      const acks = await this.deps.publisher.publishAll(messages, receivedAt);
      duplicates = acks.filter((a) => a.duplicate).length;
    } catch (err) {
      this.deps.logger.error({ err }, 'publish to JetStream failed');
      throw new ApiError(503, 'stream: unavailable; retry the request (event ids make retries safe)', {
        'Retry-After': '1',
      });
    }
    this.deps.metrics.eventsReceived.inc({ kind, result: 'accepted' }, valid.length - duplicates);
    this.deps.metrics.eventsReceived.inc({ kind, result: 'duplicate' }, duplicates);
    if (overflow) this.deps.metrics.eventsOverflowed.inc({ kind }, valid.length);
    return { accepted: valid.length, duplicates, rejected, warnings };
  }
}
