/**
 * Purchases sent to the ad platforms' conversion APIs, end to end: storefront events and order pushes through the
 * API, the pipeline queueing new purchases on the WEBHOOKS stream, the webhook worker batching them to a local fake
 * of Meta's Conversions API, Google Ads' uploadClickConversions and TikTok's Events API
 * (`test/support/fake-conversion-apis.ts`, answering with the recorded answers of test/fixtures). Each request body
 * is held against the platform's documented example request (test/fixtures/<platform>/README.md), and the hashes
 * against the values Meta's documentation prints.
 *
 * Every test uses its own store and order ids and waits on conditions (requests arrived, metrics counted).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { StorefrontEvent } from '../../contracts/src/events';
import { CONSENT_ATTRIBUTE } from '../../contracts/src/tracker';
import type { Db } from '../../storage/db';
import { silentLogger } from '../../runtime/logger';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { loadWebhookWorkerConfig } from '../../webhook-worker/src/app/config';
import { startWebhookWorker, type RunningWebhookWorker } from '../../webhook-worker/src/app/worker';
import { createAdPlatformDestination } from '../../webhook-worker/src/destination-repo';
import { upsertAdConnection } from '../../storage/ad-connections';
import { createSecretBox, generateSecretsKey, parseSecretsKey } from '../../storage/secret-box';
import {
  baseEnv,
  createTestStore,
  startTestApi,
  startTestPipeline,
  testDb,
  waitFor,
  type TestStore,
} from '../support/harness';
import { checkoutCompleted, order, pageView, pushOrder, send } from '../support/journeys';
import { metricValue } from '../support/metrics';
import { runScript } from '../support/processes';
import {
  conversionFixture,
  startFakeConversionApis,
  type ConversionRequest,
  type FakeConversionApis,
} from '../support/fake-conversion-apis';

const SECRETS_KEY = generateSecretsKey();
const box = createSecretBox(parseSecretsKey(SECRETS_KEY));
const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let fake: FakeConversionApis;
let worker: RunningWebhookWorker;

beforeAll(async () => {
  db = testDb();
  fake = await startFakeConversionApis();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  worker = await startWebhookWorker(
    loadWebhookWorkerConfig(
      baseEnv({
        WEBHOOK_BACKOFF_MS: '100,100,100,100',
        WEBHOOK_BACKOFF_JITTER: '0',
        WEBHOOK_TIMEOUT_MS: '5000',
        WEBHOOK_DESTINATION_CACHE_MS: '0',
        WEBHOOK_CONCURRENCY: '64',
        AD_CONVERSIONS_LINGER_MS: '300',
        SECRETS_KEY,
        META_GRAPH_URL: fake.url,
        GOOGLE_ADS_API_URL: fake.url,
        GOOGLE_OAUTH_TOKEN_URL: fake.tokenUrl,
        TIKTOK_API_URL: fake.url,
      }),
    ),
    silentLogger(),
    { withoutHealthServer: true },
  );
});

afterAll(async () => {
  await worker.stop();
  await pipeline.stop();
  await api.stop();
  await fake.close();
  await db.close();
});

// ---------------------------------------------------------------------------------------------------------------

const META_TOKEN = 'EAABsbCS1iHgBAKZC7ZBtesttoken0123456789';
const TIKTOK_TOKEN = 'ttaccesstoken0123456789abcdef';

interface Shop {
  shop: TestStore;
  storeId: string;
  ids: { meta: string; google: string; tiktok: string };
}

/** A store with the three destinations and the Google Ads connection their Google uploads use. */
async function shopWithDestinations(testEventCode: string | null = null): Promise<Shop> {
  const shop = await createTestStore(db);
  const storeId = shop.store.store_id;
  await upsertAdConnection(db, box, {
    storeId,
    kind: 'google',
    accountId: '1234567890',
    secrets: { developerToken: 'devtoken123', clientId: 'cid', clientSecret: 'csecret', refreshToken: 'rtoken' },
  });
  const meta = await createAdPlatformDestination(db, box, storeId, {
    settings: { kind: 'meta_capi', pixelId: '1234567890123456', testEventCode },
    accessToken: META_TOKEN,
  });
  const google = await createAdPlatformDestination(db, box, storeId, {
    settings: {
      kind: 'google_ads',
      customerId: '1234567890',
      conversionAction: 'customers/1234567890/conversionActions/987654',
    },
    accessToken: null,
  });
  const tiktok = await createAdPlatformDestination(db, box, storeId, {
    settings: { kind: 'tiktok_events', pixelCode: 'C85O1JNV9S6R0CDU7VV0', testEventCode: null },
    accessToken: TIKTOK_TOKEN,
  });
  return {
    shop,
    storeId,
    ids: { meta: meta.destination_id, google: google.destination_id, tiktok: tiktok.destination_id },
  };
}

