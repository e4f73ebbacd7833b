/**
 * The webhook delivery worker: for each WebhookDelivery message of the shared `webhook-worker` consumer, one
 * POST (signed for a `webhook` destination, Klaviyo's Create Event for a `klaviyo` one); then ack (2xx), disable
 * the destination and dead-letter (410), nak with the jittered backoff (other failures), or dead-letter once the
 * schedule is exhausted, or at once when Klaviyo refuses the request itself (its other 4xx answers). The attempt
 * number is the message's delivery count, so retries survive a crash of the worker: JetStream keeps the message
 * and its count.
 *
 * `createDeliveryHandler` holds the decisions over injected ports (unit-tested with fakes);
 * `runDeliveryLoop` runs handlers concurrently over a consumer's messages, bounded, with a drain.
 */
import { setMaxListeners } from 'node:events';
import type { JsMsg } from '@nats-io/jetstream';
import { retryDelayMs, type BackoffPolicy } from './backoff';
import { hostOf, statusClass, type AttemptResult, type PostWebhookOptions, type StatusClass } from './deliver';
import { decodeDelivery, parseWebhookSubject } from './delivery-message';
import { isAdPlatformDestination, type DeliveryDestination, type NewDeadLetter } from './destination-repo';
import type { AdDeliveryHandler } from './conversions/ad-delivery';
import { deliveryRequest } from './destination-request';
import { isFinalKlaviyoRejection } from './klaviyo';

/** What the handler needs of a JetStream message. */
export interface DeliveryMsg {
  subject: string;
  seq: number;
  data: Uint8Array;
  /** 1 on the first delivery; JetStream counts naks, ack-wait expiries and crashes alike. */
  deliveryCount: number;
  /** The Nats-Msg-Id header, when present. */
  msgId: string | null;
  ack(): void;
  nak(delayMs?: number): void;
  working(): void;
}

export function fromJsMsg(m: JsMsg): DeliveryMsg {
  return {
    subject: m.subject,
    seq: m.seq,
    data: m.data,
    deliveryCount: m.info.deliveryCount,
    msgId: m.headers?.get('Nats-Msg-Id') || null,
    ack: () => m.ack(),
    nak: (delayMs) => m.nak(delayMs),
    working: () => m.working(),
  };
}

export interface DeliveryPorts {
  loadDestination: (storeId: string, destinationId: string) => Promise<DeliveryDestination | null>;
  disableDestination: (storeId: string, destinationId: string, reason: string) => Promise<void>;
  deadLetter: (dl: NewDeadLetter) => Promise<number>;
  post: (opts: PostWebhookOptions) => Promise<AttemptResult>;
  now: () => number;
  /** Uniform in [0, 1). */
  random: () => number;
  /** Delivers purchases to the ad platforms' destinations (`conversions/ad-delivery.ts`). */
  adDelivery?: AdDeliveryHandler;
}

