/**
 * Sessionizer (docs/product.md, Sessions and touchpoints): per client, on event time. A session starts at the client's first event, after
 * more than 30 minutes without events, or at a page view whose landing parameters name a source other
 * than the current session's (a self-referral continues the session). Its touchpoint comes from its
 * first event's page URL and referrer. Input order does not matter: events are sorted first.
 */
import type { Touchpoint, TrackingLinkInfo } from './touchpoint-types';
import { deriveTouchpoint, landingSignal, sameSource } from './touchpoint';
import { parseLandingUrl } from './url-params';

export const SESSION_GAP_MS = 30 * 60 * 1000;

/**
 * Hosts that send buyers back to the store without being a marketing source (checkout and payment
 * pages). Like GA's referral exclusion list; extended per store by the hosts its own pages live on.
 */
export const REFERRAL_EXCLUSIONS: readonly string[] = [
  'checkout.shopify.com',
  'shop.app',
  'pay.shopify.com',
  'paypal.com',
  'checkout.stripe.com',
  'klarna.com',
  'checkout.klarna.com',
];

export interface SessionEvent {
  eventId: string;
  name: string;
  at: number;
  pageUrl: string;
  referrer: string;
}

export interface Session {
  clientId: string;
  startedAt: number;
  landingEventId: string;
  touch: Touchpoint;
}

export type ResolveLink = (code: string) => TrackingLinkInfo | undefined;

/** Events in processing order: time, then id (a deterministic tie-break). */
export function byTimeThenId(a: { at: number; eventId: string }, b: { at: number; eventId: string }): number {
  return a.at - b.at || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);
}

/** The store's own hosts as seen from a set of page URLs, plus the referral exclusions. */
export function ownHostsOf(pageUrls: Iterable<string>): string[] {
  const hosts = new Set<string>(REFERRAL_EXCLUSIONS);
  for (const url of pageUrls) {
    const host = parseLandingUrl(url)?.host;
    if (host) hosts.add(host);
  }
  return [...hosts];
}

export function sessionize(
  clientId: string,
  events: readonly SessionEvent[],
  ownHosts: readonly string[],
  resolveLink: ResolveLink,
): Session[] {
  const sorted = [...events].sort(byTimeThenId);
  const sessions: Session[] = [];
  let current: Session | null = null;
  let lastAt = -Infinity;
  for (const e of sorted) {
    const input = { pageUrl: e.pageUrl, referrer: e.referrer, ownHosts, resolveLink };
    let start = current === null || e.at - lastAt > SESSION_GAP_MS;
    let touch: Touchpoint | null = null;
    // Sessions are keyed by (client, start): a split needs a later instant than the current start.
    if (!start && current && e.name === 'page_viewed' && e.at > current.startedAt) {
      const signal = landingSignal(input);
      if (signal && !sameSource(signal, current.touch)) {
        start = true;
        touch = signal;
      }
    }
    if (start) {
      current = { clientId, startedAt: e.at, landingEventId: e.eventId, touch: touch ?? deriveTouchpoint(input) };
      sessions.push(current);
    }
    lastAt = e.at;
  }
  return sessions;
}
