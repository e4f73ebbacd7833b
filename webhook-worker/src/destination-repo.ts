/**
 * Webhook destinations and dead letters in PostgreSQL (infra/migrations/0005_webhooks.sql,
 * 0008_klaviyo_destinations.sql, 0024_ad_conversion_destinations.sql). The one place that reads a signing secret,
 * a sealed Klaviyo key or an ad platform's token is `getDestinationForDelivery`; listings never select them.
 */
import type { IdentityEventName } from '../../contracts/src/identity-events';
import { PURCHASE_DELIVERY_NAME } from '../../contracts/src/ad-conversions';
import { adConnectionSecrets, listAdConnections } from '../../storage/ad-connections';
import type { Db } from '../../storage/db';
import { isAdPlatformKind, newDestinationId, type AdPlatformKind, type DestinationKind } from './destination-rules';
import type { SecretBox } from '../../storage/secret-box';
import { generateSecret } from './sign';
import {
  parseStoredAdSettings,
  type AdDestinationSettings,
  type NewAdDestination,
} from './conversions/destination-settings';

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

/** The credential an ad platform's request is made with. */
export type AdCredential =
  | { kind: 'token'; token: string }
  | {
      kind: 'google';
      /** The store's Google Ads connection whose OAuth client and refresh token are used. */
      connectionId: string;
      developerToken: string;
      clientId: string;
      clientSecret: string;
      refreshToken: string;
      loginCustomerId: string | null;
    };

/** What the delivery worker needs of an ad platform's destination: its settings and credential, or why not. */
export interface AdPlatformDeliveryDestination extends DeliveryDestinationBase {
  kind: AdPlatformKind;
  settings: { ok: true; value: AdDestinationSettings } | { ok: false; error: string };
  credential: { ok: true; value: AdCredential } | { ok: false; error: string };
}

export type DeliveryDestination =
  WebhookDeliveryDestination | KlaviyoDeliveryDestination | AdPlatformDeliveryDestination;

export const isAdPlatformDestination = (d: DeliveryDestination): d is AdPlatformDeliveryDestination =>
  d.kind !== undefined && isAdPlatformKind(d.kind);

/** The platform's endpoint shown by listings (requests go to the worker's configured base URLs). */
function displayUrl(settings: AdDestinationSettings): string {
  switch (settings.kind) {
    case 'meta_capi':
      return `https://graph.facebook.com/${settings.pixelId}/events`;
    case 'google_ads':
      return `https://googleads.googleapis.com/customers/${settings.customerId}:uploadClickConversions`;
    case 'tiktok_events':
      return 'https://business-api.tiktok.com/open_api/v1.3/event/track/';
  }
}

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

/**
 * A destination of an ad platform's conversion API. Meta's and TikTok's access tokens are stored sealed by `box`
 * and never returned; a Google Ads destination uses the store's Google Ads connection's credentials.
 */
export async function createAdPlatformDestination(
  db: Db,
  box: SecretBox,
  storeId: string,
  input: NewAdDestination,
): Promise<WebhookDestination> {
  const destinationId = newDestinationId();
  const sealed = input.accessToken === null ? null : box.seal(input.accessToken, apiKeyContext(storeId, destinationId));
  const [row] = await db.query<WebhookDestination>(
    'webhook.destination.insert_ad_platform',
    `insert into webhook_destinations (store_id, destination_id, kind, url, api_key_sealed, settings, events)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7::text[]) returning ${PUBLIC_COLUMNS}`,
    [
      storeId,
      destinationId,
      input.settings.kind,
      displayUrl(input.settings),
      sealed,
      JSON.stringify(input.settings),
      [PURCHASE_DELIVERY_NAME],
    ],
  );
  return row!;
}

