/**
 * The spend pull (docs/product.md, Ad spend from the ad platforms): for each ad connection of a store, the daily
 * ad-level rows of a window of days (90 on the first pull, then the trailing restatement window) are fetched
 * from the platform and published as one message per day (`ad_spend_day`), whose rows the pipeline applies like
 * pushed ad-spend rows, in one transaction: `ad_spend`, the rollups and the reports as for pushed spend.
 *
 * Replace-by-day (docs/decisions.md, Ad spend from the ad platforms): every row of a pull carries the same
 * `updated_at` (the pull's time), which supersedes the earlier versions of the same key; a stored row of a day
 * the pull covered that the platform no longer reports is retracted by a zeroed version of it. So a repeated or
 * overlapping pull never double-counts, and a failed pull publishes nothing: the previous rows stay.
 */
import { createHash } from 'node:crypto';
import type { AdSpendRow } from '../../../contracts/src/pushes';
import { eventSubject, partitionOf, SPEND_DAY_SUBJECT_NAME } from '../../../contracts/src/subjects';
import { dayInZone } from '../../../contracts/src/time';
import {
  adConnectionSecrets,
  listAdConnections,
  recordPullFailure,
  recordPullSuccess,
  type AdConnection,
  type Sealer,
} from '../../../storage/ad-connections';
import type { Db } from '../../../storage/db';
import { microsToDecimal } from '../domain/decimal-micros';
import type { AdPlatformClients } from '../adapters/ad-platforms/index';
import type { PublishSpend, SpendMessage } from '../adapters/spend-publisher';
import { AdPlatformError, SPEND_PLATFORM, type AdAccountCredentials, type AdRow } from '../adapters/ad-platforms/types';

export interface SpendPullDeps {
  db: Db;
  box: Sealer;
  clients: AdPlatformClients;
  publish: PublishSpend;
  partitions: number;
  now: () => number;
}

export interface SpendPullOptions {
  storeId?: string;
  /** Days to pull, ending today; default: the restatement window, or the backfill on a first pull. */
  days?: number;
  windowDays: number;
  backfillDays: number;
}

export interface ConnectionPull {
  id: string;
  kind: string;
  store_id: string;
  account_id: string;
  from: string;
  to: string;
  /** Rows published (without retractions); days with at least one row. */
  rows: number;
  days: number;
  retracted: number;
  error?: string;
}

