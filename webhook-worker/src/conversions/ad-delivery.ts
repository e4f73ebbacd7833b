/**
 * Delivery of queued purchases to the ad platforms' conversion APIs (docs/product.md, Conversions to the ad
 * platforms). Each delivery message holds one purchase; the purchases of one destination are gathered into
 * batches (`ad-batcher.ts`), sent in one request, and each message is then settled by its own purchase's verdict:
 * taken -> ack; refused (Google's `partialFailureError` by index, or a batch refused as a whole and sent again one
 * purchase at a time) -> dead letter; rate limit or outage -> nak with the jittered backoff, never before the
 * platform's Retry-After; an invalid credential -> dead letter, and the destination shows as failing. The event id
 * the platform sees is the order id inside the purchase, so a retry or a redelivery carries the same one.
 */
import { z } from 'zod';
import type { QueuedPurchase } from '../../../contracts/src/ad-conversions';
import type { WebhookDelivery } from '../../../contracts/src/webhook-delivery';
import { retryDelayMs, type BackoffPolicy } from '../backoff';
import { hostOf, statusClassOf, type StatusClass } from '../deliver';
import type { AdPlatformDeliveryDestination, NewDeadLetter } from '../destination-repo';
import type { DeliveryMsg, DeliveryObserver, DeliveryOutcome } from '../delivery-worker';
import type { AdPostResult } from './ad-http';
import { createBatcher } from './ad-batcher';
import { adPlatformRequest, judgeAdAnswer, MAX_BATCH, type AdAuth, type AdRequest } from './ad-requests';
import type { AdPlatformEndpoints } from '../../../contracts/src/ad-platform-endpoints';
import type { AdDestinationSettings } from './destination-settings';
import { googleCanTake, googleClickConversion } from './google-ads';
import type { GoogleOAuthClient, TokenResult } from './google-token';

const clickIds = z.object({
  fbc: z.string().nullable(),
  google: z.object({ kind: z.enum(['gclid', 'gbraid', 'wbraid']), value: z.string() }).nullable(),
  ttclid: z.string().nullable(),
});

/** A queued purchase as the pipeline wrote it (untrusted bytes from the stream). */
export const queuedPurchaseSchema = z.object({
  orderId: z.string().min(1).max(256),
  occurredAt: z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'must be an ISO 8601 time'),
  value: z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string'),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code'),
  lines: z.array(z.object({ productId: z.string(), variantId: z.string(), quantity: z.number(), price: z.string() })),
  pageUrl: z.string(),
  email: z.string(),
  phone: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  clientIp: z.string(),
  userAgent: z.string(),
  fbp: z.string(),
  clickIds,
}) satisfies z.ZodType<QueuedPurchase>;

export function decodeQueuedPurchase(
  body: string,
): { ok: true; purchase: QueuedPurchase } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, error: 'the queued purchase is not JSON' };
  }
  const parsed = queuedPurchaseSchema.safeParse(json);
  if (parsed.success) return { ok: true, purchase: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    error: `the queued purchase is invalid: ${issue ? `${issue.path.join('.')}: ${issue.message}` : '?'}`,
  };
}

export interface AdDeliveryPorts {
  deadLetter: (dl: NewDeadLetter) => Promise<number>;
  post: (request: AdRequest, signal?: AbortSignal) => Promise<AdPostResult>;
  googleToken: (client: GoogleOAuthClient) => Promise<TokenResult>;
  forgetGoogleToken: (connectionId: string) => void;
  now: () => number;
  random: () => number;
}

export interface AdDeliverySettings {
  endpoints: AdPlatformEndpoints;
  /** How long a batch waits for more purchases after its first. */
  lingerMs: number;
  /** Purchases per request at most (below each platform's own limit). */
  maxBatch: number;
  backoff: BackoffPolicy;
  userAgent: string;
}

/** One request to a platform, for the metrics and the log (never a token, never user data). */
export interface AdBatchRecord {
  storeId: string;
  destinationId: string;
  kind: AdDestinationSettings['kind'];
  size: number;
  status: number | null;
  statusClass: StatusClass;
  latencyMs: number;
  verdict: 'answered' | 'retry' | 'refused' | 'auth' | 'failed';
  refused: number;
  error?: string;
  notes: string[];
}

export interface AdDeliveryObserver extends DeliveryObserver {
  adBatch(rec: AdBatchRecord): void;
  adPurchase(rec: { storeId: string; destinationId: string; kind: string; outcome: DeliveryOutcome }): void;
}