/** The settings (never a token) of a store's ad platform destinations, for listings. */
export async function adDestinationSettings(db: Db, storeId: string): Promise<Map<string, AdDestinationSettings>> {
  const rows = await db.query<{ destination_id: string; kind: DestinationKind; settings: unknown }>(
    'webhook.destination.ad_settings',
    'select destination_id, kind, settings from webhook_destinations where store_id = $1 and settings is not null',
    [storeId],
  );
  const out = new Map<string, AdDestinationSettings>();
  for (const r of rows) {
    const parsed = isAdPlatformKind(r.kind) ? parseStoredAdSettings(r.kind, r.settings) : null;
    if (parsed) out.set(r.destination_id, parsed);
  }
  return out;
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
    settings: unknown;
    enabled: boolean;
    disabled_reason: string | null;
  }>(
    'webhook.destination.for_delivery',
    `select kind, url, secret, api_key_sealed, settings, enabled, disabled_reason from webhook_destinations
     where store_id = $1 and destination_id = $2`,
    [storeId, destinationId],
  );
  const row = rows[0];
  if (!row) return null;
  const base = { storeId, destinationId, url: row.url, enabled: row.enabled, disabledReason: row.disabled_reason };
  if (isAdPlatformKind(row.kind)) {
    const settings = parseStoredAdSettings(row.kind, row.settings);
    if (!settings) {
      const error = 'the stored settings are incomplete';
      return { ...base, kind: row.kind, settings: { ok: false, error }, credential: { ok: false, error } };
    }
    const credential: AdPlatformDeliveryDestination['credential'] =
      settings.kind === 'google_ads'
        ? await googleCredential(db, box, storeId, settings.customerId)
        : tokenCredential(openApiKey(box, row.api_key_sealed, storeId, destinationId));
    return { ...base, kind: row.kind, settings: { ok: true, value: settings }, credential };
  }
  if (row.kind === 'klaviyo') {
    return { ...base, kind: 'klaviyo', apiKey: openApiKey(box, row.api_key_sealed, storeId, destinationId) };
  }
  return { ...base, secrets: row.secret === null ? [] : [row.secret] };
}

function tokenCredential(key: KlaviyoDeliveryDestination['apiKey']): AdPlatformDeliveryDestination['credential'] {
  return key.ok ? { ok: true, value: { kind: 'token', token: key.value } } : key;
}

/**
 * The OAuth client, refresh token and developer token of the store's Google Ads connection (`connection add
 * google`): the one of the destination's customer, else the store's only one, since a manager account's
 * connection can upload for the accounts it manages.
 */
async function googleCredential(
  db: Db,
  box: SecretBox | null,
  storeId: string,
  customerId: string,
): Promise<AdPlatformDeliveryDestination['credential']> {
  if (box === null)
    return { ok: false, error: 'SECRETS_KEY is not configured, so the Google connection cannot be read' };
  const google = (await listAdConnections(db, storeId)).filter((c) => c.kind === 'google');
  const connection = google.find((c) => c.accountId === customerId) ?? (google.length === 1 ? google[0] : undefined);
  if (!connection) {
    return {
      ok: false,
      error:
        google.length === 0
          ? 'the store has no Google Ads connection (npm run store -- connection add google ...)'
          : `none of the store's Google Ads connections is for customer ${customerId}`,
    };
  }
  try {
    const s = await adConnectionSecrets(db, box, connection.id);
    return {
      ok: true,
      value: {
        kind: 'google',
        connectionId: connection.id,
        developerToken: s.developerToken ?? '',
        clientId: s.clientId ?? '',
        clientSecret: s.clientSecret ?? '',
        refreshToken: s.refreshToken ?? '',
        loginCustomerId: s.loginCustomer ? s.loginCustomer.replace(/-/g, '') : null,
      },
    };
  } catch (err) {
    return { ok: false, error: `the Google connection's credentials do not open: ${(err as Error).message}` };
  }
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
  /** The destination's kind (null when it was removed): an ad platform's purchases go back to their own subject. */
  destinationKind: DestinationKind | null;
}

export async function deadLettersToRedrive(db: Db, f: DeadLetterFilter): Promise<RedriveCandidate[]> {
  const rows = await db.query<{
    id: string;
    destination_id: string;
    webhook_id: string;
    event_name: string;
    body: string;
    enabled: boolean | null;
    kind: DestinationKind | null;
  }>(
    'webhook.dead_letter.to_redrive',
    `select l.id, l.destination_id, l.webhook_id, l.event_name, l.body, d.enabled, d.kind
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
    destinationKind: r.kind,
  }));
}

export async function markRedriven(db: Db, id: number): Promise<void> {
  await db.query(
    'webhook.dead_letter.mark_redriven',
    'update webhook_dead_letters set redriven_at = now() where id = $1 and redriven_at is null',
    [id],
  );
}
