/**
 * The tracker's state and commands: `init`, `consent`, `track`, `page`, `identify`, `getClientId`, `cart`.
 * Until consent is granted (when the store requires it) nothing is sent and nothing is stored: events wait
 * in memory and are dropped if consent is refused. A refusal is written on a Shopify cart (`_oa_consent`), and
 * nothing else: no clientId, no cookie, no event.
 */
import { newEvent, type EventData, type TrackerEvent } from './envelope';
import { fillClientIdInputs, writeShopifyCart } from './handoff';
import { onRouteChange } from './history';
import { uuid } from './ids';
import { safe } from './safe';
import { deleteSiteCookie, lsGet, lsSet, readCookie, setSiteCookie } from './storage';
import { Sender } from './transport';

export interface TrackerOptions {
  /** The store's ingest key. */
  key?: string;
  /** Base URL of the service (default: where t.js was loaded from). */
  endpoint?: string;
  /** Send nothing and store nothing until `oa('consent', true)`. */
  requireConsent?: boolean;
  /** `'shopify'`: write the clientId into the Shopify cart (attribute `_oa_client_id`), or a refusal (`_oa_consent`). */
  cart?: string;
  /** Automatic `page_viewed` on load and on route changes (default true). */
  autoPageViews?: boolean;
  /** Cookie domain, when the registrable domain is not the right one. */
  cookieDomain?: string;
}

const CLIENT_ID = '_oa_cid';
const QUEUE = '_oa_queue';
const TWO_YEARS_S = 2 * 365 * 24 * 60 * 60;
const MAX_HELD = 50;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export class Tracker {
  private opts: TrackerOptions = {};
  private url = '';
  private started = false;
  /** null: not decided yet. */
  private granted: boolean | null = null;
  private clientId: string | null = null;
  /** A refusal was written on the cart since consent was last granted on this page. */
  private refusedOnCart = false;
  private sender: Sender<TrackerEvent> | null = null;
  /** Events waiting for consent (memory only). */
  private held: TrackerEvent[] = [];
  /** Commands that came before `init`. */
  private waiting: unknown[][] = [];
  private seq = 0;
  private pageKey = '';
  private href = location.href;
  private referrer = document.referrer;

  constructor(private readonly defaultEndpoint: string) {}

  run(args: unknown[]): void {
    const [command, ...rest] = args;
    if (command === 'init') return this.init(rest[0]);
    if (command === 'consent') return this.consent(rest[0]);
    if (!this.started) {
      if (this.waiting.length < MAX_HELD) this.waiting.push(args);
      return;
    }
    switch (command) {
      case 'track':
        if (typeof rest[0] === 'string' && rest[0]) this.track(rest[0], isObject(rest[1]) ? rest[1] : {});
        break;
      case 'page':
        this.pageView();
        break;
      case 'identify':
        this.identify(rest[0]);
        break;
      case 'getClientId':
        if (typeof rest[0] === 'function')
          (rest[0] as (id: string | null) => void)(this.granted ? this.clientId : null);
        break;
      case 'cart':
        if (this.clientId) writeShopifyCart(this.clientId);
        break;
    }
  }

  private init(options: unknown): void {
    if (this.started || !isObject(options)) return;
    const o = options as TrackerOptions;
    const endpoint = (text(o.endpoint) ?? this.defaultEndpoint).replace(/\/+$/, '');
    if (!text(o.key) || !endpoint) return;
    this.opts = o;
    this.url = `${endpoint}/collect/${encodeURIComponent(o.key!)}`;
    this.started = true;
    if (this.granted === null && !o.requireConsent) this.granted = true;
    if (this.granted) this.start();
    else if (this.granted === false) this.refuseOnCart();

    const hidden = safe(() => this.sender?.flushBeacon());
    addEventListener('pagehide', hidden);
    document.addEventListener(
      'visibilitychange',
      safe(() => {
        if (document.visibilityState === 'hidden') hidden();
      }),
    );
    if (o.autoPageViews !== false) {
      this.pageView();
      onRouteChange(() => this.routeChanged());
    }
    if (document.readyState === 'loading')
      document.addEventListener(
        'DOMContentLoaded',
        safe(() => this.fillInputs()),
      );
    for (const c of this.waiting.splice(0)) this.run(c);
  }

  /** Consent granted: the clientId is read or created, stored, and the held events go out. */
  private start(): void {
    if (this.sender) return;
    const id = readCookie(CLIENT_ID) || lsGet(CLIENT_ID) || uuid();
    this.clientId = id;
    setSiteCookie(CLIENT_ID, id, TWO_YEARS_S, this.opts.cookieDomain);
    lsSet(CLIENT_ID, id);
    this.sender = new Sender<TrackerEvent>({
      url: this.url,
      store: {
        load: () => {
          try {
            return JSON.parse(lsGet(QUEUE) || '[]') as unknown[];
          } catch {
            return [];
          }
        },
        save: (events) => lsSet(QUEUE, events.length ? JSON.stringify(events) : null),
      },
    });
    for (const e of this.held.splice(0)) this.send(e);
    this.fillInputs();
    if (this.opts.cart === 'shopify') {
      this.refusedOnCart = false;
      writeShopifyCart(id);
    }
  }

  private consent(value: unknown): void {
    if (value === true || value === 'granted') {
      this.granted = true;
      if (this.started) this.start();
      return;
    }
    this.granted = false;
    this.held = [];
    if (this.sender) this.sender.clear();
    this.sender = null;
    this.clientId = null;
    deleteSiteCookie(CLIENT_ID, this.opts.cookieDomain);
    lsSet(CLIENT_ID, null);
    lsSet(QUEUE, null);
    this.refuseOnCart();
  }

  /** Records the refusal on a Shopify cart (`_oa_consent` = `denied`): once, until consent is granted again. */
  private refuseOnCart(): void {
    if (!this.started || this.opts.cart !== 'shopify' || this.refusedOnCart) return;
    this.refusedOnCart = true;
    writeShopifyCart(null);
  }

  private record(e: TrackerEvent): void {
    if (this.granted === false) return;
    if (this.sender) this.send(e);
    else if (this.held.length < MAX_HELD) this.held.push(e);
  }

  private send(e: TrackerEvent): void {
    e.clientId = this.clientId!;
    this.sender!.add(e);
  }

  private track(name: string, data: EventData): void {
    this.record(newEvent(name, data, ++this.seq, this.referrer));
  }

  private pageView(): void {
    this.pageKey = location.href.split('#')[0]!;
    this.track('page_viewed', {});
    this.fillInputs();
  }

  /** A new route of a single-page app is a page view whose referrer is the previous route. */
  private routeChanged(): void {
    const href = location.href;
    const previous = this.href;
    this.href = href;
    if (href.split('#')[0] === this.pageKey) return;
    this.referrer = previous;
    this.pageView();
  }

  private identify(person: unknown): void {
    if (!isObject(person) || !text(person.email)) return;
    this.track('lead_form_submitted', {
      lead: {
        email: person.email,
        phone: text(person.phone),
        firstName: text(person.firstName),
        lastName: text(person.lastName),
        formId: text(person.formId),
      },
    });
  }

  private fillInputs(): void {
    if (this.granted && this.clientId) fillClientIdInputs(this.clientId);
  }
}