const HOUR = 3_600_000;
const iso = (ms: number): string => new Date(ms).toISOString();
/** A Shopify order id beyond 2^53, unique per call. */
const bigOrderId = (): string => `70000000000${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

/** A completed checkout with the email and phone of Meta's documented examples. */
function purchase(
  client: string,
  at: number,
  orderId: string,
  amount: number,
  fbp?: string,
  email = 'John_Smith@gmail.com',
): StorefrontEvent {
  const ev = checkoutCompleted(
    { client, at: iso(at) },
    { orderId, token: randomUUID().replace(/-/g, ''), amount, email },
  );
  if (ev.name === 'checkout_completed') ev.data.checkout.phone = '+1 (650) 555-1212';
  return fbp ? { ...ev, fbp } : ev;
}

const bodyOf = (r: ConversionRequest): Record<string, unknown> => JSON.parse(r.body) as Record<string, unknown>;

/** Waits until `platform` received a request carrying `eventId` that it took (2xx). */
function delivered(
  platform: 'meta' | 'google' | 'tiktok',
  eventId: string,
  timeoutMs = 20_000,
): Promise<ConversionRequest[]> {
  return waitFor(
    () => Promise.resolve(fake.carrying(platform, eventId)),
    (rs) => rs.some((r) => r.status === 200),
    timeoutMs,
  );
}

/** The platform's event of `eventId` in a request. */
function eventIn(
  platform: 'meta' | 'google' | 'tiktok',
  r: ConversionRequest,
  eventId: string,
): Record<string, unknown> {
  const body = bodyOf(r);
  const list = (platform === 'google' ? body.conversions : body.data) as Array<Record<string, unknown>>;
  return list.find((e) => String(platform === 'google' ? e.orderId : e.event_id) === eventId)!;
}

/** Every key path of a JSON value (arrays by their first element), to hold a body against a documented example. */
function keyPaths(v: unknown, prefix = ''): string[] {
  if (Array.isArray(v)) return v.length ? keyPaths(v[0], `${prefix}[]`) : [];
  if (typeof v !== 'object' || v === null) return [prefix];
  return Object.entries(v).flatMap(([k, x]) => keyPaths(x, prefix ? `${prefix}.${k}` : k));
}

async function deadLetters(
  storeId: string,
): Promise<Array<{ destination_id: string; body: string; last_error: string }>> {
  return db.query(
    'test.dead_letters',
    'select destination_id, body, last_error from webhook_dead_letters where store_id = $1',
    [storeId],
  );
}

// ---------------------------------------------------------------------------------------------------------------

describe('a purchase after three ad clicks', () => {
  it('reaches each platform once, with its click id, the documented hashes, the order id and the exact value', async () => {
    const s = await shopWithDestinations();
    const client = randomUUID();
    const now = Date.now();
    const fbAt = now - 50 * HOUR;
    const fbp = 'fb.1.1596403881668.1116446470';
    const orderId = bigOrderId();
    await send(api.url, s.shop.credentials.ingest_key, db, s.storeId, [
      pageView({ client, at: iso(fbAt), url: 'https://shop.example/?fbclid=IwAR2F4-Z8Abc_123' }),
      pageView({ client, at: iso(now - 26 * HOUR), url: 'https://shop.example/p/tee?gclid=Cj0KCQiA-abc' }),
      { ...pageView({ client, at: iso(now - 2 * HOUR), url: 'https://shop.example/?ttclid=E.C.P.CsABabc' }), fbp },
      purchase(client, now - HOUR, orderId, 1234.56),
    ]);

    const [meta] = await delivered('meta', orderId);
    const [google] = await delivered('google', orderId);
    const [tiktok] = await delivered('tiktok', orderId);
    expect([meta, google, tiktok].map((r) => r!.status)).toEqual([200, 200, 200]);

    // Meta: the order id as event id, fbc built from the fbclid landing, fbp, the documented hashes.
    expect(meta!.url).toBe('/v21.0/1234567890123456/events');
    const m = eventIn('meta', meta!, orderId);
    expect(m).toMatchObject({ event_name: 'Purchase', event_id: orderId, action_source: 'website' });
    expect(m.event_time).toBe(Math.floor((now - HOUR) / 1000));
    expect(m.user_data).toMatchObject({
      fbc: `fb.1.${fbAt}.IwAR2F4-Z8Abc_123`,
      fbp,
      // Meta's "Customer Information Parameters" page: john_smith@gmail.com and 16505551212 hash to these.
      em: ['62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f'],
      ph: ['e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176'],
    });
    expect(m.custom_data).toMatchObject({ value: 1234.56, currency: 'USD', order_id: orderId });
    expect(bodyOf(meta!).access_token).toBe(META_TOKEN);
    const documentedMeta = new Set(keyPaths(conversionFixture('meta/capi-request.json')));
    expect(keyPaths(bodyOf(meta!)).filter((k) => !documentedMeta.has(k))).toEqual([]);

    // Google: the gclid, the order id, the exact value, hashed email and phone in E.164; the OAuth exchange first.
    expect(google!.url).toBe('/v18/customers/1234567890:uploadClickConversions');
    expect(google!.headers['developer-token']).toBe('devtoken123');
    expect(google!.headers.authorization).toBe('Bearer ya29.a0AfB_byC-fake-access-token');
    expect(eventIn('google', google!, orderId)).toEqual({
      gclid: 'Cj0KCQiA-abc',
      conversionAction: 'customers/1234567890/conversionActions/987654',
      conversionDateTime: `${iso(now - HOUR)
        .slice(0, 19)
        .replace('T', ' ')}+00:00`,
      conversionValue: 1234.56,
      currencyCode: 'USD',
      orderId,
      userIdentifiers: [{ hashedEmail: sha256('john_smith@gmail.com') }, { hashedPhoneNumber: sha256('+16505551212') }],
    });
    expect(bodyOf(google!).partialFailure).toBe(true);
    const documentedGoogle = new Set(keyPaths(conversionFixture('google-ads/upload-click-conversions-request.json')));
    expect(keyPaths(bodyOf(google!)).filter((k) => !documentedGoogle.has(k))).toEqual([]);

    // TikTok: the ttclid and the hashed email and phone.
    expect(tiktok!.headers['access-token']).toBe(TIKTOK_TOKEN);
    const t = eventIn('tiktok', tiktok!, orderId);
    expect(t).toMatchObject({
      event: 'CompletePayment',
      event_id: orderId,
      user: { ttclid: 'E.C.P.CsABabc', email: sha256('john_smith@gmail.com'), phone: sha256('+16505551212') },
      properties: { value: 1234.56, currency: 'USD', order_id: orderId },
    });
    const documentedTikTok = new Set(keyPaths(conversionFixture('tiktok/events-track-request.json')));
    expect(keyPaths(bodyOf(tiktok!)).filter((k) => !documentedTikTok.has(k))).toEqual([]);

    // One request each: nothing sent twice.
    expect(['meta', 'google', 'tiktok'].map((p) => fake.carrying(p as 'meta', orderId).length)).toEqual([1, 1, 1]);
  });

  it("sends Meta's test event code when the destination has one", async () => {
    const s = await shopWithDestinations('TEST12345');
    const orderId = bigOrderId();
    const client = randomUUID();
    await send(api.url, s.shop.credentials.ingest_key, db, s.storeId, [
      purchase(client, Date.now() - HOUR, orderId, 10),
    ]);
    const [meta] = await delivered('meta', orderId);
    expect(bodyOf(meta!).test_event_code).toBe('TEST12345');
  });
});

describe('delivery', () => {
  it('honours a 429 with Retry-After, and the retry carries the same event id', async () => {
    const s = await shopWithDestinations();
    fake.next.meta.push({
      status: 429,
      headers: { 'retry-after': '1' },
      body: { error: { message: 'Application request limit reached', type: 'OAuthException', code: 4 } },
    });
    const orderId = bigOrderId();
    await send(api.url, s.shop.credentials.ingest_key, db, s.storeId, [
      purchase(randomUUID(), Date.now() - HOUR, orderId, 99.9),
    ]);
    const requests = await delivered('meta', orderId);
    expect(requests.map((r) => r.status)).toEqual([429, 200]);
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(requests.map((r) => eventIn('meta', r, orderId).event_id)).toEqual([orderId, orderId]);
  });

  it('dead-letters the one purchase a platform refuses in a batch, and delivers the others', async () => {
    const s = await shopWithDestinations();
    const good = bigOrderId();
    const bad = bigOrderId();
    fake.refuse.add(bad);
    await send(api.url, s.shop.credentials.ingest_key, db, s.storeId, [
      purchase(randomUUID(), Date.now() - 2 * HOUR, good, 20),
      purchase(randomUUID(), Date.now() - HOUR, bad, 30),
    ]);
    await delivered('meta', good);
    await delivered('google', good);
    await delivered('tiktok', good);
    const letters = await waitFor(
      () => deadLetters(s.storeId),
      (rows) => rows.length === 3,
    );
    // Each platform dead-lettered the refused purchase alone: Meta and TikTok after it was sent again by itself,
    // Google by its partialFailureError.
    expect(letters.map((l) => (JSON.parse(l.body) as { orderId: string }).orderId)).toEqual([bad, bad, bad]);
    expect(new Set(letters.map((l) => l.destination_id))).toEqual(new Set(Object.values(s.ids)));
    expect(letters.find((l) => l.destination_id === s.ids.google)!.last_error).toMatch(/UNPARSEABLE_GCLID/);
    expect(letters.find((l) => l.destination_id === s.ids.meta)!.last_error).toMatch(/Meta error 100/);
    // The good one was never dead-lettered, and Meta took it in a request of its own after the batch was refused.
    expect(fake.carrying('meta', good).map((r) => r.status)).toEqual([400, 200]);
  });
});

/**
 * Proves a purchase was not sent: a later purchase of the same store (queued after it, in order) reaches every
 * platform, and by then no request carried the first one.
 */
async function expectNothingSentFor(s: Shop, orderId: string): Promise<void> {
  const control = bigOrderId();
  await send(api.url, s.shop.credentials.ingest_key, db, s.storeId, [
    purchase(randomUUID(), Date.now() - HOUR, control, 12),
  ]);
  for (const platform of ['meta', 'google', 'tiktok'] as const) await delivered(platform, control);
  expect(fake.requests.filter((r) => r.eventIds.includes(orderId))).toEqual([]);
  expect(await deadLetters(s.storeId)).toEqual([]);
}

describe('what is not sent', () => {
  it('nothing for a buyer who withheld consent, counted', async () => {
    const s = await shopWithDestinations();
    const before = await metricValue(pipeline.metrics.adConversions, { outcome: 'consent_withheld' });
    const orderId = bigOrderId();
    await pushOrder(
      api.url,
      s.shop.credentials.ingest_key,
      db,
      s.storeId,
      order({
        id: orderId,
        created_at: iso(Date.now() - HOUR),
        updated_at: iso(Date.now() - HOUR),
        total_price: '45.00',
        email: 'consent@example.com',
        landing_site: '/?fbclid=IwAR-consent',
        note_attributes: [{ name: CONSENT_ATTRIBUTE, value: 'denied' }],
      }),
    );
    await waitFor(
      () => metricValue(pipeline.metrics.adConversions, { outcome: 'consent_withheld' }),
      (n) => n === before + 1,
    );
    await expectNothingSentFor(s, orderId);
  });

  it('nothing for a purchase older than 7 days (a late order push), counted', async () => {
    const s = await shopWithDestinations();
    const before = await metricValue(pipeline.metrics.adConversions, { outcome: 'too_old' });
    const orderId = bigOrderId();
    const at = iso(Date.now() - 8 * 24 * HOUR);
    await pushOrder(
      api.url,
      s.shop.credentials.ingest_key,
      db,
      s.storeId,
      order({
        id: orderId,
        created_at: at,
        updated_at: iso(Date.now()),
        total_price: '45.00',
        email: 'late@example.com',
      }),
    );
    await waitFor(
      () => metricValue(pipeline.metrics.adConversions, { outcome: 'too_old' }),
      (n) => n === before + 1,
    );
    await expectNothingSentFor(s, orderId);
  });
});

// ---------------------------------------------------------------------------------------------------------------

/** `store webhook ...` as a process, with optional stdin. */
const cli = (args: string[], input = '') => runScript('webhook-cli.ts', ['webhook', ...args], { SECRETS_KEY }, input);

describe('the CLI and the destination list', () => {
  it('refuses what is missing or malformed, naming the option, and stores nothing', async () => {
    const { store } = await createTestStore(db);
    const s = ['--store', store.store_id];
    const action = 'customers/1234567890/conversionActions/987654';
    const results = await Promise.all([
      cli(['add', ...s, '--kind', 'meta_capi', '--token', META_TOKEN]),
      cli(['add', ...s, '--kind', 'meta_capi', '--pixel', 'px-1', '--token', META_TOKEN]),
      cli(['add', ...s, '--kind', 'tiktok_events', '--pixel', 'C85O1JNV9S6R0CDU7VV0', '--token', 'short']),
      cli(['add', ...s, '--kind', 'google_ads', '--customer', '123-456-7890', '--conversion-action', action]),
      cli([
        'add',
        ...s,
        '--kind',
        'meta_capi',
        '--pixel',
        '1234567890123456',
        '--token',
        META_TOKEN,
        '--url',
        'https://x.example/',
      ]),
    ]);
    expect(results.map((r) => r.code)).toEqual([1, 1, 1, 1, 1]);
    expect(results.map((r) => r.stdout)).toEqual(['', '', '', '', '']);
    const errors = results.map((r) => r.stderr);
    expect(errors[0]).toMatch(/--pixel is required/);
    expect(errors[1]).toMatch(/--pixel: a Meta pixel id/);
    expect(errors[2]).toMatch(/--token: an access token/);
    expect(errors[3]).toMatch(/Google Ads connection/);
    expect(errors[4]).toMatch(/--url/);
    expect(errors.join('')).not.toContain(META_TOKEN);
    const [count] = await db.query<{ n: string }>(
      'test.no_destinations',
      'select count(*) as n from webhook_destinations where store_id = $1',
      [store.store_id],
    );
    expect(count!.n).toBe('0');
  });

  it('adds each kind with its token sealed and never printed, and lists them with their status', async () => {
    const { store, credentials } = await createTestStore(db);
    const s = ['--store', store.store_id];
    await upsertAdConnection(db, box, {
      storeId: store.store_id,
      kind: 'google',
      accountId: '1234567890',
      secrets: { developerToken: 'devtoken123', clientId: 'cid', clientSecret: 'csecret', refreshToken: 'rtoken' },
    });
    const add = async (args: string[], input = ''): Promise<Record<string, unknown>> => {
      const r = await cli(['add', ...s, ...args], input);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      expect(r.stdout).not.toContain(META_TOKEN);
      expect(r.stdout).not.toContain(TIKTOK_TOKEN);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    const meta = await add(
      ['--kind', 'meta_capi', '--pixel', '1234567890123456', '--token', '-', '--test-event-code', 'TEST123'],
      META_TOKEN,
    );
    const google = await add([
      '--kind',
      'google_ads',
      '--customer',
      '123-456-7890',
      '--conversion-action',
      'customers/1234567890/conversionActions/987654',
    ]);
    const tiktok = await add(['--kind', 'tiktok_events', '--pixel', 'C85O1JNV9S6R0CDU7VV0', '--token', TIKTOK_TOKEN]);
    expect(meta).toMatchObject({
      id: expect.stringMatching(/^wd_/),
      kind: 'meta_capi',
      pixelId: '1234567890123456',
      testEventCode: 'TEST123',
    });
    expect(google).toMatchObject({ id: expect.stringMatching(/^wd_/), kind: 'google_ads', customerId: '1234567890' });
    expect(tiktok).toMatchObject({
      id: expect.stringMatching(/^wd_/),
      kind: 'tiktok_events',
      pixelCode: 'C85O1JNV9S6R0CDU7VV0',
    });

    // Sealed at rest: the row holds neither token, and each opens only as its own row's.
    const rows = await db.query<{ destination_id: string; api_key_sealed: string | null; settings: unknown }>(
      'test.ad_rows',
      'select destination_id, api_key_sealed, settings from webhook_destinations where store_id = $1',
      [store.store_id],
    );
    expect(JSON.stringify(rows)).not.toContain(META_TOKEN);
    expect(JSON.stringify(rows)).not.toContain(TIKTOK_TOKEN);
    const sealedOf = (id: unknown) => rows.find((r) => r.destination_id === id)!.api_key_sealed;
    expect(sealedOf(google.id)).toBeNull();
    expect(sealedOf(meta.id)).toEqual(expect.any(String));

    const list = await cli(['list', ...s]);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain(META_TOKEN);
    expect(list.stdout).not.toContain(TIKTOK_TOKEN);
    for (const d of [meta, google, tiktok]) expect(list.stdout).toContain(String(d.id));

    const res = await fetch(`${api.url}/v2-4-2/api/get/connection/destination`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ApiKey: credentials.api_key },
      body: '{}',
    });
    expect(res.status).toBe(200);
    const records = ((await res.json()) as { data: { records: Array<Record<string, unknown>> } }).data.records;
    const byId = new Map(records.map((r) => [r.id, r]));
    const listed = {
      status: 'enabled',
      server_config: { purchase: true },
      last_delivery_at: null,
      failing: false,
      dead_letters: 0,
    };
    expect(byId.get(meta.id)).toEqual({
      id: meta.id,
      platform_type: 'meta_capi',
      name: 'Meta pixel 1234567890123456 (test events)',
      ...listed,
    });
    expect(byId.get(google.id)).toEqual({
      id: google.id,
      platform_type: 'google_ads',
      name: 'Google Ads 1234567890 987654',
      ...listed,
    });
    expect(byId.get(tiktok.id)).toEqual({
      id: tiktok.id,
      platform_type: 'tiktok_events',
      name: 'TikTok pixel C85O1JNV9S6R0CDU7VV0',
      ...listed,
    });
    expect(JSON.stringify(records)).not.toContain(META_TOKEN);
  });
});

// ---------------------------------------------------------------------------------------------------------------

/** The store's queued purchases (subjects `adc.<store>.*`) whose bytes hold `needle`, read by the server's lookup. */
async function queuedHolding(storeId: string, needle: string): Promise<number> {
  let found = 0;
  for (let seq = 1; ;) {
    const answer = (
      await pipeline.nc.request(
        '$JS.API.STREAM.MSG.GET.WEBHOOKS',
        JSON.stringify({ next_by_subj: `adc.${storeId}.>`, seq }),
      )
    ).json<{ message?: { seq: number; data?: string } }>();
    if (!answer.message) return found;
    if (Buffer.from(answer.message.data ?? '', 'base64').includes(needle)) found++;
    seq = answer.message.seq + 1;
  }
}

describe('erasure', () => {
  it("takes the buyer's purchases still queued for the platforms out of the stream", async () => {
    const s = await shopWithDestinations();
    let release: () => void = () => undefined;
    fake.hold = new Promise<void>((resolve) => (release = resolve));
    try {
      const orderId = bigOrderId();
      const email = `erase.${randomUUID().slice(0, 8)}@example.com`;
      await send(api.url, s.shop.credentials.ingest_key, db, s.storeId, [
        purchase(randomUUID(), Date.now() - HOUR, orderId, 15, undefined, email),
      ]);
      // The worker sent each platform its request and waits for the answers: the messages are still stored.
      await waitFor(
        () =>
          Promise.resolve(new Set(fake.requests.filter((r) => r.eventIds.includes(orderId)).map((r) => r.platform))),
        (platforms) => platforms.size === 3,
      );
      expect(await queuedHolding(s.storeId, email)).toBe(3);

      const res = await fetch(`${api.url}/v2-4-2/api/privacy/erase`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ApiKey: s.shop.credentials.api_key },
        body: JSON.stringify({ email }),
      });
      expect(res.status).toBe(200);
      const removed = ((await res.json()) as { data: { removed: Record<string, number> } }).data.removed;
      expect(removed.webhook_messages).toBe(3);
      expect(await queuedHolding(s.storeId, email)).toBe(0);
    } finally {
      release();
      fake.hold = null;
    }
  });
});
