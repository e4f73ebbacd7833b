/**
 * The store-side tracker in a real headless Chromium (Debian's package, driven by playwright-core), against
 * the in-process API, the pipeline, NATS and PostgreSQL: a static test store (a small single-page app)
 * served by the test on its own port loads /t.js from the API and pastes the snippet as a store would.
 *
 *   - a visitor from a UTM link browses three routes, adds to cart, checks out, pays: the stored events,
 *     the order journey and the reports show exactly that, with that touchpoint;
 *   - a reload mid-journey and a return a day later keep the clientId, nothing is lost across the reload;
 *   - with consent required and not given nothing is sent or stored; granted, the held events go out;
 *   - refused, the Shopify cart carries `_oa_consent` = `denied` (one update) and nothing else happens; accepted
 *     later, one update writes `granted` and the clientId;
 *   - /collect answering 503 twice then 200 delivers every event exactly once; 429's Retry-After is
 *     honoured; another 4xx is never retried; leaving the page flushes the queue with a beacon;
 *   - the identity hand-off: the order the store pushes with the cart attribute, thank-you page never
 *     loaded, is attributed to the browser touchpoint;
 *   - the Shopify custom pixel and the Web Pixel extension, fed events recorded from real Shopify pixels
 *     (test/fixtures/shopify-pixel) by a stub of `analytics.subscribe`, forward them unchanged, and they are
 *     accepted and attributed.
 */
import request from 'supertest';
import type { Page, Route } from 'playwright-core';
import { consentWithheldBy } from '../../contracts/src/tracker';
import type { Db } from '../../storage/db';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { launchBrowser, removeProfile, type TestBrowser } from '../support/browser';
import { createTestStore, startTestApi, startTestPipeline, testDb, type TestStore, waitFor } from '../support/harness';
import { order, pushOrder } from '../support/journeys';
import { loadPixelRecordings, shiftedToRecent, type PixelProducer } from '../support/shopify-pixel';
import { startTestStoreSite, type TestStoreSite } from '../support/test-store-site';

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let site: TestStoreSite;

const DAY = 86_400_000;
const VERSION = 'v2-4-2';
const local = (d: Date | number) => new Date(d).toISOString().slice(0, 19).replace('T', ' ');
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Long enough for a 2 s batch, a retry or two and the pipeline on a busy machine. */
const DELIVERY_MS = 30_000;

beforeAll(async () => {
  db = testDb();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  site = await startTestStoreSite(api.url, 'set-per-test');
});

afterAll(async () => {
  await site.close();
  await pipeline.stop();
  await api.stop();
  await db.close();
});

/** Each test has a store of its own (its reports are exactly its visitor's), whose snippet the site pastes. */
async function storeForTest(options: { requireConsent?: boolean } = {}, currency = 'USD'): Promise<TestStore> {
  const shop = await createTestStore(db, { timezone: 'UTC', currency });
  site.snippet = { key: shop.credentials.ingest_key, cart: 'shopify', ...options };
  site.pixel = { ingestKey: shop.credentials.ingest_key, endpoint: api.url };
  return shop;
}

/** A browser for the duration of `fn`, closed and its profile removed afterwards. */
async function withBrowser(fn: (b: TestBrowser) => Promise<void>): Promise<void> {
  const b = await launchBrowser();
  try {
    await fn(b);
  } finally {
    await b.close();
    removeProfile(b.profile);
  }
}

interface StoredEvent {
  id: string;
  name: string;
  seq: number;
  clientId: string;
  clientIp: string;
  timestamp: string;
  type: string;
  context: { document: { location: { href: string }; referrer: string; title: string } };
  data: Record<string, unknown>;
  fbp?: string;
}

/** The raw events the pipeline stored for a client, in the order the browser produced them. */
async function storedEvents(shop: TestStore, clientId: string): Promise<StoredEvent[]> {
  const rows = await db.query<{ payload: StoredEvent }>(
    'test.raw',
    `select payload from raw_events where store_id = $1 and client_id = $2
     order by occurred_at, (payload->>'seq')::int`,
    [shop.store.store_id, clientId],
  );
  return rows.map((r) => r.payload);
}

