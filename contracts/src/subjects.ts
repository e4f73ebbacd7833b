/**
 * Stream layout (docs/product.md, Ingestion). Events are published to `ev.<partition>.<storeId>.<name>`; the partition is a
 * stable hash of (storeId, clientId) so all events of one client land in one partition, in order.
 * Store pushes use the same stream, partitioned by their natural key (an order that names its browser client: by
 * that client), with names `push_<kind>`.
 *
 * Each partition has an overflow twin, `ev.o<partition>.<storeId>.<name>`: a store sending more than its live rate
 * is published there, so that its backlog does not queue ahead of the other stores' events (docs/decisions.md,
 * Ingestion, "A store over its live rate overflows"). The daemon that owns a partition consumes both, in the same
 * lane.
 */
export const EVENTS_STREAM = 'EVENTS';
export const EVENTS_SUBJECT_PREFIX = 'ev';
export const DEFAULT_PARTITIONS = 16;

/** Header carrying the time the API accepted the message (epoch ms), for freshness and latency figures. */
export const RECEIVED_AT_HEADER = 'Att-Received-At';

/**
 * Header by which the API says it validated the payload and published the validators' output; its value is
 * the validation version. The pipeline then checks only what it routes on, and validates in full what lacks
 * the stamp (replayed files, messages of an older version). Bump the version whenever a validator's output
 * changes or it refuses more, so that older messages are validated again (docs/decisions.md, Ingestion).
 * 2: times outside 1000-01-01..8999-12-31 UTC and offsets of 16 hours or more are refused.
 * 3: an `fbp` member that is not a `_fbp` cookie value is refused.
 */
export const VALIDATED_HEADER = 'Att-Validated';
export const VALIDATION_VERSION = '3';

/** Store push kinds as they appear in subjects. */
export const PUSH_SUBJECT_NAMES = {
  orders: 'push_order',
  products: 'push_product',
  customers: 'push_customer',
  'ad-spend': 'push_ad_spend',
} as const;

/**
 * The ad-spend rows of one (platform, account, day) as a pulled ad platform reports them, zeroed rows for what it
 * no longer reports included: published by the spend pull as one message, so the pipeline replaces the day in one
 * transaction (docs/decisions.md, Ad spend from the ad platforms). Body: `{"rows": [AdSpendRow, ...]}`.
 */
export const SPEND_DAY_SUBJECT_NAME = 'ad_spend_day';

/** A link click recorded by the short-link listener (docs/product.md, Tracking links). */
export const LINK_CLICK_SUBJECT_NAME = 'link_clicked';

/** Store ids are subject tokens: lower-case letters, digits and underscore only. */
export const STORE_ID_PATTERN = /^[a-z0-9_]{3,64}$/;

/** 32-bit FNV-1a over UTF-16 code units: small, stable across processes and versions. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export function partitionOf(storeId: string, key: string, partitions: number): number {
  return fnv1a32(`${storeId}\u0000${key}`) % partitions;
}

/** The partition's subject token: `7`, or `o7` for its overflow twin. */
export function partitionToken(partition: number, overflow = false): string {
  return overflow ? `o${partition}` : String(partition);
}

export function eventSubject(partition: number, storeId: string, name: string, overflow = false): string {
  return `${EVENTS_SUBJECT_PREFIX}.${partitionToken(partition, overflow)}.${storeId}.${name}`;
}

/** Parses `ev.<partition>.<storeId>.<name>` and `ev.o<partition>...`; null when the subject is of neither form. */
export function parseEventSubject(
  subject: string,
): { partition: number; overflow: boolean; storeId: string; name: string } | null {
  const parts = subject.split('.');
  if (parts.length !== 4 || parts[0] !== EVENTS_SUBJECT_PREFIX) return null;
  const token = parts[1] ?? '';
  const overflow = token.startsWith('o');
  const digits = overflow ? token.slice(1) : token;
  if (!/^\d+$/.test(digits)) return null;
  return { partition: Number(digits), overflow, storeId: parts[2] ?? '', name: parts[3] ?? '' };
}

/**
 * An id as it may go in a NATS header (`Nats-Msg-Id`): a control character such as a line feed would break the
 * message's headers, and the publish with them. Anything but printable ASCII, and `%` itself, is
 * percent-encoded, so ordinary ids are unchanged and two different ids never become one (docs/decisions.md,
 * Ingestion).
 */
export function headerSafe(id: string): string {
  return id.replace(/[^\x21-\x24\x26-\x7e]/gu, escapeForHeader);
}

/** UTF-8 percent-encoding; `%uXXXX` for an unpaired surrogate, which has no UTF-8 form (the API refuses those). */
function escapeForHeader(c: string): string {
  return c.length === 1 && c >= '\ud800' && c <= '\udfff' ? `%u${c.charCodeAt(0).toString(16)}` : encodeURIComponent(c);
}

/** JetStream de-duplication id: `<storeId>:<event id>` (docs/product.md, Ingestion), header-safe. */
export function eventMsgId(storeId: string, eventId: string): string {
  return `${storeId}:${headerSafe(eventId)}`;
}

/** Durable consumer name of one partition, or of its overflow twin. */
export function consumerName(partition: number, overflow = false): string {
  return `pipeline-${overflow ? 'o' : 'p'}${String(partition).padStart(2, '0')}`;
}

/** The consumers the daemon that owns these partitions reads, with their names: each partition's and its twin's. */
export function pipelineConsumers(
  partitions: readonly number[],
): Array<{ partition: number; overflow: boolean; name: string }> {
  return partitions.flatMap((partition) =>
    [false, true].map((overflow) => ({ partition, overflow, name: consumerName(partition, overflow) })),
  );
}
