/**
 * Receives a store platform's own order webhooks (docs/product.md, Store connections): the connection's
 * signature over the raw bytes first (constant time, before any parsing), then the pure mapper, then the order
 * push path (validate, publish to JetStream), all before the 200. Nothing is stored for a delivery that does
 * not verify.
 *
 * Refunds and deletions that arrive on their own are merged into the order they name: the latest order version
 * the connection published is kept (store_hook_orders), and every delivery of one order runs under one
 * transaction-scoped advisory lock, so a refund never races the order it amends (docs/decisions.md, Store
 * connections).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ShopOrder } from '../../../../contracts/src/pushes';
import { validateOrder } from '../../../../contracts/src/validation';
import type { Db, Query } from '../../../../storage/db';
import type { SecretBox } from '../../../../storage/secret-box';
import { getStore, type StoreRecord } from '../../../../storage/store-registry';
import { findConnectionForVerify, type VerifiableConnection } from '../../../../storage/store-connections';
import type { Logger } from '../../../../runtime/logger';
import { ApiError, badRequest } from '../../app/errors';
import type { IngestService } from '../ingest.service';
import { parseExactJson } from './exact-json';
import { mapShopifyWebhook } from './shopify-mapper';
import type { HookAction, JsonObject } from './types';
import { mapWooWebhook } from './woocommerce-mapper';
import type { PrivacyService } from '../privacy/privacy.service';

export type HookPlatform = 'shopify' | 'woocommerce';

/** What a receiver answers with a 200. */
export interface HookReceipt {
  topic: string;
  /** What the delivery did: an order version published, a privacy request recorded, ... */
  outcome: 'published' | 'unchanged' | 'recorded' | 'ignored' | 'duplicate' | 'ping';
}

/** Request headers, lower-cased names (as Node gives them). */
export type Headers = Record<string, string | string[] | undefined>;

const header = (h: Headers, name: string): string => {
  const v = h[name];
  return (Array.isArray(v) ? v[0] : v)?.trim() ?? '';
};

/** WooCommerce's creation ping: `webhook_id=<n>`, form-encoded and unsigned. */
const WOO_PING = /^webhook_id=\d+$/;

const SIGNATURE_HEADER: Record<HookPlatform, string> = {
  shopify: 'x-shopify-hmac-sha256',
  woocommerce: 'x-wc-webhook-signature',
};
const TOPIC_HEADER: Record<HookPlatform, string> = {
  shopify: 'x-shopify-topic',
  woocommerce: 'x-wc-webhook-topic',
};

