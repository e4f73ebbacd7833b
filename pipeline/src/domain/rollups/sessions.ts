/**
 * Sessions as the `sessions` view stores them, and the difference between the stored sessions of some clients
 * and their recomputation: only rows that differ are deleted and inserted. Pure.
 */
import { compositeKey } from '../composite-key';
import type { Session } from '../sessionize';

/** A session as stored, by column name; its start in epoch milliseconds. */
export interface StoredSession {
  client_id: string;
  started_at: number;
  landing_event_id: string;
  origin: string;
  channel: string;
  source: string;
  medium: string;
  campaign: string;
  landing_page: string;
  platform: string;
  content: string;
  term: string;
  link_code: string;
  click_id_param: string;
  campaign_id: string;
  ad_set_id: string;
  ad_id: string;
}

/** The stored row of a session (fields written out: the recomputation makes millions of them). */
export function storedSessionOf(s: Session): StoredSession {
  const t = s.touch;
  return {
    client_id: s.clientId,
    started_at: s.startedAt,
    landing_event_id: s.landingEventId,
    origin: t.origin,
    channel: t.channel,
    source: t.source,
    medium: t.medium,
    campaign: t.campaign,
    landing_page: t.landingPage,
    platform: t.platform,
    content: t.content,
    term: t.term,
    link_code: t.linkCode,
    click_id_param: t.clickIdParam,
    campaign_id: t.campaignId,
    ad_set_id: t.adSetId,
    ad_id: t.adId,
  };
}

/** Every field of a stored session, in one fixed order: equal signatures, equal rows. */
const signatureOf = (r: StoredSession): string =>
  JSON.stringify([
    r.client_id,
    r.started_at,
    r.landing_event_id,
    r.origin,
    r.channel,
    r.source,
    r.medium,
    r.campaign,
    r.landing_page,
    r.platform,
    r.content,
    r.term,
    r.link_code,
    r.click_id_param,
    r.campaign_id,
    r.ad_set_id,
    r.ad_id,
  ]);

/** A session's key within the store: its client and start. */
export const SESSION_KEY = compositeKey(['client_id', 'started_at']);

export interface SessionChanges {
  /** Stored rows that go (gone, or changed). */
  deleted: StoredSession[];
  /** Rows to insert (new, or changed). */
  inserted: StoredSession[];
}

/** What makes the stored sessions of some clients equal to `fresh`, their recomputed sessions. */
export function diffSessions(stored: readonly StoredSession[], fresh: readonly Session[]): SessionChanges {
  const oldSig = new Map<string, { row: StoredSession; sig: string }>();
  for (const r of stored) oldSig.set(SESSION_KEY.of(r), { row: r, sig: signatureOf(r) });
  const newSig = new Map<string, { row: StoredSession; sig: string }>();
  for (const s of fresh) {
    const row = storedSessionOf(s);
    newSig.set(SESSION_KEY.of(row), { row, sig: signatureOf(row) });
  }
  const deleted: StoredSession[] = [];
  for (const [k, o] of oldSig) if (newSig.get(k)?.sig !== o.sig) deleted.push(o.row);
  const inserted: StoredSession[] = [];
  for (const [k, n] of newSig) if (oldSig.get(k)?.sig !== n.sig) inserted.push(n.row);
  return { deleted, inserted };
}
