/**
 * The ad platforms' click ids of a person's journey, for the conversions sent back to them: the latest of each
 * kind on a landing page at or before the conversion, within the platform's window. Pure.
 *
 * - Meta: `fbclid`, sent as `fbc` = `fb.1.<ms of the landing>.<fbclid>` (the `_fbc` cookie's format: subdomain
 *   index 1, the time the click id was first seen, the id as it came).
 * - Google: `gclid`, else the iOS app-campaign ids `gbraid` or `wbraid` (Google takes exactly one of them).
 * - TikTok: `ttclid`.
 */
import type { AdClickIds } from '../../../contracts/src/ad-conversions';

/** A landing page of the person's sessions: when, and its URL as the tracker saw it. */
export interface Landing {
  at: number;
  url: string;
}

const DAY = 86_400_000;
/** How long after a click each platform still attributes a conversion to it (their click-through windows). */
export const CLICK_WINDOW_MS = { meta: 28 * DAY, google: 90 * DAY, tiktok: 28 * DAY } as const;

/** Click ids are opaque tokens: anything else in their place (a tracker bug, a crafted URL) is not sent on. */
const CLICK_ID = /^[\w.~-]{1,500}$/;

function paramsOf(url: string): URLSearchParams | null {
  try {
    return new URL(url).searchParams;
  } catch {
    return null;
  }
}

const valid = (v: string | null): string | null => (v !== null && CLICK_ID.test(v) ? v : null);

/** The click ids to send with a conversion at `conversionAt`, from the person's landings (any order). */
export function adClickIdsOf(landings: readonly Landing[], conversionAt: number): AdClickIds {
  const out: AdClickIds = { fbc: null, google: null, ttclid: null };
  const latestFirst = landings.filter((l) => l.at <= conversionAt).sort((a, b) => b.at - a.at);
  for (const { at, url } of latestFirst) {
    const params = paramsOf(url);
    if (!params) continue;
    const age = conversionAt - at;
    if (out.fbc === null && age <= CLICK_WINDOW_MS.meta) {
      const fbclid = valid(params.get('fbclid'));
      if (fbclid) out.fbc = `fb.1.${at}.${fbclid}`;
    }
    if (out.google === null && age <= CLICK_WINDOW_MS.google) {
      for (const kind of ['gclid', 'gbraid', 'wbraid'] as const) {
        const value = valid(params.get(kind));
        if (value) {
          out.google = { kind, value };
          break;
        }
      }
    }
    if (out.ttclid === null && age <= CLICK_WINDOW_MS.tiktok) out.ttclid = valid(params.get('ttclid'));
  }
  return out;
}
