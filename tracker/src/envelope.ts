/**
 * The event envelope the service ingests, with the page's context in the Shopify Web Pixels shape
 * (document, navigator, window). `clientIp` is left to the server, which takes it from the request.
 */
import { uuid } from './ids';
import { readCookie } from './storage';

export type EventData = Record<string, unknown>;

export interface TrackerEvent {
  id: string;
  clientId: string;
  name: string;
  seq: number;
  timestamp: string;
  type: 'standard';
  context: PageContext;
  data: EventData;
  /** Meta's browser id (the `_fbp` cookie of Meta's pixel), when the page has one. */
  fbp?: string;
}

/** A `_fbp` value as Meta's pixel writes it; anything else is left out (the API would refuse the event). */
const FBP = /^fb\.\d+\.\d+\.[A-Za-z0-9_-]+$/;

interface LocationSnapshot {
  hash: string;
  host: string;
  hostname: string;
  href: string;
  origin: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
}

export interface PageContext {
  document: { characterSet: string; location: LocationSnapshot; referrer: string; title: string };
  navigator: { cookieEnabled: boolean; language: string; languages: string[]; userAgent: string };
  window: {
    innerHeight: number;
    innerWidth: number;
    outerHeight: number;
    outerWidth: number;
    pageXOffset: number;
    pageYOffset: number;
    scrollX: number;
    scrollY: number;
    screenX: number;
    screenY: number;
    screen: { height: number; width: number };
    location: LocationSnapshot;
    origin: string;
  };
}

function snapshotLocation(l: Location): LocationSnapshot {
  return {
    hash: l.hash,
    host: l.host,
    hostname: l.hostname,
    href: l.href,
    origin: l.origin,
    pathname: l.pathname,
    port: l.port,
    protocol: l.protocol,
    search: l.search,
  };
}

/** The page as it is now; `referrer` is the page the visitor came from (the previous route in a single-page app). */
export function pageContext(referrer: string): PageContext {
  const w = window;
  const n = navigator;
  const location = snapshotLocation(w.location);
  return {
    document: { characterSet: document.characterSet, location, referrer, title: document.title },
    navigator: {
      cookieEnabled: n.cookieEnabled,
      language: n.language,
      languages: Array.prototype.slice.call(n.languages || []) as string[],
      userAgent: n.userAgent,
    },
    window: {
      innerHeight: w.innerHeight,
      innerWidth: w.innerWidth,
      outerHeight: w.outerHeight,
      outerWidth: w.outerWidth,
      pageXOffset: w.pageXOffset,
      pageYOffset: w.pageYOffset,
      scrollX: w.scrollX,
      scrollY: w.scrollY,
      screenX: w.screenX,
      screenY: w.screenY,
      screen: { height: w.screen.height, width: w.screen.width },
      location,
      origin: w.location.origin,
    },
  };
}

/** An event of this page, without its clientId yet (it is known only once consent is granted). */
export function newEvent(name: string, data: EventData, seq: number, referrer: string): TrackerEvent {
  const event: TrackerEvent = {
    id: uuid(),
    clientId: '',
    name,
    seq,
    timestamp: new Date().toISOString(),
    type: 'standard',
    context: pageContext(referrer),
    data,
  };
  // Read per event: Meta's pixel may write the cookie after the tracker started.
  const fbp = readCookie('_fbp');
  if (fbp && fbp.length <= 256 && FBP.test(fbp)) event.fbp = fbp;
  return event;
}
