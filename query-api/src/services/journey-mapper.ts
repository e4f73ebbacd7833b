/**
 * Maps a stored event and its session to the order journey's event item (spec "Event item", docs/product.md, API conventions):
 * a session's landing event gets the touch type (`ad`, `email`, `social_media`, `organic_search`,
 * `referral`, `direct`) with the matching object filled; every other event gets its kind name and the kind
 * object that matches it. Pure: the caller supplies the rows and the store's time zone.
 */
import { type EventKindData, kindObjectsOf } from '../../../contracts/src/event-shown';
import type { AdInfo, EventItem } from '../../../contracts/src/reports';
import { localDateTime } from '../../../contracts/src/time';

/** The session an event belongs to, as stored by the pipeline. */
export interface JourneySession {
  startedAt: number;
  landingEventId: string;
  origin: string;
  channel: string;
  source: string;
  medium: string;
  campaign: string;
  platform: string;
  content: string;
  term: string;
  linkCode: string;
  /** Referrer of the landing event. */
  referrer: string;
}

export interface JourneyEvent {
  eventId: string;
  name: string;
  at: number;
  pageUrl: string;
  referrer: string;
  pageTitle: string;
  clientIp: string;
  userAgent: string;
  /** The event's kind and data as the facts keep them (`contracts/src/event-shown.ts`), null for other kinds. */
  kindData: EventKindData | null;
}

export interface JourneyLookups {
  timezone: string;
  /** Ad account/campaign/ad set/ad of a paid touch, from the store's ad spend rows. */
  adOf: (platform: string, campaign: string) => Omit<AdInfo, 'ad_platform' | 'keyword'> | undefined;
  /** Creator and short link of a tracking-link code. */
  linkOf: (code: string) => { creator: string; tracking_link: string } | undefined;
}

const PAID_CHANNELS = new Set([
  'paid_search',
  'paid_social',
  'paid_shopping',
  'paid_video',
  'paid_other',
  'display',
  'cross_network',
]);

/** The touch type of a session's landing event (docs/product.md, API conventions). */
export function touchType(
  s: JourneySession,
): 'ad' | 'email' | 'social_media' | 'organic_search' | 'referral' | 'direct' {
  if (PAID_CHANNELS.has(s.channel)) return 'ad';
  if (s.channel === 'email') return 'email';
  if (s.channel === 'organic_social') return 'social_media';
  if (s.channel === 'organic_search') return 'organic_search';
  if (s.channel === 'direct') return 'direct';
  return 'referral';
}

export function toEventItem(e: JourneyEvent, session: JourneySession | null, look: JourneyLookups): EventItem {
  const landing = session !== null && session.landingEventId === e.eventId;
  const type = landing ? touchType(session) : e.name;
  const item: EventItem = {
    event_id: e.eventId,
    event_at: localDateTime(e.at, look.timezone),
    event_page_url: e.pageUrl,
    event_page_title: e.pageTitle,
    event_page_referrer: e.referrer,
    event_page_ip: e.clientIp,
    event_page_user_agent: e.userAgent,
    event_campaign: session?.campaign ?? '',
    event_source: session?.source ?? '',
    event_medium: session?.medium ?? '',
    event_type: type,
    creator: null,
    ad: null,
    email: null,
    social_media: null,
    organic_search: null,
    ...kindObjectsOf(e.kindData),
  };
  if (!landing || !session) return item;
  if (session.linkCode) {
    const link = look.linkOf(session.linkCode);
    if (link && link.creator)
      item.creator = { creator: link.creator, code: session.linkCode, tracking_link: link.tracking_link };
  }
  switch (type) {
    case 'ad': {
      const known = look.adOf(session.platform, session.campaign);
      item.ad = {
        account_id: known?.account_id ?? '',
        account_name: known?.account_name ?? '',
        campaign_id: known?.campaign_id ?? '',
        campaign_name: known?.campaign_name ?? session.campaign,
        set_id: known?.set_id ?? '',
        set_name: known?.set_name ?? '',
        ad_id: known?.ad_id ?? '',
        ad_name: known?.ad_name ?? session.content,
        ad_platform: session.platform,
        keyword: session.term,
      };
      break;
    }
    case 'email':
      item.email = { source: session.source, campaign: session.campaign, content: session.content, term: session.term };
      break;
    case 'social_media':
      item.social_media = { network: session.source, referrer: session.referrer, campaign: session.campaign };
      break;
    case 'organic_search':
      item.organic_search = { engine: session.source, referrer: session.referrer, keyword: session.term };
      break;
    default:
      break;
  }
  return item;
}
