/**
 * The event summary of a landing page (docs/product.md, Analytics): over the sessions that landed on the
 * page (or on any page under a prefix) in [start_date, end_date), the distinct visitors, the sessions, and
 * per event kind the events and the distinct persons who sent one. Read from the per-person daily rows
 * (web_person_days), which keep the events of each person's sessions by kind.
 */
import { STOREFRONT_EVENT_NAMES } from '../../../contracts/src/events';
import type { LandingPageSummary, LandingPageSummaryRequest } from '../../../contracts/src/analytics';
import type { Db } from '../../../storage/db';
import type { StoreRecord } from '../../../storage/store-registry';
import { badRequest } from '../app/errors';
import { validateRange } from './report.service';
import { ratio } from './analytics-lists';

const FILTERS = ['channel', 'source', 'medium', 'campaign'] as const;
const MAX_FIELD = 2048;

/** `landing_page` as an exact path or a prefix (trailing `*`), for a LIKE pattern. */
export function landingPattern(landingPage: unknown): { exact: string | null; prefix: string | null } {
  if (typeof landingPage !== 'string' || !landingPage.trim())
    throw badRequest('landing_page', 'must be a non-empty path');
  const lp = landingPage.trim();
  if (lp.length > MAX_FIELD) throw badRequest('landing_page', `must be at most ${MAX_FIELD} characters`);
  if (!lp.startsWith('/'))
    throw badRequest('landing_page', 'must be a path starting with "/" (a trailing * matches a prefix)');
  const star = lp.indexOf('*');
  if (star >= 0 && star !== lp.length - 1) throw badRequest('landing_page', 'may hold "*" only at its end');
  if (star < 0) return { exact: lp, prefix: null };
  return { exact: null, prefix: lp.slice(0, -1).replace(/[\\%_]/g, (c) => `\\${c}`) + '%' };
}

export class LandingPageService {
  constructor(private readonly db: Db) {}

  async summary(store: StoreRecord, req: LandingPageSummaryRequest): Promise<LandingPageSummary> {
    validateRange(req.start_date, req.end_date);
    const { exact, prefix } = landingPattern(req.landing_page);
    const filters = req.dimensions ?? {};
    if (typeof filters !== 'object' || Array.isArray(filters))
      throw badRequest('dimensions', 'must be an object of channel, source, medium, campaign');
    for (const k of Object.keys(filters)) {
      if (!(FILTERS as readonly string[]).includes(k))
        throw badRequest(`dimensions.${k}`, `is not a filter; use ${FILTERS.join(', ')}`);
      const v = (filters as Record<string, unknown>)[k];
      if (typeof v !== 'string' || v.length > MAX_FIELD) throw badRequest(`dimensions.${k}`, 'must be a string');
    }
    const f = filters as Record<(typeof FILTERS)[number], string | undefined>;
    const kinds = STOREFRONT_EVENT_NAMES.map(
      (_, i) =>
        `count(distinct person_id) filter (where event_counts[${i + 1}] > 0) as u${i}, coalesce(sum(event_counts[${i + 1}]), 0) as c${i}`,
    );
    const [row] = await this.db.query<Record<string, string>>(
      'landing.summary',
      `select count(distinct person_id) as visitors, coalesce(sum(sessions), 0) as sessions, ${kinds.join(', ')}
       from web_person_days
       where store_id = $1 and day >= $2::date and day < $3::date
         and ($4::text is null or landing_page = $4) and ($5::text is null or landing_page like $5)
         and ($6::text is null or channel = $6) and ($7::text is null or source = $7)
         and ($8::text is null or medium = $8) and ($9::text is null or campaign = $9)`,
      [
        store.store_id,
        req.start_date,
        req.end_date,
        exact,
        prefix,
        f.channel ?? null,
        f.source ?? null,
        f.medium ?? null,
        f.campaign ?? null,
      ],
    );
    const visitors = Number(row?.visitors ?? 0);
    return {
      landing_page: req.landing_page.trim(),
      visitors,
      sessions: Number(row?.sessions ?? 0),
      events: STOREFRONT_EVENT_NAMES.map((event, i) => {
        const users = Number(row?.[`u${i}`] ?? 0);
        return { event, users, count: Number(row?.[`c${i}`] ?? 0), rate: ratio(users, visitors) };
      }),
    };
  }
}
