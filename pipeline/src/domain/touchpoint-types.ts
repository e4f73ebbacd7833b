import type { Channel, Platform } from '../../../contracts/src/channels';

/** How a touchpoint was derived, in docs/product.md (Sessions and touchpoints)'s order of precedence. */
export type TouchpointOrigin = 'link' | 'utm' | 'click_id' | 'search' | 'social' | 'referral' | 'direct';

/** The marketing dimensions a touchpoint carries into the rollups. */
export interface TouchpointDims {
  channel: Channel;
  source: string;
  medium: string;
  campaign: string;
  /** Path of the landing URL, without query or fragment. */
  landingPage: string;
  platform: Platform;
}

/** A session's marketing touchpoint (docs/product.md, Sessions and touchpoints). */
export interface Touchpoint extends TouchpointDims {
  origin: TouchpointOrigin;
  /** `utm_content`, `utm_term`, `utm_id` when present, else "". */
  content: string;
  term: string;
  utmId: string;
  /** Tracking-link code from `ab_lnk`, else "". */
  linkCode: string;
  /** The click-id parameter name that was found (gclid, fbclid, ...), else "". */
  clickIdParam: string;
  /** Ad ids of the landing URL (docs/product.md, Ads attribution), else "". */
  campaignId: string;
  adSetId: string;
  adId: string;
}

/** What a tracking link (docs/product.md, Tracking links) says about its own campaign. */
export interface TrackingLinkInfo {
  campaign: string;
  source: string;
  medium: string;
}