const eventsArrived = (shop: TestStore, clientId: string, n: number) =>
  waitFor(
    () => storedEvents(shop, clientId),
    (rows) => rows.length >= n,
    DELIVERY_MS,
    100,
  );

const clientIdOf = (page: Page) => page.evaluate<string>('new Promise((resolve) => oa("getClientId", resolve))');

/** Loads a store page and waits for the tracker to be running (its clientId known once consent allows). */
async function open(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction('window.oa && window.oa.v');
}

const click = async (page: Page, selector: string, status?: string) => {
  await page.click(selector);
  if (status) await page.waitForSelector(`#status:text-is("${status}")`);
};

const api_ = (path: string, shop: TestStore, body: object) =>
  request(api.url).post(`/${VERSION}/api/${path}`).set('ApiKey', shop.credentials.api_key).send(body);

describe('a visitor in a real browser', () => {
  it('lands from a UTM link, browses three routes of a single-page app, adds to cart and pays: the events, the journey and the reports show exactly that', async () => {
    const shop = await storeForTest();
    await withBrowser(async (b) => {
      const page = await b.context.newPage();
      const landing = `${site.url}/?utm_source=newsletter&utm_medium=email&utm_campaign=spring`;
      const collection = `${site.url}/collections/summer`;
      const product = `${site.url}/products/linen-shirt`;
      await open(page, landing);
      await page.click('text=Shop summer');
      await page.click('#to-product');
      await click(page, '#add', 'added');
      await click(page, '#checkout', 'checkout');
      await click(page, '#payment', 'payment');
      await click(page, '#pay', 'paid');
      const clientId = await clientIdOf(page);
      const orderId = await page.evaluate<string>('window.lastOrderId');

      const events = await eventsArrived(shop, clientId, 7);
      expect(events.map((e) => [e.name, e.context.document.location.href, e.context.document.referrer])).toEqual([
        ['page_viewed', landing, ''],
        ['page_viewed', collection, landing],
        ['page_viewed', product, collection],
        ['product_added_to_cart', product, collection],
        ['checkout_started', product, collection],
        ['payment_info_submitted', product, collection],
        ['checkout_completed', product, collection],
      ]);
      expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(events.map((e) => e.context.document.title)).toEqual([
        'Linen & Co',
        'Summer collection',
        'Linen Shirt',
        'Linen Shirt',
        'Linen Shirt',
        'Linen Shirt',
        'Linen Shirt',
      ]);
      for (const e of events) {
        expect(e).toMatchObject({ clientId, type: 'standard', clientIp: expect.stringContaining('127.0.0.1') });
        expect(e.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }

      // First-party cookie, SameSite=Lax, mirrored to localStorage; the cart carries it too. The tracker asks
      // for two years; Chromium caps any cookie at 400 days, and each visit renews it.
      const cookie = (await b.context.cookies(site.url)).find((c) => c.name === '_oa_cid');
      expect(cookie).toMatchObject({ value: clientId, sameSite: 'Lax', domain: '127.0.0.1', path: '/' });
      expect(cookie!.expires * 1000 - Date.now()).toBeGreaterThan(399 * DAY);
      expect(await page.evaluate('localStorage.getItem("_oa_cid")')).toBe(clientId);
      expect(await page.inputValue('input[name="attributes[_oa_client_id]"]')).toBe(clientId);
      expect([...site.carts.values()].some((a) => a['_oa_client_id'] === clientId)).toBe(true);

      // The order's journey: the landing touch, the two other routes, the cart and the checkout.
      const journey = await api_('order/event', shop, { order_id: orderId, page: 1, page_size: 20 });
      expect(journey.status).toBe(200);
      expect(journey.body.data.total).toBe(7);
      const items = journey.body.data.events as Array<Record<string, unknown>>;
      expect(items.map((e) => [e.event_type, e.event_at])).toEqual(
        events.map((e, i) => [i === 0 ? 'email' : e.name, local(Date.parse(e.timestamp))]),
      );
      expect(items[0]).toMatchObject({ event_source: 'newsletter', event_medium: 'email', event_campaign: 'spring' });

      const touch = NEWSLETTER_TOUCH(Date.parse(events[0]!.timestamp));
      const touches = await api_('order/attribution-touch', shop, { order_ids: [orderId] });
      expect(touches.body.data).toEqual([{ order_id: orderId, first_touchpoint: touch, last_touchpoint: touch }]);

      const now = Date.now();
      for (const goal of ['purchase', 'add_to_cart', 'checkout_start', 'payment_info_submitted']) {
        const list = await api_('all-attribution/get-list', shop, {
          start_date: dayOf(now - DAY),
          end_date: dayOf(now + DAY),
          dimensions: ['source', 'campaign', 'landing_page'],
          model: 'last',
          goal,
          page: 1,
          page_size: 20,
        });
        expect(list.status).toBe(200);
        expect(list.body.data.records).toEqual([
          expect.objectContaining({
            source: 'newsletter',
            campaign: 'spring',
            landing_page: '/',
            conversions: 1,
            conversion_value: 80,
          }),
        ]);
        await new Promise((r) => setTimeout(r, 210)); // get-list allows 5 requests/s per key
      }
    });
  });

  it('keeps its clientId across a reload mid-journey and a return a day later; nothing is lost in the reload', async () => {
    const shop = await storeForTest();
    const first = await launchBrowser();
    let clientId = '';
    try {
      // The first visit happened yesterday (the page's clock; cookies are the browser's own).
      await first.context.clock.install({ time: Date.now() - DAY });
      const page = await first.context.newPage();
      await open(page, `${site.url}/?utm_source=google&utm_medium=cpc&utm_campaign=brand`);
      clientId = await clientIdOf(page);
      await page.click('text=Shop summer');
      await page.click('#to-product');
      await click(page, '#add', 'added');
      // Reload at once: the route views and the cart event are still waiting for their batch.
      await page.reload();
      await page.waitForFunction('window.oa && window.oa.v');
      expect(await clientIdOf(page)).toBe(clientId);
      const events = await eventsArrived(shop, clientId, 5);
      expect(events.map((e) => [e.name, new URL(e.context.document.location.href).pathname])).toEqual([
        ['page_viewed', '/'],
        ['page_viewed', '/collections/summer'],
        ['page_viewed', '/products/linen-shirt'],
        ['product_added_to_cart', '/products/linen-shirt'],
        ['page_viewed', '/products/linen-shirt'],
      ]);
    } finally {
      await first.close();
    }

    // The same browser profile, restarted a day later (the real clock).
    const again = await launchBrowser(first.profile);
    try {
      const page = await again.context.newPage();
      await open(page, `${site.url}/`);
      expect(await clientIdOf(page)).toBe(clientId);
      const events = await eventsArrived(shop, clientId, 6);
      expect(events).toHaveLength(6);
      expect(new Set(events.map((e) => e.id)).size).toBe(6);
      const sessions = await db.query<{ source: string; medium: string }>(
        'test.sessions',
        'select source, medium from sessions where store_id = $1 and client_id = $2 order by started_at',
        [shop.store.store_id, clientId],
      );
      expect(sessions).toEqual([
        { source: 'google', medium: 'cpc' },
        { source: '(direct)', medium: '(none)' },
      ]);
    } finally {
      await again.close();
      removeProfile(first.profile);
    }
  });

  it("sends Meta's _fbp cookie with the events once Meta's pixel wrote it, and nothing else in its place", async () => {
    const shop = await storeForTest();
    await withBrowser(async (b) => {
      const page = await b.context.newPage();
      await open(page, `${site.url}/`);
      const clientId = await clientIdOf(page);
      // Meta's pixel writes the cookie after our tracker started; a malformed value is never sent.
      await page.evaluate('document.cookie = "_fbp=fb.1.1596403881668.1116446470; path=/"');
      await page.click('text=Shop summer');
      await page.evaluate('document.cookie = "_fbp=not-a-meta-id; path=/"');
      await page.click('#to-product');
      const events = await eventsArrived(shop, clientId, 3);
      expect(events.map((e) => [new URL(e.context.document.location.href).pathname, e.fbp ?? null])).toEqual([
        ['/', null],
        ['/collections/summer', 'fb.1.1596403881668.1116446470'],
        ['/products/linen-shirt', null],
      ]);
    });
  });

  it('sends nothing and sets no cookie while consent is withheld; granted, the held events go out', async () => {
    const shop = await storeForTest({ requireConsent: true });
    await withBrowser(async (b) => {
      const collects: string[] = [];
      b.context.on('request', (r) => {
        if (r.url().startsWith(`${api.url}/collect/`)) collects.push(r.url());
      });
      await b.context.addInitScript(BEACON_SPY);
      const cartsBefore = site.carts.size;
      const page = await b.context.newPage();
      await open(page, `${site.url}/?utm_source=newsletter&utm_medium=email&utm_campaign=spring`);
      await page.click('text=Shop summer');
      await page.click('#to-product');
      await click(page, '#add', 'added');
      expect(await clientIdOf(page)).toBeNull();
      // Leaving the page is when a tracker flushes everything it holds: go to a page without the tracker.
      await page.goto(`${site.url}/plain.html`);
      expect(collects).toEqual([]);
      expect(await page.evaluate('sessionStorage.getItem("beacons")')).toBeNull();
      expect(await b.context.cookies(site.url)).toEqual([]);
      expect(await page.evaluate('Object.keys(localStorage)')).toEqual([]);
      expect(site.carts.size).toBe(cartsBefore);

      // Consent given on the next page: its held page view goes out, the clientId is stored.
      await open(page, `${site.url}/collections/summer`);
      await page.evaluate('oa("consent", true)');
      const clientId = await clientIdOf(page);
      expect(clientId).toMatch(/^[0-9a-f-]{36}$/);
      const events = await eventsArrived(shop, clientId, 1);
      expect(events.map((e) => e.name)).toEqual(['page_viewed']);
      expect((await b.context.cookies(site.url)).map((c) => c.name)).toContain('_oa_cid');

      // Withdrawn: the cookie and the stored id are removed.
      await page.evaluate('oa("consent", false)');
      expect((await b.context.cookies(site.url)).map((c) => c.name)).not.toContain('_oa_cid');
      expect(await page.evaluate('localStorage.getItem("_oa_cid")')).toBeNull();
    });
  });

  it('records a refusal on the Shopify cart and nothing else; a later acceptance replaces it, with the clientId', async () => {
    const shop = await storeForTest({ requireConsent: true });
    await withBrowser(async (b) => {
      const collects: string[] = [];
      // Every cart update the page asks for, and how many Shopify (the test site) has answered.
      const cartUpdates: unknown[] = [];
      let cartUpdatesDone = 0;
      const isCartUpdate = (url: string) => url === `${site.url}/cart/update.js`;
      b.context.on('request', (r) => {
        if (r.url().startsWith(`${api.url}/collect/`)) collects.push(r.url());
        if (isCartUpdate(r.url())) cartUpdates.push(JSON.parse(r.postData() ?? 'null'));
      });
      b.context.on('requestfinished', (r) => {
        if (isCartUpdate(r.url())) cartUpdatesDone++;
      });
      await b.context.addInitScript(BEACON_SPY);
      const cartsBefore = site.carts.size;
      const page = await b.context.newPage();
      await open(page, `${site.url}/?utm_source=newsletter&utm_medium=email&utm_campaign=spring`);
      // The consent manager refuses (and says so again: the cart is written once).
      await page.evaluate('oa("consent", false); oa("consent", false)');
      await page.click('text=Shop summer');
      await click(page, '#to-product');
      await click(page, '#add', 'added');
      await waitFor(
        () => Promise.resolve(cartUpdatesDone),
        (n) => n >= 1,
      );
      expect(await clientIdOf(page)).toBeNull();
      // Leaving the page is when a tracker flushes everything it holds: go to a page without the tracker.
      await page.goto(`${site.url}/plain.html`);
      expect(cartUpdates).toEqual([{ attributes: { _oa_consent: 'denied' } }]);
      // Nothing else: no event, no beacon, no cookie but Shopify's own cart cookie, nothing in localStorage.
      expect(collects).toEqual([]);
      expect(await page.evaluate('sessionStorage.getItem("beacons")')).toBeNull();
      const cookies = await b.context.cookies();
      expect(cookies.map((c) => c.name)).toEqual(['cart']);
      // The visitor had no cart: the update made one, which carries the refusal alone.
      expect(site.carts.size).toBe(cartsBefore + 1);
      const cart = () => site.carts.get(cookies[0]!.value)!;
      expect(cart()).toEqual({ _oa_consent: 'denied' });
      // What the pipeline will read from the order this cart becomes (Shopify copies it into note_attributes).
      const noteAttributes = () => Object.entries(cart()).map(([name, value]) => ({ name, value }));
      expect(consentWithheldBy(noteAttributes())).toBe(true);
      expect(await page.evaluate('Object.keys(localStorage)')).toEqual([]);

      // The next page: the consent manager repeats the refusal (the cart already carries it), then the visitor
      // accepts: one update writes the clientId and replaces the refusal.
      await open(page, `${site.url}/collections/summer`);
      await page.evaluate('oa("consent", false)');
      await page.evaluate('oa("consent", true)');
      const clientId = await clientIdOf(page);
      expect(clientId).toMatch(/^[0-9a-f-]{36}$/);
      await waitFor(
        () => Promise.resolve(cartUpdatesDone),
        (n) => n >= 2,
      );
      expect(cartUpdates).toEqual([
        { attributes: { _oa_consent: 'denied' } },
        { attributes: { _oa_client_id: clientId, _oa_consent: 'granted' } },
      ]);
      expect(site.carts.size).toBe(cartsBefore + 1);
      expect(cart()).toEqual({ _oa_consent: 'granted', _oa_client_id: clientId });
      expect(consentWithheldBy(noteAttributes())).toBe(false);
      // Only what happened after the acceptance is ever sent (the refusal dropped this page's view).
      await page.click('#to-product');
      const events = await eventsArrived(shop, clientId, 1);
      expect(events.map((e) => [e.name, new URL(e.context.document.location.href).pathname])).toEqual([
        ['page_viewed', '/products/linen-shirt'],
      ]);
      const stored = await db.query<{ n: string }>(
        'test.raw_count',
        'select count(*) as n from raw_events where store_id = $1',
        [shop.store.store_id],
      );
      expect(Number(stored[0]!.n)).toBe(1);

      // On the same page, withdrawn and accepted again (each said twice): one update per change, in order, the
      // refusal alone and then a new clientId with the acceptance.
      await page.evaluate('oa("consent", false); oa("consent", false); oa("consent", true); oa("consent", true)');
      const renewed = await clientIdOf(page);
      expect(renewed).toMatch(/^[0-9a-f-]{36}$/);
      expect(renewed).not.toBe(clientId);
      await waitFor(
        () => Promise.resolve(cartUpdatesDone),
        (n) => n >= 4,
      );
      expect(cartUpdates.slice(2)).toEqual([
        { attributes: { _oa_consent: 'denied' } },
        { attributes: { _oa_client_id: renewed, _oa_consent: 'granted' } },
      ]);
      expect(cart()).toEqual({ _oa_consent: 'granted', _oa_client_id: renewed });
      expect(cartUpdates).toHaveLength(4);
    });
  });
});

/** Records every navigator.sendBeacon call in sessionStorage (Playwright does not see beacon requests). */
const BEACON_SPY = `(() => {
  const send = navigator.sendBeacon.bind(navigator);
  navigator.sendBeacon = (url, data) => {
    const ok = send(url, data);
    const log = JSON.parse(sessionStorage.getItem('beacons') || '[]');
    log.push({ url: String(url), body: String(data), ok });
    sessionStorage.setItem('beacons', JSON.stringify(log));
    return ok;
  };
})();`;

const NEWSLETTER_TOUCH = (at: number) => ({
  campaign: 'spring',
  channel: 'email',
  source: 'newsletter',
  medium: 'email',
  time: local(at),
});

describe('delivery', () => {
  interface Call {
    at: number;
    ids: string[];
    status: number;
    body?: { data: { accepted: number; duplicates: number; rejected: unknown[] } };
  }

  /**
   * Intercepts the tracker's fetches to /collect: planned answers first (503, 429, 400 with Retry-After),
   * then the real API. Every call is logged with the event ids it carried.
   */
  async function interceptCollect(b: TestBrowser, plan: Array<{ status: number; retryAfter?: string }>) {
    const calls: Call[] = [];
    await b.context.route(`${api.url}/collect/**`, async (route: Route) => {
      const ids = (JSON.parse(route.request().postData() ?? '[]') as Array<{ id: string }>).map((e) => e.id);
      const planned = plan.shift();
      if (planned) {
        calls.push({ at: Date.now(), ids, status: planned.status });
        return route.fulfill({
          status: planned.status,
          headers: {
            'Access-Control-Allow-Origin': '*',
            'Access-Control-Expose-Headers': 'Retry-After',
            ...(planned.retryAfter ? { 'Retry-After': planned.retryAfter } : {}),
          },
          contentType: 'application/json',
          body: JSON.stringify({ code: planned.status, message: 'planned failure', data: null }),
        });
      }
      const response = await route.fetch();
      const body = (await response.json()) as Call['body'];
      calls.push({ at: Date.now(), ids, status: response.status(), body });
      await route.fulfill({ response });
    });
    return { calls, plan };
  }

  const succeeded = (calls: Call[]) => calls.filter((c) => c.status === 200);

  it('retries after 503 twice and delivers every event exactly once; honours Retry-After; never retries another 4xx', async () => {
    const shop = await storeForTest();
    await withBrowser(async (b) => {
      const { calls, plan } = await interceptCollect(b, [
        { status: 503, retryAfter: '1' },
        { status: 503, retryAfter: '1' },
      ]);
      const page = await b.context.newPage();
      await open(page, `${site.url}/?utm_source=newsletter&utm_medium=email&utm_campaign=spring`);
      await page.click('text=Shop summer');
      await page.click('#to-product');
      await click(page, '#add', 'added');
      const clientId = await clientIdOf(page);
      const events = await eventsArrived(shop, clientId, 4);
      await waitFor(
        () => Promise.resolve(succeeded(calls).flatMap((c) => c.ids).length),
        (n) => n === 4,
        DELIVERY_MS,
      );

      // The first batch failed twice and went through the third time, at least Retry-After apart.
      expect(calls.slice(0, 3).map((c) => c.status)).toEqual([503, 503, 200]);
      expect(calls[1]!.ids).toEqual(calls[0]!.ids);
      expect(calls[2]!.ids).toEqual(calls[0]!.ids);
      expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(950);
      expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(950);
      // Exactly once: every event in one successful request, none a duplicate, each stored once.
      const delivered = succeeded(calls).flatMap((c) => c.ids);
      expect(delivered.sort()).toEqual(events.map((e) => e.id).sort());
      for (const c of succeeded(calls)) expect(c.body!.data).toMatchObject({ duplicates: 0, rejected: [] });

      // 429 with Retry-After: 3 s: the retry waits for it (the backoff alone would be at most 1 s).
      plan.push({ status: 429, retryAfter: '3' });
      await click(page, '#add', 'added');
      await waitFor(
        () => Promise.resolve(calls.length),
        (n) => n >= 5 && calls[n - 1]!.status === 200,
        DELIVERY_MS,
      );
      const [limited, retried] = calls.slice(-2);
      expect(limited!.status).toBe(429);
      expect(retried!.ids).toEqual(limited!.ids);
      expect(retried!.at - limited!.at).toBeGreaterThanOrEqual(2950);

      // A 400 is final: that batch is dropped, the next one goes through.
      plan.push({ status: 400 });
      await click(page, '#add', 'added');
      await waitFor(
        () => Promise.resolve(calls.at(-1)!.status),
        (s) => s === 400,
        DELIVERY_MS,
      );
      const refusedAt = calls.length - 1;
      const refused = calls[refusedAt]!.ids;
      const storedBefore = (await storedEvents(shop, clientId)).length;
      await click(page, '#add', 'added');
      const after = await eventsArrived(shop, clientId, storedBefore + 1);
      expect(after).toHaveLength(storedBefore + 1);
      expect(after.map((e) => e.id)).not.toEqual(expect.arrayContaining([refused[0]]));
      expect(calls.slice(refusedAt + 1).flatMap((c) => c.ids)).not.toContain(refused[0]);
      // Nothing is left to send.
      await page.waitForFunction('localStorage.getItem("_oa_queue") === null');
    });
  });

  it('flushes the queue with a beacon when the visitor leaves the page', async () => {
    const shop = await storeForTest();
    await withBrowser(async (b) => {
      const { calls } = await interceptCollect(b, []);
      await b.context.addInitScript(BEACON_SPY);
      // The page's timers run only when the test says so: the 2 s batch cannot leave before the visitor
      // does, however slow the machine.
      await b.context.clock.install();
      await b.context.clock.pauseAt(Date.now() + 1000);
      const page = await b.context.newPage();
      await page.goto(`${site.url}/`);
      await page.waitForFunction('window.oa && window.oa.v', undefined, { polling: 50 });
      await b.context.clock.runFor(2500); // the landing view's batch
      const clientId = await clientIdOf(page);
      await eventsArrived(shop, clientId, 1);
      // Two routes and a cart event wait for their batch (route changes are noted on a 0 ms timer)...
      await page.click('text=Shop summer');
      await b.context.clock.runFor(10);
      await page.click('#to-product');
      await b.context.clock.runFor(10);
      await click(page, '#add', 'added');
      // ...and the visitor leaves.
      await page.goto(`${site.url}/plain.html`);
      const beacons = JSON.parse(await page.evaluate<string>('sessionStorage.getItem("beacons")')) as Array<{
        url: string;
        body: string;
        ok: boolean;
      }>;
      expect(beacons).toHaveLength(1);
      expect(beacons[0]!.url).toBe(`${api.url}/collect/${shop.credentials.ingest_key}`);
      expect(beacons[0]!.ok).toBe(true);
      expect(Buffer.byteLength(beacons[0]!.body)).toBeLessThan(60_000);
      const beaconed = (JSON.parse(beacons[0]!.body) as Array<{ id: string; name: string }>).map((e) => e.name);
      expect(beaconed).toEqual(['page_viewed', 'page_viewed', 'product_added_to_cart']);

      const events = await eventsArrived(shop, clientId, 4);
      expect(events.map((e) => e.name)).toEqual(['page_viewed', 'page_viewed', 'page_viewed', 'product_added_to_cart']);
      // Only the landing view went by fetch; the rest by the beacon, and nothing is left queued.
      expect(calls.flatMap((c) => c.ids)).toEqual([events[0]!.id]);
      expect(await page.evaluate('localStorage.getItem("_oa_queue")')).toBeNull();
    });
  });
});

describe('identity hand-off in the browser', () => {
  it('attributes the order the store pushes with the cart attribute to the browser touchpoint, thank-you page never loaded', async () => {
    const shop = await storeForTest();
    await withBrowser(async (b) => {
      const page = await b.context.newPage();
      await open(page, `${site.url}/?utm_source=newsletter&utm_medium=email&utm_campaign=spring`);
      await page.click('text=Shop summer');
      await page.click('#to-product');
      await click(page, '#add', 'added');
      const clientId = await clientIdOf(page);
      const events = await eventsArrived(shop, clientId, 4);
      // The visitor goes to checkout (another site) and pays; the thank-you page never loads. The store's
      // backend pushes the order with the cart's attributes, as Shopify copies them into note_attributes.
      const cart = await waitFor(
        () => Promise.resolve([...site.carts.values()].find((a) => a['_oa_client_id'] === clientId)),
        (a) => a !== undefined,
      );
      const orderId = String(Date.now());
      const now = new Date().toISOString();
      await pushOrder(
        api.url,
        shop.credentials.ingest_key,
        db,
        shop.store.store_id,
        order({
          id: orderId,
          created_at: now,
          updated_at: now,
          email: 'someone@example.com',
          customer: null,
          checkout_token: `tok-${orderId}`,
          landing_site: null,
          referring_site: null,
          total_price: '80.00',
          note_attributes: Object.entries(cart!).map(([name, value]) => ({ name, value })),
        }),
      );
      const touch = NEWSLETTER_TOUCH(Date.parse(events[0]!.timestamp));
      const touches = await waitFor(
        async () =>
          (await api_('order/attribution-touch', shop, { order_ids: [orderId] })).body.data as Array<{
            first_touchpoint: { source: string } | null;
          }>,
        (d) => d[0]?.first_touchpoint?.source === 'newsletter',
        DELIVERY_MS,
        100,
      );
      expect(touches).toEqual([{ order_id: orderId, first_touchpoint: touch, last_touchpoint: touch }]);
    });
  });
});

describe('Shopify pixels', () => {
  /** A producer's recorded events, moved to the last hour. */
  const recorded = (producer: PixelProducer) =>
    shiftedToRecent(
      loadPixelRecordings(producer).map((r) => r.event),
      Date.now() - 60 * 60_000,
    );

  /**
   * Feeds the recordings to the pixel through the stub of `analytics.subscribe` and checks that it posted
   * them unchanged, that the API accepted every one, and that the checkout became an attributed purchase.
   */
  async function publishAndCheck(
    b: TestBrowser,
    page: Page,
    shop: TestStore,
    published: Array<Record<string, unknown>>,
    order: { id: string; total: number },
  ): Promise<void> {
    const posted: unknown[] = [];
    const answers: Array<{ status: number; accepted: number; rejected: unknown[] }> = [];
    await b.context.route(`${api.url}/collect/**`, async (route: Route) => {
      posted.push(...(JSON.parse(route.request().postData() ?? '[]') as unknown[]));
      const response = await route.fetch();
      const body = (await response.json()) as { data: { accepted: number; rejected: unknown[] } };
      answers.push({ status: response.status(), ...body.data });
      await route.fulfill({ response });
    });
    await page.evaluate(
      (events) => (globalThis as unknown as { publish(e: unknown): void }).publish(events),
      published,
    );
    await waitFor(
      () => Promise.resolve(answers.reduce((n, a) => n + a.accepted, 0)),
      (n) => n === published.length,
      DELIVERY_MS,
    );
    // Forwarded unchanged, in order: no seq, type or clientIp added by the pixel (the API fills them).
    expect(posted).toEqual(published);
    expect(answers.every((a) => a.status === 200 && a.rejected.length === 0)).toBe(true);
    const ids = published.map((e) => String(e['id']));
    await waitFor(
      async () =>
        Number(
          (
            await db.query<{ n: string }>(
              'test.raw_count',
              'select count(*) as n from raw_events where store_id = $1 and event_id = any($2::text[])',
              [shop.store.store_id, ids],
            )
          )[0]!.n,
        ),
      (n) => n === ids.length,
      DELIVERY_MS,
      100,
    );
    // The checkout is a purchase worth its total, credited to the visit's touchpoint (a direct visit here:
    // the recorded referrers are the store's own pages).
    const touches = await api_('order/attribution-touch', shop, { order_ids: [order.id] });
    expect(touches.body.data[0]).toMatchObject({
      order_id: order.id,
      first_touchpoint: { channel: 'direct', source: '(direct)' },
      last_touchpoint: { channel: 'direct', source: '(direct)' },
    });
    const now = Date.now();
    // (The recordings span days: the purchase may be days before the last event.)
    const sum = await api_('all-attribution/get-list-sum', shop, {
      start_date: dayOf(now - 10 * DAY),
      end_date: dayOf(now + DAY),
      dimensions: ['source'],
      model: 'last',
      goal: 'purchase',
    });
    expect(sum.body.data).toMatchObject({ conversions: 1, conversion_value: order.total });
  }

  it('the custom pixel forwards recorded standard events unchanged; accepted and attributed', async () => {
    const shop = await storeForTest({}, 'INR');
    await withBrowser(async (b) => {
      const page = await b.context.newPage();
      await page.goto(`${site.url}/pixel.html`);
      await page.waitForFunction(
        'window.subscribers.length === 1 && window.subscribers[0].name === "all_standard_events"',
      );
      // A custom pixel's recording; its checkout_completed names the order by its global id.
      await publishAndCheck(b, page, shop, recorded('customerlabs-custom-pixel'), {
        id: '5396439498987',
        total: 50.73,
      });
    });
  });

  it('the Web Pixel app extension, built from the same source, does the same with the settings Shopify passes', async () => {
    const shop = await storeForTest({}, 'INR');
    await withBrowser(async (b) => {
      const page = await b.context.newPage();
      await page.goto(`${site.url}/extension.html`);
      await page.waitForFunction('window.pixelRegistered === true && window.subscribers.length === 1');
      // An app pixel's recording.
      await publishAndCheck(b, page, shop, recorded('valmi-app-pixel'), { id: '5364716830934', total: 884.94 });
    });
  });
});
