/**
 * Webhook destinations and dead letters in PostgreSQL (infra/migrations/0005_webhooks.sql,
 * 0008_klaviyo_destinations.sql). The one place that reads a signing secret or a sealed Klaviyo key is
 * `getDestinationForDelivery`; listings never select them.
 */
import type { IdentityEventName } from '../../contracts/src/identity-events';
import type { Db } from '../../storage/db';
import { newDestinationId, type DestinationKind } from './destination-rules';
import type { SecretBox } from '../../storage/secret-box';
import { generateSecret } from './sign';

export interface WebhookDestination {
  store_id: string;
  destination_id: string;
  kind: DestinationKind;
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

interface DeliveryDestinationBase {
  storeId: string;
  destinationId: string;
  url: string;
  enabled: boolean;
  disabledReason: string | null;
}

/** What the delivery worker needs of a `webhook` destination, secret included. */
export interface WebhookDeliveryDestination extends DeliveryDestinationBase {
  kind?: 'webhook';
  /** Signing secrets, newest first (one today; several would sign a rotation window). */
  secrets: string[];
}

/** What the delivery worker needs of a `klaviyo` destination: its private key, or why it cannot be read. */
export interface KlaviyoDeliveryDestination extends DeliveryDestinationBase {
  kind: 'klaviyo';
  apiKey: { ok: true; value: string } | { ok: false; error: string };
}

export type DeliveryDestination = WebhookDeliveryDestination | KlaviyoDeliveryDestination;

const PUBLIC_COLUMNS = 'store_id, destination_id, kind, url, events, enabled, disabled_reason, created_at, updated_at';

/**
 * What a sealed Klaviyo key is bound to: a sealed value copied into another row does not open.
 */
export function apiKeyContext(storeId: string, destinationId: string): string {
  return `webhook_destinations/${storeId}/${destinationId}/api_key`;
}

export async function createDestination(
  db: Db,
  input: { storeId: string; url: string; events: readonly IdentityEventName[] },
): Promise<{ destination: WebhookDestination; secret: string }> {
  const secret = generateSecret();
  const [row] = await db.query<WebhookDestination>(
    'webhook.destination.insert',
    `insert into webhook_destinations (store_id, destination_id, url, secret, events)
     values ($1, $2, $3, $4, $5::text[]) returning ${PUBLIC_COLUMNS}`,
    [input.storeId, newDestinationId(), input.url, secret, input.events],
  );
  return { destination: row!, secret };
}

/** A `klaviyo` destination; the private key is stored sealed by `box` and never returned. */
export async function createKlaviyoDestination(
  db: Db,
  box: SecretBox,
  input: { storeId: string; url: string; events: readonly IdentityEventName[]; apiKey: string },
): Promise<WebhookDestination> {
  const destinationId = newDestinationId();
  const sealed = box.seal(input.apiKey, apiKeyContext(input.storeId, destinationId));
  const [row] = await db.query<WebhookDestination>(
    'webhook.destination.insert_klaviyo',
    `insert into webhook_destinations (store_id, destination_id, kind, url, api_key_sealed, events)
     values ($1, $2, 'klaviyo', $3, $4, $5::text[]) returning ${PUBLIC_COLUMNS}`,
    [input.storeId, destinationId, input.url, sealed, input.events],
  );
  return row!;
}

export function listDestinations(db: Db, storeId: string): Promise<WebhookDestination[]> {
  return db.query<WebhookDestination>(
    'webhook.destination.list',
    `select ${PUBLIC_COLUMNS} from webhook_destinations where store_id = $1 order by created_at, destination_id`,
    [storeId],
  );
}

export async function getDestination(
  db: Db,
  storeId: string,
  destinationId: string,
): Promise<WebhookDestination | null> {
  const rows = await db.query<WebhookDestination>(
    'webhook.destination.get',
    `select ${PUBLIC_COLUMNS} from webhook_destinations where store_id = $1 and destination_id = $2`,
    [storeId, destinationId],
  );
  return rows[0] ?? null;
}

/**
 * A destination with its credential, for one delivery. A Klaviyo key is opened with `box`; without a box
 * (SECRETS_KEY not configured) or when it does not open, the destination says why instead.
 */
export async function getDestinationForDelivery(
  db: Db,
  storeId: string,
  destinationId: string,
  box: SecretBox | null = null,
): Promise<DeliveryDestination | null> {
  const rows = await db.query<{
    kind: DestinationKind;
    url: string;
    secret: string | null;
    api_key_sealed: string | null;
    enabled: boolean;
    disabled_reason: string | null;
  }>(
    'webhook.destination.for_delivery',
    `select kind, url, secret, api_key_sealed, enabled, disabled_reason from webhook_destinations
     where store_id = $1 and destination_id = $2`,
    [storeId, destinationId],
  );
  const row = rows[0];
  if (!row) return null;
  const base = { storeId, destinationId, url: row.url, enabled: row.enabled, disabledReason: row.disabled_reason };
  if (row.kind === 'klaviyo') {
    return { ...base, kind: 'klaviyo', apiKey: openApiKey(box, row.api_key_sealed, storeId, destinationId) };
  }
  return { ...base, secrets: row.secret === null ? [] : [row.secret] };
}

function openApiKey(
  box: SecretBox | null,
  sealed: string | null,
  storeId: string,
  destinationId: string,
): KlaviyoDeliveryDestination['apiKey'] {
  if (box === null) return { ok: false, error: 'SECRETS_KEY is not configured, so the stored key cannot be read' };
  if (sealed === null) return { ok: false, error: 'no key is stored' };
  try {
    return { ok: true, value: box.open(sealed, apiKeyContext(storeId, destinationId)) };
  } catch (err) {
    return { ok: false, error: `the stored key does not open: ${(err as Error).message}` };
  }
}

/** Enables (clearing the reason) or disables a destination; false when there is no such destination. */
export async function setDestinationEnabled(
  db: Db,
  storeId: string,
  destinationId: string,
  enabled: boolean,
  reason: string | null,
): Promise<WebhookDestination | null> {
  const rows = await db.query<WebhookDestination>(
    'webhook.destination.set_enabled',
    `update webhook_destinations set enabled = $3, disabled_reason = $4, updated_at = now()
     where store_id = $1 and destination_id = $2 returning ${PUBLIC_COLUMNS}`,
    [storeId, destinationId, enabled, enabled ? null : reason],
  );
  return rows[0] ?? null;
}

export async function removeDestination(db: Db, storeId: string, destinationId: string): Promise<boolean> {
  const rows = await db.query(
    'webhook.destination.delete',
    'delete from webhook_destinations where store_id = $1 and destination_id = $2 returning 1',
    [storeId, destinationId],
  );
  return rows.length > 0;
}

/** Replaces the signing secret; returns the new one, or null when there is no such `webhook` destination. */
export async function rotateDestinationSecret(db: Db, storeId: string, destinationId: string): Promise<string | null> {
  const secret = generateSecret();
  const rows = await db.query(
    'webhook.destination.rotate',
    `update webhook_destinations set secret = $3, updated_at = now()
     where store_id = $1 and destination_id = $2 and kind = 'webhook' returning 1`,
    [storeId, destinationId, secret],
  );
  return rows.length ? secret : null;
}

/** Replaces the private key of a `klaviyo` destination; null when there is no such destination. */
export async function rotateKlaviyoApiKey(
  db: Db,
  box: SecretBox,
  storeId: string,
  destinationId: string,
  apiKey: string,
): Promise<WebhookDestination | null> {
  const rows = await db.query<WebhookDestination>(
    'webhook.destination.rotate_api_key',
    `update webhook_destinations set api_key_sealed = $3, updated_at = now()
     where store_id = $1 and destination_id = $2 and kind = 'klaviyo' returning ${PUBLIC_COLUMNS}`,
    [storeId, destinationId, box.seal(apiKey, apiKeyContext(storeId, destinationId))],
  );
  return rows[0] ?? null;
}

/**
 * Enabled `klaviyo` destinations of every store whose key `box` cannot open (null: SECRETS_KEY not configured):
 * the worker reports them at start, so a missing or changed SECRETS_KEY shows before deliveries fail.
 */
export async function unreadableKlaviyoKeys(
  db: Db,
  box: SecretBox | null,
): Promise<{ total: number; unreadable: Array<{ store_id: string; destination_id: string; error: string }> }> {
  const rows = await db.query<{ store_id: string; destination_id: string; api_key_sealed: string | null }>(
    'webhook.destination.klaviyo_keys',
    `select store_id, destination_id, api_key_sealed from webhook_destinations where kind = 'klaviyo' and enabled`,
  );
  const unreadable = rows.flatMap((r) => {
    const key = openApiKey(box, r.api_key_sealed, r.store_id, r.destination_id);
    return key.ok ? [] : [{ store_id: r.store_id, destination_id: r.destination_id, error: key.error }];
  });
  return { total: rows.length, unreadable };
}

// ---------------------------------------------------------------------------------------------------------------
// Dead letters
// ---------------------------------------------------------------------------------------------------------------

export interface NewDeadLetter {
  storeId: string;
  destinationId: string;
  webhookId: string;
  eventName: string;
  body: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string;
}

/**
 * Records a delivery that will not be retried. Idempotent: while a dead letter of the same delivery waits (not
 * redriven), a second one (a redelivery after a crash between insert and ack) is not added. Returns the id of
 * the dead letter, new or existing.
 */
export async function insertDeadLetter(db: Db, dl: NewDeadLetter): Promise<number> {
  const rows = await db.query<{ id: string }>(
    'webhook.dead_letter.insert',
    `with existing as (
       select id from webhook_dead_letters
       where store_id = $1 and destination_id = $2 and webhook_id = $3 and redriven_at is null
       limit 1
     ), inserted as (
       insert into webhook_dead_letters
         (store_id, destination_id, webhook_id, event_name, body, attempts, last_status, last_error)
       select $1, $2, $3, $4, $5, $6, $7, $8 where not exists (select 1 from existing)
       returning id
     )
     select id from inserted union all select id from existing`,
    [
      dl.storeId,
      dl.destinationId,
      dl.webhookId,
      dl.eventName,
      dl.body,
      dl.attempts,
      dl.lastStatus,
      dl.lastError.slice(0, 2000),
    ],
  );
  return Number(rows[0]?.id ?? 0);
}

export interface DeadLetterRow {
  id: number;
  destination: string;
  webhook_id: string;
  event_name: string;
  attempts: number;
  last_status: number | null;
  last_error: string;
  created_at: Date;
  redriven_at: Date | null;
}

export interface DeadLetterFilter {
  storeId: string;
  destinationId?: string;
  id?: number;
  /** Include dead letters already redriven. */
  includeRedriven?: boolean;
}

export async function listDeadLetters(db: Db, f: DeadLetterFilter): Promise<DeadLetterRow[]> {
  const rows = await db.query<Omit<DeadLetterRow, 'id'> & { id: string }>(
    'webhook.dead_letter.list',
    `select id, destination_id as destination, webhook_id, event_name, attempts, last_status, last_error,
            created_at, redriven_at
     from webhook_dead_letters
     where store_id = $1 and ($2::text is null or destination_id = $2) and ($3::bigint is null or id = $3)
       and ($4 or redriven_at is null)
     order by id`,
    [f.storeId, f.destinationId ?? null, f.id ?? null, f.includeRedriven ?? false],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

export interface RedriveCandidate {
  id: number;
  destinationId: string;
  webhookId: string;
  eventName: string;
  body: string;
  /** null when the destination was removed. */
  destinationEnabled: boolean | null;
}

export async function deadLettersToRedrive(db: Db, f: DeadLetterFilter): Promise<RedriveCandidate[]> {
  const rows = await db.query<{
    id: string;
    destination_id: string;
    webhook_id: string;
    event_name: string;
    body: string;
    enabled: boolean | null;
  }>(
    'webhook.dead_letter.to_redrive',
    `select l.id, l.destination_id, l.webhook_id, l.event_name, l.body, d.enabled
     from webhook_dead_letters l
     left join webhook_destinations d on d.store_id = l.store_id and d.destination_id = l.destination_id
     where l.store_id = $1 and ($2::text is null or l.destination_id = $2) and ($3::bigint is null or l.id = $3)
       and l.redriven_at is null
     order by l.id`,
    [f.storeId, f.destinationId ?? null, f.id ?? null],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    destinationId: r.destination_id,
    webhookId: r.webhook_id,
    eventName: r.event_name,
    body: r.body,
    destinationEnabled: r.enabled,
  }));
}

export async function markRedriven(db: Db, id: number): Promise<void> {
  await db.query(
    'webhook.dead_letter.mark_redriven',
    'update webhook_dead_letters set redriven_at = now() where id = $1 and redriven_at is null',
    [id],
  );
}
