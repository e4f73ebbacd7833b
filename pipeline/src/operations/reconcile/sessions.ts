/** The sessions phase: a chunk's stored sessions against its recomputed ones, row by row. */
import type { Query } from '../../../../storage/db';
import type { PersonView } from '../../domain/recompute-person';
import type { ReportDrift } from './types';

/** The compared fields of a session (those its touchpoint is derived into). */
interface SessionFields {
  origin: string;
  source: string;
  medium: string;
  campaign: string;
  landing_page: string;
  campaign_id: string;
  ad_set_id: string;
  ad_id: string;
}

const keyOf = (clientId: string, startedAt: Date): string => `${clientId}@${startedAt.toISOString()}`;

export async function compareSessions(
  q: Query,
  storeId: string,
  clientIds: readonly string[],
  views: readonly PersonView[],
  report: ReportDrift,
): Promise<void> {
  const stored = await q<SessionFields & { client_id: string; started_at: Date }>(
    'reconcile.sessions',
    `select client_id, started_at, origin, source, medium, campaign, landing_page, campaign_id, ad_set_id, ad_id
     from sessions where store_id = $1 and client_id = any($2::text[])`,
    [storeId, clientIds],
  );
  const expected = new Map<string, SessionFields>();
  for (const v of views)
    for (const s of v.sessions)
      expected.set(keyOf(s.clientId, new Date(s.startedAt)), {
        origin: s.touch.origin,
        source: s.touch.source,
        medium: s.touch.medium,
        campaign: s.touch.campaign,
        landing_page: s.touch.landingPage,
        campaign_id: s.touch.campaignId,
        ad_set_id: s.touch.adSetId,
        ad_id: s.touch.adId,
      });
  for (const r of stored) {
    const key = keyOf(r.client_id, r.started_at);
    const exp = expected.get(key);
    const act: SessionFields = {
      origin: r.origin,
      source: r.source,
      medium: r.medium,
      campaign: r.campaign,
      landing_page: r.landing_page,
      campaign_id: r.campaign_id,
      ad_set_id: r.ad_set_id,
      ad_id: r.ad_id,
    };
    if (!exp || JSON.stringify(exp) !== JSON.stringify(act))
      report({ view: 'sessions', key, expected: exp ?? null, actual: act });
    expected.delete(key);
  }
  for (const [key, exp] of expected) report({ view: 'sessions', key, expected: exp, actual: null });
}