type ItemResult =
  | { kind: 'delivered'; status: number }
  | { kind: 'refused'; status: number | null; error: string }
  | { kind: 'retry'; status: number | null; error: string; retryAfterMs: number | null }
  | { kind: 'aborted' };

interface Item {
  purchase: QueuedPurchase;
  destination: AdPlatformDeliveryDestination;
  settings: AdDestinationSettings;
  signal?: AbortSignal;
}

/** Sends to a batch refused as a whole one purchase at a time, this many at once. */
const SINGLES_AT_ONCE = 8;

export function createAdDeliveryHandler(
  ports: AdDeliveryPorts,
  settings: AdDeliverySettings,
  observer: AdDeliveryObserver,
) {
  async function authFor(
    d: AdPlatformDeliveryDestination,
  ): Promise<{ ok: true; auth: AdAuth } | { ok: false; result: ItemResult }> {
    if (!d.credential.ok) {
      return {
        ok: false,
        result: { kind: 'refused', status: null, error: `cannot authenticate: ${d.credential.error}` },
      };
    }
    const c = d.credential.value;
    if (c.kind === 'token') return { ok: true, auth: c };
    const token = await ports.googleToken(c);
    if (!token.ok) {
      return {
        ok: false,
        result: token.final
          ? { kind: 'refused', status: null, error: token.error }
          : { kind: 'retry', status: null, error: token.error, retryAfterMs: token.retryAfterMs },
      };
    }
    return {
      ok: true,
      auth: {
        kind: 'google',
        accessToken: token.accessToken,
        developerToken: c.developerToken,
        loginCustomerId: c.loginCustomerId,
      },
    };
  }

  async function sendBatch(items: Item[]): Promise<ItemResult[]> {
    const first = items[0]!;
    const { destination, settings: dest } = first;
    const record = (r: Omit<AdBatchRecord, 'storeId' | 'destinationId' | 'kind' | 'size'>): void =>
      observer.adBatch({
        storeId: destination.storeId,
        destinationId: destination.destinationId,
        kind: dest.kind,
        size: items.length,
        ...r,
      });
    const auth = await authFor(destination);
    if (!auth.ok) {
      record({
        status: null,
        statusClass: 'other',
        latencyMs: 0,
        verdict: 'auth',
        refused: items.length,
        error: 'error' in auth.result ? auth.result.error : '',
        notes: [],
      });
      return items.map(() => auth.result);
    }
    const request = adPlatformRequest(
      dest,
      items.map((i) => i.purchase),
      auth.auth,
      settings.endpoints,
      settings.userAgent,
    );
    const started = ports.now();
    const result = await ports.post(request, first.signal);
    const latencyMs = ports.now() - started;
    if (result.kind === 'failed') {
      record({
        status: null,
        statusClass: statusClassOf(null, result.reason),
        latencyMs,
        verdict: 'failed',
        refused: 0,
        error: result.error,
        notes: [],
      });
      return items.map((): ItemResult =>
        result.reason === 'aborted'
          ? { kind: 'aborted' }
          : { kind: 'retry', status: null, error: result.error, retryAfterMs: null },
      );
    }
    const { status } = result.answer;
    const verdict = judgeAdAnswer(dest.kind, result.answer, items.length);
    const base = { status, statusClass: statusClassOf(status), latencyMs };
    switch (verdict.kind) {
      case 'answered': {
        const refused = verdict.verdicts.filter((v) => !v.ok).length;
        record({ ...base, verdict: 'answered', refused, notes: verdict.notes });
        return verdict.verdicts.map((v): ItemResult =>
          v.ok ? { kind: 'delivered', status } : { kind: 'refused', status, error: v.error },
        );
      }
      case 'retry':
        record({ ...base, verdict: 'retry', refused: 0, error: verdict.error, notes: [] });
        return items.map(() => ({ kind: 'retry', status, error: verdict.error, retryAfterMs: verdict.retryAfterMs }));
      case 'auth':
        record({ ...base, verdict: 'auth', refused: items.length, error: verdict.error, notes: [] });
        if (destination.credential.ok && destination.credential.value.kind === 'google') {
          ports.forgetGoogleToken(destination.credential.value.connectionId);
        }
        return items.map(() => ({ kind: 'refused', status, error: `credential refused: ${verdict.error}` }));
      case 'refused': {
        record({ ...base, verdict: 'refused', refused: items.length === 1 ? 1 : 0, error: verdict.error, notes: [] });
        if (items.length === 1) return [{ kind: 'refused', status, error: verdict.error }];
        // One faulty purchase must not take the others with it: each is sent again alone.
        const out: ItemResult[] = [];
        for (let i = 0; i < items.length; i += SINGLES_AT_ONCE) {
          const group = items.slice(i, i + SINGLES_AT_ONCE);
          const results = await Promise.all(group.map((item) => sendBatch([item])));
          out.push(...results.map((r) => r[0]!));
        }
        return out;
      }
    }
  }

  const batcher = createBatcher<Item, ItemResult>({
    lingerMs: settings.lingerMs,
    maxSize: (_key, first) => Math.min(settings.maxBatch, MAX_BATCH[first.settings.kind]),
    flush: (_key, items) => sendBatch(items),
  });

  /** Settles one message: its purchase goes out in its destination's next batch. Throws only on internal trouble. */
  return async function handleAdDelivery(
    msg: DeliveryMsg,
    delivery: WebhookDelivery,
    destination: AdPlatformDeliveryDestination,
    signal?: AbortSignal,
  ): Promise<DeliveryOutcome> {
    const attempt = Math.max(1, msg.deliveryCount);
    const ids = { storeId: delivery.storeId, destinationId: delivery.destinationId, webhookId: delivery.webhookId };
    const dlBase = { ...ids, eventName: delivery.name, body: delivery.body };
    const finish = (outcome: DeliveryOutcome, more: { reason?: string; lagMs?: number } = {}): DeliveryOutcome => {
      observer.adPurchase({ storeId: ids.storeId, destinationId: ids.destinationId, kind: destination.kind, outcome });
      observer.handled({ outcome, seq: msg.seq, attempt, ...more, ...ids });
      return outcome;
    };
    const deadLetter = async (
      attempts: number,
      lastStatus: number | null,
      lastError: string,
    ): Promise<DeliveryOutcome> => {
      await ports.deadLetter({ ...dlBase, attempts, lastStatus, lastError });
      msg.ack();
      return finish('dead_letter', { reason: lastError });
    };

    const decoded = decodeQueuedPurchase(delivery.body);
    if (!decoded.ok) return deadLetter(attempt - 1, null, decoded.error);
    if (!destination.settings.ok) return deadLetter(attempt - 1, null, `cannot send: ${destination.settings.error}`);
    const dest = destination.settings.value;
    if (dest.kind === 'google_ads' && !googleCanTake(googleClickConversion(decoded.purchase, dest.conversionAction))) {
      return deadLetter(
        attempt - 1,
        null,
        'Google cannot take it: no click id, and no email or phone to identify the buyer by',
      );
    }

    const started = ports.now();
    const result = await batcher.add(destination.destinationId, {
      purchase: decoded.purchase,
      destination,
      settings: dest,
      signal,
    });
    const note = (outcome: DeliveryOutcome, status: number | null, error?: string, retryInMs?: number): void =>
      observer.attempt({
        ...ids,
        eventName: delivery.name,
        attempt,
        host: hostOf(destination.url),
        status,
        statusClass: statusClassOf(status, result.kind === 'aborted' ? 'aborted' : undefined),
        latencyMs: ports.now() - started,
        outcome,
        ...(error ? { error } : {}),
        ...(retryInMs !== undefined ? { retryInMs } : {}),
      });
    switch (result.kind) {
      case 'delivered':
        msg.ack();
        note('delivered', result.status);
        return finish('delivered', { lagMs: ports.now() - delivery.enqueuedAt });
      case 'aborted':
        msg.nak();
        note('requeued', null, 'aborted (shutdown)');
        return finish('requeued', { reason: 'shutdown' });
      case 'refused':
        note('dead_letter', result.status, result.error);
        return deadLetter(attempt, result.status, result.error);
      case 'retry': {
        const delay = retryDelayMs(attempt, settings.backoff, ports.random, result.retryAfterMs);
        if (delay === null) {
          note('dead_letter', result.status, result.error);
          return deadLetter(attempt, result.status, `${result.error} (retries exhausted)`);
        }
        msg.nak(delay);
        note('retry', result.status, result.error, delay);
        return finish('retry');
      }
    }
  };
}

export type AdDeliveryHandler = ReturnType<typeof createAdDeliveryHandler>;