/** True when `signature` (base64) is the HMAC-SHA256 of `body` under `secret`; constant time in the digest. */
export function signatureMatches(body: Buffer, secret: string, signature: string): boolean {
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(signature, 'base64');
  // Equal lengths for timingSafeEqual; a wrong length tells nothing about the secret.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const sha = (text: string): string => createHash('sha256').update(text).digest('base64url').slice(0, 32);

/**
 * The delivery's idempotency key: Shopify's webhook id (the same on every retry), else its event id and topic;
 * for WooCommerce, which has no delivery id stable across retries, the resource, topic, id and modification time.
 */
export function deliveryKey(platform: HookPlatform, headers: Headers, topic: string, body: unknown): string {
  if (platform === 'shopify') {
    const webhookId = header(headers, 'x-shopify-webhook-id');
    if (webhookId) return `wh:${webhookId}`;
    const eventId = header(headers, 'x-shopify-event-id');
    if (eventId) return `ev:${eventId}:${topic}`;
  }
  const b = (typeof body === 'object' && body !== null ? body : {}) as JsonObject;
  const id = typeof b.id === 'number' || typeof b.id === 'string' ? String(b.id) : '';
  const modified = [b.date_modified_gmt, b.updated_at].find((v): v is string => typeof v === 'string') ?? '';
  return `wc:${sha(`${header(headers, 'x-wc-webhook-resource')}|${topic}|${id}|${modified}`)}`;
}

/**
 * `iso`, or the stored version's time when that is later. Published at the same millisecond as the stored version,
 * a version replaces it: the facts break a tie of `updated_at` by the later publish (docs/decisions.md, Store
 * connections).
 */
const atLeast = (iso: string, stored: Date | null): string =>
  stored && Date.parse(iso) < stored.getTime() ? stored.toISOString() : iso;

/**
 * A time 1 ms after the stored version's when `iso` is not later. Deletions and restores toggle an order between
 * two contents that can repeat (delete, restore, delete again), and the stream drops a repeated message as a
 * duplicate; the step makes each toggle a distinct version.
 */
const later = (iso: string, after: Date | null): string =>
  after && Date.parse(iso) <= after.getTime() ? new Date(after.getTime() + 1).toISOString() : iso;

const refundIds = (order: JsonObject): Set<string> =>
  new Set((Array.isArray(order.refunds) ? order.refunds : []).map((r) => String((r as JsonObject).id)));

/** `order` with the `extra` refunds it does not list yet. */
function withRefunds(order: JsonObject, extra: readonly JsonObject[]): JsonObject {
  const have = refundIds(order);
  const missing = extra.filter((r) => !have.has(String(r.id)));
  if (missing.length === 0) return order;
  const listed: unknown[] = Array.isArray(order.refunds) ? (order.refunds as unknown[]) : [];
  return { ...order, refunds: [...listed, ...missing] };
}

interface HookOrderRow {
  updated_at: Date | null;
  deleted: boolean;
  payload: JsonObject | null;
  extra_refunds: JsonObject[];
}

export interface StoreHookServiceDeps {
  db: Db;
  box: SecretBox | null;
  ingest: IngestService;
  logger: Logger;
  now: () => number;
  connectionCacheMs: number;
  /** Records and starts what Shopify's privacy topics ask (docs/operations.md, Privacy). */
  privacy?: PrivacyService;
}

export class StoreHookService {
  private readonly cache = new Map<string, { at: number; connection: VerifiableConnection; store: StoreRecord }>();

  constructor(private readonly deps: StoreHookServiceDeps) {}

  /** The connection and its store; 404 when unknown or of another platform. */
  private async connectionOf(
    platform: HookPlatform,
    connectionId: string,
  ): Promise<{ connection: VerifiableConnection; store: StoreRecord }> {
    const now = this.deps.now();
    const cached = this.cache.get(connectionId);
    let found = cached && now - cached.at < this.deps.connectionCacheMs ? cached : null;
    if (!found) {
      if (!this.deps.box)
        throw new ApiError(503, 'service: SECRETS_KEY is not configured; store webhooks cannot be verified', {
          'Retry-After': '60',
        });
      let connection: VerifiableConnection | null;
      try {
        connection = /^sc_[a-z0-9]{1,64}$/.test(connectionId)
          ? await findConnectionForVerify(this.deps.db, this.deps.box, connectionId)
          : null;
      } catch (err) {
        if ((err as Error).name !== 'SealedValueError') throw err;
        this.deps.logger.error({ err, connectionId }, 'store connection secret does not open; re-add the connection');
        throw new ApiError(503, 'service: this connection cannot be verified right now', { 'Retry-After': '60' });
      }
      const store = connection ? await getStore(this.deps.db, connection.store_id) : null;
      if (!connection || !store) throw new ApiError(404, 'connection: unknown');
      found = { at: now, connection, store };
      if (this.deps.connectionCacheMs > 0) {
        if (this.cache.size > 10_000) this.cache.clear();
        this.cache.set(connectionId, found);
      }
    }
    if (found.connection.kind !== platform) throw new ApiError(404, 'connection: unknown');
    return found;
  }

  async receive(platform: HookPlatform, connectionId: string, headers: Headers, raw: Buffer): Promise<HookReceipt> {
    const { connection, store } = await this.connectionOf(platform, connectionId);
    const signatureHeader = SIGNATURE_HEADER[platform];
    const signature = header(headers, signatureHeader);
    if (platform === 'woocommerce' && !signature && raw.length < 64 && WOO_PING.test(raw.toString('latin1').trim())) {
      return { topic: 'ping', outcome: 'ping' };
    }
    if (!signature || !signatureMatches(raw, connection.secret, signature)) {
      throw new ApiError(401, `${headerName(signatureHeader)}: missing or not the signature of this body`);
    }
    if (platform === 'shopify') {
      const shop = header(headers, 'x-shopify-shop-domain').toLowerCase();
      if (shop !== connection.account)
        throw new ApiError(401, `X-Shopify-Shop-Domain: ${shop || '(missing)'} is not this connection's shop`);
    }
    const topic = header(headers, TOPIC_HEADER[platform]);
    if (!topic) throw badRequest(headerName(TOPIC_HEADER[platform]), 'is missing');
    const body = parseExactJson(raw.toString('utf8'));
    if (body instanceof Error) throw badRequest('body', `malformed JSON (${body.message})`);
    const action = platform === 'shopify' ? mapShopifyWebhook(topic, body) : mapWooWebhook(topic, body);
    if (action.kind === 'invalid') throw badRequest(action.field, action.message);
    const key = deliveryKey(platform, headers, topic, body);
    // Orders are validated before anything is stored: a bad one is a 400 naming the field.
    const order = action.kind === 'order' ? validOrder(action.order) : null;
    let privacyRequest: string | null = null;
    const receipt = await this.deps.db.transaction('store_hook.receive', async (tx) => {
      // A privacy request's body is not kept: the request holds what it needs, and only until it is done.
      const fresh = await tx<{ connection_id: string }>(
        'store_hook.delivery',
        `insert into store_hook_deliveries (connection_id, delivery_key, topic, payload) values ($1, $2, $3, null)
         on conflict do nothing returning connection_id`,
        [connection.connection_id, key, topic],
      );
      if (fresh.length === 0) return { topic, outcome: 'duplicate' as const };
      if (action.kind === 'privacy' && this.deps.privacy)
        privacyRequest = await this.deps.privacy.recordShopify(tx, store, connection.connection_id, action.request);
      const publish = await this.apply(tx, store, action, order);
      if (!publish) return { topic, outcome: action.kind === 'privacy' ? ('recorded' as const) : ('ignored' as const) };
      // Published inside the transaction: the delivery counts as received only once the stream has the order.
      const result = await this.deps.ingest.ingestPushes(store, 'orders', publish);
      return { topic, outcome: result.duplicates > 0 ? ('unchanged' as const) : ('published' as const) };
    });
    if (privacyRequest) this.deps.privacy?.start(privacyRequest);
    return receipt;
  }

  /** Updates the connection's order state for `action`; the order version to publish, if any. */
  private async apply(
    tx: Query,
    store: StoreRecord,
    action: HookAction,
    order: ShopOrder | null,
  ): Promise<JsonObject | null> {
    if (action.kind !== 'order' && action.kind !== 'refund' && action.kind !== 'delete') return null;
    const storeId = store.store_id;
    await tx('store_hook.lock', 'select pg_advisory_xact_lock(hashtextextended($1, 7))', [
      `${storeId}:${action.orderId}`,
    ]);
    const [row] = await tx<HookOrderRow>(
      'store_hook.order',
      'select updated_at, deleted, payload, extra_refunds from store_hook_orders where store_id = $1 and order_id = $2',
      [storeId, action.orderId],
    );
    const save = (next: {
      updatedAt: string | null;
      deleted: boolean;
      payload: JsonObject | null;
      extra: JsonObject[];
    }) =>
      tx(
        'store_hook.order_save',
        `insert into store_hook_orders (store_id, order_id, updated_at, deleted, payload, extra_refunds)
         values ($1, $2, $3, $4, $5, $6)
         on conflict (store_id, order_id) do update set updated_at = excluded.updated_at, deleted = excluded.deleted,
           payload = excluded.payload, extra_refunds = excluded.extra_refunds`,
        [storeId, action.orderId, next.updatedAt, next.deleted, next.payload, JSON.stringify(next.extra)],
      );
    const extra = row?.extra_refunds ?? [];
    switch (action.kind) {
      case 'order': {
        let merged = withRefunds(order as unknown as JsonObject, extra);
        // A restore follows the deletion it undoes, whatever the two clocks say.
        if (action.restored && row?.deleted)
          merged = { ...merged, updated_at: later(String(merged.updated_at), row.updated_at) };
        // As the facts decide: a later time wins, and so does the same millisecond published later (a deleted
        // order stays deleted until a later version or a restore).
        const at = Date.parse(String(merged.updated_at));
        const stored = row?.updated_at?.getTime();
        const newer = stored === undefined || at > stored || (at === stored && !row!.deleted);
        if (newer) await save({ updatedAt: String(merged.updated_at), deleted: false, payload: merged, extra });
        return merged;
      }
      case 'refund': {
        const refund = action.refund as JsonObject;
        const known = extra.some((r) => String(r.id) === String(refund.id));
        const nextExtra = known ? extra : [...extra, refund];
        const base = row?.payload ?? null;
        if (!base || refundIds(base).has(String(refund.id))) {
          if (!known)
            await save({
              updatedAt: row?.updated_at?.toISOString() ?? null,
              deleted: row?.deleted ?? false,
              payload: base,
              extra: nextExtra,
            });
          return null;
        }
        // The stored version with the refund, at the stored version's time: published after it, it replaces it.
        const merged = {
          ...withRefunds(base, [refund]),
          updated_at: atLeast(String(base.updated_at), row!.updated_at),
        };
        await save({ updatedAt: String(merged.updated_at), deleted: row!.deleted, payload: merged, extra: nextExtra });
        return merged;
      }
      case 'delete': {
        const base = row?.payload ?? (await storedOrder(tx, storeId, action.orderId));
        if (!base || row?.deleted) return null;
        const at = later(String(base.updated_at), row?.updated_at ?? new Date(Date.parse(String(base.updated_at))));
        const merged = { ...base, updated_at: at, cancelled_at: at };
        await save({ updatedAt: at, deleted: true, payload: merged, extra });
        return merged;
      }
    }
  }
}

/** The order as the pipeline stores it, for a deletion of an order this connection never published. */
async function storedOrder(tx: Query, storeId: string, orderId: string): Promise<JsonObject | null> {
  const [row] = await tx<{ payload: JsonObject }>(
    'store_hook.shop_order',
    'select payload from shop_orders where store_id = $1 and order_id = $2',
    [storeId, orderId],
  );
  return row?.payload ?? null;
}

function validOrder(order: JsonObject): ShopOrder {
  const r = validateOrder(order);
  if (!r.ok) {
    const first = r.errors[0];
    throw badRequest(first?.field ?? 'order', first?.message ?? 'is not a valid order');
  }
  return r.value;
}

/** `x-shopify-hmac-sha256` as documented: `X-Shopify-Hmac-Sha256`. */
function headerName(lower: string): string {
  return lower
    .split('-')
    .map((p) => (p === 'wc' ? 'WC' : p === 'hmac' ? 'Hmac' : p.charAt(0).toUpperCase() + p.slice(1)))
    .join('-');
}