const DAY_MS = 86_400_000;
const shiftDay = (day: string, n: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

export function credentialsOf(c: AdConnection, secrets: Record<string, string>): AdAccountCredentials {
  const s = (k: string): string => secrets[k] ?? '';
  switch (c.kind) {
    case 'meta':
      return { kind: 'meta', account: c.accountId, token: s('token') };
    case 'google':
      return {
        kind: 'google',
        customer: c.accountId,
        loginCustomer: secrets.loginCustomer,
        developerToken: s('developerToken'),
        clientId: s('clientId'),
        clientSecret: s('clientSecret'),
        refreshToken: s('refreshToken'),
      };
    case 'tiktok':
      return { kind: 'tiktok', advertiser: c.accountId, token: s('token') };
  }
}

/** The push row of a platform row: utm source is the platform, medium `cpc`, campaign the campaign name. */
export function spendRowOf(platform: string, r: AdRow, updatedAt: string): AdSpendRow {
  return {
    date: r.day,
    platform,
    account_id: r.accountId,
    campaign_id: r.campaignId,
    campaign_name: r.campaignName,
    adset_id: r.adsetId,
    adset_name: r.adsetName,
    ad_id: r.adId,
    ad_name: r.adName,
    source: platform,
    medium: 'cpc',
    campaign: r.campaignName,
    spend: Number(microsToDecimal(r.spendMicros)),
    impressions: r.impressions,
    clicks: r.clicks,
    conversion_value: Number(microsToDecimal(r.purchaseValueMicros)),
    currency: r.currency,
    updated_at: updatedAt,
  };
}

const keyOf = (
  r: Pick<AdSpendRow, 'date' | 'platform' | 'account_id' | 'campaign_id' | 'adset_id' | 'ad_id'>,
): string => [r.date, r.platform, r.account_id, r.campaign_id, r.adset_id, r.ad_id].join('|');

/**
 * At most this many rows in one day message (about 400 bytes each, under JetStream's 1 MB message limit): a day
 * of more ads spans several messages, each applied in its own transaction.
 */
export const MAX_DAY_ROWS = 1_000;

/**
 * The messages of `rows` (one platform account): one per day, so that the pipeline replaces a day in one
 * transaction, on a partition of its own per (platform, account, day), with a content-addressed id so that a
 * republished identical day is a duplicate.
 */
export function spendDayMessages(storeId: string, rows: readonly AdSpendRow[], partitions: number): SpendMessage[] {
  const byDay = new Map<string, AdSpendRow[]>();
  for (const r of rows) {
    const dayKey = [r.platform, r.account_id, r.date].join('|');
    const list = byDay.get(dayKey);
    if (list) list.push(r);
    else byDay.set(dayKey, [r]);
  }
  const out: SpendMessage[] = [];
  for (const [dayKey, dayRows] of byDay) {
    const subject = eventSubject(
      partitionOf(storeId, `ad-spend-day:${dayKey}`, partitions),
      storeId,
      SPEND_DAY_SUBJECT_NAME,
    );
    for (let i = 0; i < dayRows.length; i += MAX_DAY_ROWS) {
      const part = dayRows.slice(i, i + MAX_DAY_ROWS);
      const payload = JSON.stringify({ rows: part });
      const digest = createHash('sha256').update(payload).digest('base64url').slice(0, 22);
      out.push({ subject, payload, msgId: `${storeId}:ad-spend-day:${dayKey}:${digest}`, rows: part.length });
    }
  }
  return out;
}

/** Stored rows of the connection's account in [from, to] that the new pull does not carry, zeroed. */
async function retractions(
  db: Db,
  storeId: string,
  platform: string,
  accountId: string,
  from: string,
  to: string,
  kept: Set<string>,
  updatedAt: string,
): Promise<AdSpendRow[]> {
  const stored = await db.query<{ row: AdSpendRow; zero: boolean }>(
    'ad_spend_pull.stored',
    `select row, (spend_micros = 0 and impressions = 0 and clicks = 0 and conv_value_micros = 0) as zero
       from ad_spend where store_id = $1 and platform = $2 and account_id = $3 and day between $4::date and $5::date`,
    [storeId, platform, accountId, from, to],
  );
  return stored
    .filter((s) => !s.zero && !kept.has(keyOf(s.row)))
    .map((s) => ({ ...s.row, spend: 0, impressions: 0, clicks: 0, conversion_value: 0, updated_at: updatedAt }));
}

/**
 * Publishes `rows` (one platform account, all with the same `updated_at`) as the whole content of the days
 * [from, to]: stored rows of those days not among them are retracted (published zeroed).
 */
export async function replaceDays(
  deps: Pick<SpendPullDeps, 'db' | 'publish' | 'partitions'>,
  storeId: string,
  platform: string,
  accountId: string,
  rows: AdSpendRow[],
  from: string,
  to: string,
): Promise<{ rows: number; days: number; retracted: number }> {
  const updatedAt = rows[0]?.updated_at ?? new Date().toISOString();
  const zeroed = await retractions(
    deps.db,
    storeId,
    platform,
    accountId,
    from,
    to,
    new Set(rows.map(keyOf)),
    updatedAt,
  );
  await deps.publish(spendDayMessages(storeId, [...rows, ...zeroed], deps.partitions));
  return { rows: rows.length, days: new Set(rows.map((r) => r.date)).size, retracted: zeroed.length };
}

async function storeZone(db: Db, storeId: string): Promise<string> {
  const [row] = await db.query<{ timezone: string }>(
    'ad_spend_pull.zone',
    'select timezone from stores where store_id = $1',
    [storeId],
  );
  return row?.timezone ?? 'UTC';
}

export async function pullConnection(
  deps: SpendPullDeps,
  c: AdConnection,
  opts: SpendPullOptions,
): Promise<ConnectionPull> {
  const now = deps.now();
  const to = dayInZone(now, await storeZone(deps.db, c.storeId));
  const days = opts.days ?? (c.lastPullAt === null ? opts.backfillDays : opts.windowDays);
  const from = shiftDay(to, -(days - 1));
  const result: ConnectionPull = {
    id: c.id,
    kind: c.kind,
    store_id: c.storeId,
    account_id: c.accountId,
    from,
    to,
    rows: 0,
    days: 0,
    retracted: 0,
  };
  try {
    const secrets = await adConnectionSecrets(deps.db, deps.box, c.id);
    const rows = await deps.clients[c.kind].pullDailyAdRows(credentialsOf(c, secrets), from, to);
    const platform = SPEND_PLATFORM[c.kind];
    const updatedAt = new Date(now).toISOString();
    const fresh = rows.filter((r) => r.day >= from && r.day <= to).map((r) => spendRowOf(platform, r, updatedAt));
    const replaced = await replaceDays(deps, c.storeId, platform, c.accountId, fresh, from, to);
    result.rows = replaced.rows;
    result.days = replaced.days;
    result.retracted = replaced.retracted;
    await recordPullSuccess(deps.db, c.id, { rows: result.rows, days: result.days, fromDay: from, toDay: to });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    result.error = message;
    // A credential the platform refuses, or one SECRETS_KEY cannot open, needs a person: the connection fails.
    // Anything else (an outage, a publish that timed out) is tried again by the next run, status unchanged.
    const refused = (err instanceof AdPlatformError && err.auth) || (err as Error).name === 'SealedValueError';
    if (refused) await recordPullFailure(deps.db, c.id, message);
  }
  return result;
}

/** Pulls every connection (of one store, or all), one after the other; one failing does not stop the others. */
export async function pullAdSpend(deps: SpendPullDeps, opts: SpendPullOptions): Promise<ConnectionPull[]> {
  const out: ConnectionPull[] = [];
  for (const c of await listAdConnections(deps.db, opts.storeId)) out.push(await pullConnection(deps, c, opts));
  return out;
}