export interface DeliverySettings {
  timeoutMs: number;
  backoff: BackoffPolicy;
  userAgent: string;
  /** Interval of `working()` while a message is handled (half the consumer's ack_wait). */
  workingEveryMs: number;
  /** Redelivery delay after internal trouble (PostgreSQL unreachable, ...). */
  requeueDelayMs: number;
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'dead_letter' | 'disabled' | 'requeued';

/** One HTTP attempt, for the log and the metrics (never the secret, never the body). */
export interface AttemptRecord {
  storeId: string;
  destinationId: string;
  webhookId: string;
  eventName: string;
  attempt: number;
  host: string;
  status: number | null;
  statusClass: StatusClass;
  latencyMs: number;
  outcome: DeliveryOutcome;
  error?: string;
  /** Delay of the next attempt, when one is scheduled. */
  retryInMs?: number;
}

export interface HandledRecord {
  outcome: DeliveryOutcome;
  seq: number;
  storeId?: string;
  destinationId?: string;
  webhookId?: string;
  attempt: number;
  reason?: string;
  err?: unknown;
  /** ms from enqueueing to this outcome. */
  lagMs?: number;
}

export interface DeliveryObserver {
  attempt(rec: AttemptRecord): void;
  handled(rec: HandledRecord): void;
}

export function createDeliveryHandler(ports: DeliveryPorts, settings: DeliverySettings, observer: DeliveryObserver) {
  const deadLetterAndAck = async (
    msg: DeliveryMsg,
    dl: NewDeadLetter,
    outcome: 'dead_letter' | 'disabled',
  ): Promise<DeliveryOutcome> => {
    await ports.deadLetter(dl);
    msg.ack();
    return outcome;
  };

  async function handle(msg: DeliveryMsg, signal?: AbortSignal): Promise<DeliveryOutcome> {
    const attempt = Math.max(1, msg.deliveryCount);
    const decoded = decodeDelivery(msg.data);
    if (!decoded.ok) {
      const where = parseWebhookSubject(msg.subject);
      const outcome = await deadLetterAndAck(
        msg,
        {
          storeId: where?.storeId ?? '',
          destinationId: where?.destinationId ?? '',
          webhookId: msg.msgId ?? `seq-${msg.seq}`,
          eventName: '',
          body: Buffer.from(msg.data).toString('utf8'),
          attempts: 0,
          lastStatus: null,
          lastError: `undecodable delivery message: ${decoded.error}`,
        },
        'dead_letter',
      );
      observer.handled({ outcome, seq: msg.seq, attempt, reason: decoded.error, ...where });
      return outcome;
    }
    const d = decoded.delivery;
    const ids = { storeId: d.storeId, destinationId: d.destinationId, webhookId: d.webhookId };
    const dlBase = { ...ids, eventName: d.name, body: d.body };

    // Refused before any attempt: dead-lettered with the reason, attempts as counted so far.
    const refuse = async (reason: string): Promise<DeliveryOutcome> => {
      const outcome = await deadLetterAndAck(
        msg,
        { ...dlBase, attempts: attempt - 1, lastStatus: null, lastError: reason },
        'dead_letter',
      );
      observer.handled({ outcome, seq: msg.seq, attempt, reason, ...ids });
      return outcome;
    };

    const destination = await ports.loadDestination(d.storeId, d.destinationId);
    if (!destination) return refuse('destination removed');
    if (!destination.enabled) {
      return refuse(`destination disabled${destination.disabledReason ? `: ${destination.disabledReason}` : ''}`);
    }
    if (isAdPlatformDestination(destination)) {
      return ports.adDelivery
        ? ports.adDelivery(msg, d, destination, signal)
        : refuse('this worker does not deliver to ad platforms');
    }
    const request = deliveryRequest(destination, d, ports.now(), settings.userAgent);
    if (!request.ok) return refuse(request.error);
    const started = ports.now();
    const result = await ports.post({
      url: request.url,
      body: request.body,
      headers: request.headers,
      timeoutMs: settings.timeoutMs,
      signal,
    });
    const latencyMs = ports.now() - started;
    const record = (outcome: DeliveryOutcome, extra: Partial<AttemptRecord> = {}): void =>
      observer.attempt({
        ...ids,
        eventName: d.name,
        attempt,
        host: hostOf(destination.url),
        status: result.status,
        statusClass: statusClass(result),
        latencyMs,
        outcome,
        ...(result.kind === 'delivered' ? {} : { error: result.error }),
        ...extra,
      });

    switch (result.kind) {
      case 'delivered': {
        msg.ack();
        record('delivered');
        observer.handled({ outcome: 'delivered', seq: msg.seq, attempt, lagMs: ports.now() - d.enqueuedAt, ...ids });
        return 'delivered';
      }
      case 'gone': {
        const reason = `receiver answered 410 Gone at ${new Date(ports.now()).toISOString()} (webhook-id ${d.webhookId})`;
        await ports.disableDestination(d.storeId, d.destinationId, reason);
        const outcome = await deadLetterAndAck(
          msg,
          {
            ...dlBase,
            attempts: attempt,
            lastStatus: result.status,
            lastError: `${result.error}; destination disabled`,
          },
          'disabled',
        );
        record(outcome);
        observer.handled({ outcome, seq: msg.seq, attempt, reason, ...ids });
        return outcome;
      }
      case 'failed': {
        if (result.reason === 'aborted') {
          // Shutdown cut the attempt short: hand the message back at once, to this worker's successor or a peer.
          msg.nak();
          record('requeued');
          observer.handled({ outcome: 'requeued', seq: msg.seq, attempt, reason: 'shutdown', ...ids });
          return 'requeued';
        }
        if (destination.kind === 'klaviyo' && result.status !== null && isFinalKlaviyoRejection(result.status)) {
          // Klaviyo refused the request itself (its body or its key): sending it again as is cannot succeed.
          const outcome = await deadLetterAndAck(
            msg,
            {
              ...dlBase,
              attempts: attempt,
              lastStatus: result.status,
              lastError: `${result.error}; refused by Klaviyo, not retried`,
            },
            'dead_letter',
          );
          record(outcome);
          observer.handled({ outcome, seq: msg.seq, attempt, reason: 'refused by Klaviyo', ...ids });
          return outcome;
        }
        const delay = retryDelayMs(attempt, settings.backoff, ports.random, result.retryAfterMs);
        if (delay === null) {
          const outcome = await deadLetterAndAck(
            msg,
            { ...dlBase, attempts: attempt, lastStatus: result.status, lastError: result.error },
            'dead_letter',
          );
          record(outcome);
          observer.handled({ outcome, seq: msg.seq, attempt, reason: 'retries exhausted', ...ids });
          return outcome;
        }
        msg.nak(delay);
        record('retry', { retryInMs: delay });
        observer.handled({ outcome: 'retry', seq: msg.seq, attempt, ...ids });
        return 'retry';
      }
    }
  }

  /** Handles one message; never throws: internal trouble naks it for a later redelivery. */
  return async function handleDelivery(msg: DeliveryMsg, signal?: AbortSignal): Promise<DeliveryOutcome> {
    const keepAlive = setInterval(() => msg.working(), settings.workingEveryMs);
    try {
      return await handle(msg, signal);
    } catch (err) {
      msg.nak(settings.requeueDelayMs);
      observer.handled({
        outcome: 'requeued',
        seq: msg.seq,
        attempt: msg.deliveryCount,
        reason: 'internal error',
        err,
      });
      return 'requeued';
    } finally {
      clearInterval(keepAlive);
    }
  };
}

export type DeliveryHandler = ReturnType<typeof createDeliveryHandler>;

// ---------------------------------------------------------------------------------------------------------------
// Destination cache
// ---------------------------------------------------------------------------------------------------------------

export interface DestinationCache {
  get: (storeId: string, destinationId: string) => Promise<DeliveryDestination | null>;
  invalidate: (storeId: string, destinationId: string) => void;
}

/** Caches lookups (misses included) for `ttlMs`; concurrent lookups of one key share a query. */
export function createDestinationCache(
  load: (storeId: string, destinationId: string) => Promise<DeliveryDestination | null>,
  ttlMs: number,
  now: () => number,
): DestinationCache {
  const entries = new Map<string, { at: number; value: Promise<DeliveryDestination | null> }>();
  const key = (s: string, d: string): string => `${s}\u0000${d}`;
  return {
    get(storeId, destinationId) {
      const k = key(storeId, destinationId);
      const hit = entries.get(k);
      if (hit && now() - hit.at < ttlMs) return hit.value;
      const value = load(storeId, destinationId);
      entries.set(k, { at: now(), value });
      // A failed lookup is not cached.
      value.catch(() => {
        if (entries.get(k)?.value === value) entries.delete(k);
      });
      if (entries.size > 10_000) {
        for (const [k2, e] of entries) if (now() - e.at >= ttlMs) entries.delete(k2);
      }
      return value;
    },
    invalidate(storeId, destinationId) {
      entries.delete(key(storeId, destinationId));
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Concurrent loop with drain
// ---------------------------------------------------------------------------------------------------------------

export interface MessageStream<M> extends AsyncIterable<M> {
  /** Stops pulling; messages already pulled are still yielded, then the iteration ends. */
  close(): Promise<void | Error>;
}

export interface DeliveryLoop {
  /** Resolves when the source has ended and every handler finished; rejects when the source fails. */
  done: Promise<void>;
  /**
   * Drains: stop pulling, hand back (nak) messages pulled but not started, wait up to `timeoutMs` for the
   * attempts in flight, then abort what is left (those are nak'ed by their handler). Idempotent.
   */
  stop(timeoutMs: number): Promise<void>;
  inFlight(): number;
  isRunning(): boolean;
}

export interface LoopOptions<M> {
  /** Handlers running at once. */
  concurrency: number;
  /** Hands a message back without handling it (draining). */
  release(m: M): void;
  onError?(err: unknown): void;
}

/**
 * Runs `handle` on each message without waiting for it (one slow receiver blocks nobody), up to `concurrency`
 * at once: at the limit the loop stops reading the source, and nats.js issues its next pull only when the
 * loop reads on, so the worker holds at most `concurrency` + the consumer's `max_messages` messages.
 */
export function runDeliveryLoop<M>(
  source: MessageStream<M>,
  handle: (m: M, signal: AbortSignal) => Promise<unknown>,
  opts: LoopOptions<M>,
): DeliveryLoop {
  const inFlight = new Set<Promise<void>>();
  const abort = new AbortController();
  // Every attempt in flight listens on this one signal.
  setMaxListeners(opts.concurrency + 10, abort.signal);
  let draining = false;
  let running = true;
  let wake: (() => void) | null = null;
  const wakeUp = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };

  const loop = (async () => {
    try {
      for await (const m of source) {
        if (draining) {
          opts.release(m);
          continue;
        }
        const p: Promise<void> = handle(m, abort.signal)
          .then(
            () => undefined,
            (err: unknown) => opts.onError?.(err),
          )
          .finally(() => {
            inFlight.delete(p);
            wakeUp();
          });
        inFlight.add(p);
        while (inFlight.size >= opts.concurrency && !draining) {
          await new Promise<void>((resolve) => (wake = resolve));
        }
      }
    } finally {
      running = false;
    }
  })();

  const done = loop.then(async () => {
    await Promise.allSettled([...inFlight]);
  });

  let stopping: Promise<void> | null = null;
  return {
    done,
    inFlight: () => inFlight.size,
    isRunning: () => running && !draining,
    stop(timeoutMs) {
      stopping ??= (async () => {
        draining = true;
        wakeUp();
        void source.close().catch(() => undefined);
        // No handler starts once draining: after the loop ends, the set only shrinks.
        const finished = await Promise.race([
          loop
            .then(
              () => Promise.allSettled([...inFlight]),
              () => Promise.allSettled([...inFlight]),
            )
            .then(() => true),
          sleep(timeoutMs).then(() => false),
        ]);
        if (!finished) {
          abort.abort();
          await Promise.race([Promise.allSettled([...inFlight]), sleep(2000)]);
        }
      })();
      return stopping;
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
