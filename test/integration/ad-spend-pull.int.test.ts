/**
 * The spend pull end to end against the fake ad platforms (recorded real responses): three connected accounts,
 * `npm run spend -- pull`, and the ad report shows exactly the recorded spend, impressions and clicks (summed by
 * hand below); a restated yesterday and a dropped row replace what was there, nothing doubles; an expired token
 * marks the connection failing with the platform's message and keeps the rows until a good pull recovers; a 429
 * is waited out; an outage leaves the rows.
 */
import request from 'supertest';
import { jetstreamManager } from '@nats-io/jetstream';
import { EVENTS_STREAM, eventSubject, SPEND_DAY_SUBJECT_NAME } from '../../contracts/src/subjects';
import type { AdRecord } from '../../contracts/src/ads';
import type { DataHealth } from '../../contracts/src/dashboard';
import type { SourceConnectionRecord } from '../../contracts/src/settings';
import type { RunningApi } from '../../query-api/src/app/api';
import type { RunningPipeline } from '../../pipeline/src/app/daemon';
import { loadPipelineConfig } from '../../pipeline/src/app/config';
import { standardJobs } from '../../pipeline/src/app/standard-jobs';
import { withJobLock } from '../../pipeline/src/jobs/scheduler';
import { silentLogger } from '../../runtime/logger';
import { listAdConnections, upsertAdConnection } from '../../storage/ad-connections';
import type { Db } from '../../storage/db';
import { createSecretBox, generateSecretsKey, parseSecretsKey } from '../../storage/secret-box';
import { startFakeAdPlatforms, type FakeAdPlatforms } from '../support/fake-ad-platforms';
import {
  baseEnv,
  createTestStore,
  pacer,
  startTestApi,
  startTestPipeline,
  testDb,
  waitFor,
  type TestStore,
} from '../support/harness';
import { metricValue } from '../support/metrics';
import { runScript } from '../support/processes';

const SECRETS_KEY = generateSecretsKey();
const DAY = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

let db: Db;
let api: RunningApi;
let pipeline: RunningPipeline;
let fake: FakeAdPlatforms;
let shop: TestStore;

async function spend(args: string[]): Promise<{ code: number | null; out: Record<string, unknown>; stderr: string }> {
  const { code, stdout, stderr } = await runScript('spend.ts', args, {
    SECRETS_KEY,
    META_GRAPH_URL: fake.url,
    GOOGLE_ADS_API_URL: fake.url,
    GOOGLE_OAUTH_TOKEN_URL: fake.tokenUrl,
    TIKTOK_API_URL: fake.url,
    AD_PLATFORM_MAX_RETRIES: '1',
    AD_PLATFORM_MAX_RETRY_DELAY_MS: '5000',
    META_ASYNC_POLL_MS: '50',
  });
  return { code, out: stdout ? (JSON.parse(stdout) as Record<string, unknown>) : {}, stderr };
}

const paced = pacer();
async function byPlatform(): Promise<Record<string, Pick<AdRecord, 'spend' | 'impressions' | 'clicks'>>> {
  const res = await paced('ads', () =>
    request(api.url)
      .post('/v2-4-2/api/get/ad-analysis/list')
      .set('ApiKey', shop.credentials.api_key)
      .send({
        start_date: dayOf(Date.now() - 95 * DAY),
        end_date: dayOf(Date.now() + 2 * DAY),
        dimensions: ['platform'],
        model: 'last',
        goal: 'purchase',
        page: 1,
        page_size: 100,
      }),
  );
  expect(res.status).toBe(200);
  const records = (res.body as { data: { records: AdRecord[] } }).data.records;
  return Object.fromEntries(
    records.map((r) => [r.platform, { spend: r.spend, impressions: r.impressions, clicks: r.clicks }]),
  );
}

const settles = (want: Record<string, unknown>) =>
  waitFor(byPlatform, (got) => JSON.stringify(got) === JSON.stringify(want), 30_000, 200);

// The recorded responses, summed by hand. Meta: 14.35 + 8.53; 185 + 171; 9 + 7. Google: cost_micros 1061083620,
// 1109219997, 1164811394, each a whole number of cents once stored (1061.08 + 1109.22 + 1164.81); impressions
// 3120 + 3410 + 2980; clicks 204 + 220 + 206. TikTok: 20.00 + 20.00; 5830 + 5830; 69 + 69.
const RECORDED = {
  facebook: { spend: 22.88, impressions: 356, clicks: 16 },
  google: { spend: 3335.11, impressions: 9510, clicks: 630 },
  tiktok: { spend: 40, impressions: 11660, clicks: 138 },
};

beforeAll(async () => {
  db = testDb();
  fake = await startFakeAdPlatforms();
  api = await startTestApi();
  pipeline = await startTestPipeline();
  shop = await createTestStore(db, { timezone: 'UTC', currency: 'USD' });
  const box = createSecretBox(parseSecretsKey(SECRETS_KEY));
  const storeId = shop.store.store_id;
  await upsertAdConnection(db, box, {
    storeId,
    kind: 'meta',
    accountId: 'act_798085168510957',
    secrets: { token: 't' },
  });
  await upsertAdConnection(db, box, {
    storeId,
    kind: 'google',
    accountId: '1233213210',
    secrets: { developerToken: 'd', clientId: 'c', clientSecret: 's', refreshToken: 'r' },
  });
  await upsertAdConnection(db, box, { storeId, kind: 'tiktok', accountId: '872746382648', secrets: { token: 't' } });
});

afterAll(async () => {
  await pipeline.stop();
  await api.stop();
  await fake.close();
  await db.close();
});

/** Meta's requests since the `from`-th of the fake's, as method, path (report runs as `<run>`) and `?after`. */
const metaCalls = (from = 0): string[] =>
  fake.requests
    .slice(from)
    .filter((r) => r.platform === 'meta')
    .map((r) => {
      const u = new URL(r.url, fake.url);
      return `${r.method} ${u.pathname.replace(/\/\d{12,}/, '/<run>')}${u.searchParams.has('after') ? '?after' : ''}`;
    });

/** The store's ad spend day messages in the EVENTS stream, every partition. */
async function spendMessagesInStream(): Promise<number> {
  const subject = eventSubject(0, shop.store.store_id, SPEND_DAY_SUBJECT_NAME).split('.');
  subject[1] = '*';
  const jsm = await jetstreamManager(pipeline.nc);
  const info = await jsm.streams.info(EVENTS_STREAM, { subjects_filter: subject.join('.') });
  return Object.values(info.state.subjects ?? {}).reduce((a, n) => a + n, 0);
}

const statusOf = async (kind: string) =>
  (await listAdConnections(db, shop.store.store_id)).find((c) => c.kind === kind)!;

it('pulls the three accounts: the report shows exactly the recorded figures, a 90-day backfill first', async () => {
  const daysBefore = await metricValue(pipeline.metrics.pushesApplied, { kind: 'ad_spend' });
  const r = await spend(['pull', '--store', shop.store.store_id]);
  expect(r.code).toBe(0);
  const conns = r.out.connections as Array<{ kind: string; rows: number; days: number; from: string; to: string }>;
  expect(conns.map((c) => [c.kind, c.rows, c.days])).toEqual([
    ['meta', 2, 2],
    ['google', 3, 2],
    ['tiktok', 2, 2],
  ]);
  expect(Date.parse(conns[0]!.to) - Date.parse(conns[0]!.from)).toBe(89 * DAY);
  // Meta's 90 days ran as an asynchronous report: started, polled until done, then paged.
  expect(metaCalls()).toEqual([
    'POST /v21.0/act_798085168510957/insights',
    'GET /v21.0/<run>',
    'GET /v21.0/<run>',
    'GET /v21.0/<run>/insights',
    'GET /v21.0/<run>/insights?after',
  ]);
  await settles(RECORDED);
  expect(await statusOf('meta')).toMatchObject({ status: 'connected', lastRows: 2, lastDays: 2 });
  // One message per account and day with rows (two days each): six in the stream, which keeps one of each id,
  // and all applied (a redelivery on a busy machine is applied again, and counted again by
  // pipeline_push_messages_total, as a duplicate that changes nothing).
  expect(await spendMessagesInStream()).toBe(6);
  const applied = () => metricValue(pipeline.metrics.pushesApplied, { kind: 'ad_spend' });
  expect(await waitFor(applied, (n) => n >= daysBefore + 6, 10_000, 50)).toBeGreaterThanOrEqual(daysBefore + 6);
  // By campaign, ad set and ad: the recorded rows of each ad, summed by hand.
  const res = await paced('ads', () =>
    request(api.url)
      .post('/v2-4-2/api/get/ad-analysis/list')
      .set('ApiKey', shop.credentials.api_key)
      .send({
        start_date: dayOf(Date.now() - 95 * DAY),
        end_date: dayOf(Date.now() + 2 * DAY),
        dimensions: ['platform', 'campaign', 'ad_set', 'ad'],
        model: 'last',
        goal: 'purchase',
        page: 1,
        page_size: 100,
      }),
  );
  expect(res.status).toBe(200);
  const byAd = (res.body as { data: { records: AdRecord[] } }).data.records
    .map((r) => [r.platform, r.campaign, r.ad_set, r.ad, r.spend, r.impressions, r.clicks])
    .sort((a, b) => String(a[3]).localeCompare(String(b[3])));
  expect(byAd).toEqual(
    [
      // Google: ad 40031 on two days (1061.08 + 1109.22; 3120 + 3410; 204 + 220), ad 40032 on one.
      ['google', 'Search - Brand', 'Brand exact', 'Brand RSA', 2170.3, 6530, 424],
      ['google', 'Search - Generic', 'Generic broad', 'Generic RSA', 1164.81, 2980, 206],
      // Meta: one ad on two days (14.35 + 8.53; 185 + 171; 9 + 7).
      [
        'facebook',
        'zzzzzNew - AIA - Advertised Offers',
        'New Cayenne',
        'New - AIA - Advertised Offers - Cayenne',
        22.88,
        356,
        16,
      ],
      // TikTok: one ad on two days (20.00 twice; 5830 twice; 69 twice).
      [
        'tiktok',
        'Website Traffic20211020010104',
        'Ad Group20211020010107',
        'Optimized Version 4_202110201102_2021-10-20 11:02:00',
        40,
        11660,
        138,
      ],
    ].sort((a, b) => String(a[3]).localeCompare(String(b[3]))),
  );
});

it('a restated yesterday and a dropped row replace the earlier rows; pulling again never doubles', async () => {
  // Meta restates yesterday's 14.35 as 15.10; Google no longer reports today's row of ad 40032.
  fake.restate.meta = (b) => JSON.parse(JSON.stringify(b).replace('"spend":"14.35"', '"spend":"15.10"')) as unknown;
  fake.restate.google = (b) => {
    const batches = b as Array<{ results: Array<{ adGroupAd: { ad: { id: string } } }> }>;
    batches[0]!.results = batches[0]!.results.filter((x) => x.adGroupAd.ad.id !== '40032');
    return batches;
  };
  const calls = fake.requests.length;
  const r = await spend(['pull', '--store', shop.store.store_id, '--days', '7']);
  expect(r.code).toBe(0);
  // A week is asked for at once, no report run.
  expect(metaCalls(calls)).toEqual([
    'GET /v21.0/act_798085168510957/insights',
    'GET /v21.0/act_798085168510957/insights?after',
  ]);
  const restated = {
    facebook: { spend: 23.63, impressions: 356, clicks: 16 },
    google: { spend: 2170.3, impressions: 6530, clicks: 424 },
    tiktok: RECORDED.tiktok,
  };
  await settles(restated);
  // Each day of an account was replaced in one transaction: all its rows, the zeroed one included, come from one
  // stream message.
  const days = await db.query<{ platform: string; day: string; rows: string; messages: string }>(
    'test.spend_days',
    `select platform, day::text as day, count(*) as rows, count(distinct stream_seq) as messages
       from ad_spend where store_id = $1 group by platform, account_id, day order by platform, day`,
    [shop.store.store_id],
  );
  expect(days.some((d) => Number(d.rows) > 1)).toBe(true);
  expect(days.filter((d) => d.messages !== '1')).toEqual([]);
  const again = await spend(['pull', '--store', shop.store.store_id]);
  expect(again.code).toBe(0);
  expect((again.out.connections as Array<{ from: string; to: string }>)[0]!.from).toBe(dayOf(Date.now() - 6 * DAY));
  await settles(restated);
  fake.restate = {};
  await spend(['pull', '--store', shop.store.store_id]);
  await settles(RECORDED);
});

it('an expired token: failing with the platform message, rows kept, the next good pull recovers', async () => {
  fake.fail.tiktok = 'expired';
  const r = await spend(['pull', '--store', shop.store.store_id]);
  expect(r.code).toBe(1);
  const failed = (r.out.connections as Array<{ kind: string; error?: string }>).find((c) => c.kind === 'tiktok')!;
  expect(failed.error).toContain('The access token is invalid or has been revoked. (code 40105)');
  expect(await statusOf('tiktok')).toMatchObject({
    status: 'failing',
    lastError: expect.stringContaining('code 40105'),
  });
  expect(await statusOf('meta')).toMatchObject({ status: 'connected' });
  expect(await byPlatform()).toEqual(RECORDED);
  // The settings and data health say so, with the platform's message.
  const sources = await paced('sources', () =>
    request(api.url).post('/v2-4-2/api/get/connection/source').set('ApiKey', shop.credentials.api_key).send({}),
  );
  const records = (sources.body as { data: { records: SourceConnectionRecord[] } }).data.records;
  const tiktok = records.find((x) => x.platform_type === 'tiktok')!;
  expect(tiktok).toMatchObject({
    id: expect.stringMatching(/^ac_/),
    account_id: '872746382648',
    connected: false,
    pull: { kind: 'tiktok', status: 'failing', error: expect.stringContaining('code 40105'), rows: 2, days: 2 },
  });
  expect(records.filter((x) => x.platform_type === 'tiktok')).toHaveLength(1);
  expect(records.find((x) => x.platform_type === 'facebook')).toMatchObject({
    connected: true,
    pull: { status: 'connected', error: null },
  });
  const health = await paced('health', () =>
    request(api.url).post('/v2-4-2/api/get/data-health').set('ApiKey', shop.credentials.api_key).send({}),
  );
  expect((health.body as { data: DataHealth }).data.ad_connections).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ kind: 'tiktok', status: 'failing', error: expect.stringContaining('code 40105') }),
    ]),
  );

  fake.fail.tiktok = null;
  expect((await spend(['pull', '--store', shop.store.store_id])).code).toBe(0);
  expect(await statusOf('tiktok')).toMatchObject({ status: 'connected', lastError: null });
  await settles(RECORDED);
});

it('a 429 is waited out and retried; a 5xx outage leaves the rows', async () => {
  const before = fake.requests.filter((x) => x.platform === 'google').length;
  fake.fail.google = 'rate-limit-once';
  expect((await spend(['pull', '--store', shop.store.store_id])).code).toBe(0);
  expect(fake.requests.filter((x) => x.platform === 'google').length - before).toBe(2);

  fake.fail.meta = 'outage';
  const r = await spend(['pull', '--store', shop.store.store_id]);
  expect(r.code).toBe(1);
  const failed = (r.out.connections as Array<{ kind: string; error?: string }>).find((c) => c.kind === 'meta')!;
  expect(failed.error).toMatch(/HTTP 503/);
  fake.fail.meta = null;
  await settles(RECORDED);
  expect(await byPlatform()).toEqual(RECORDED);
});

it('the scheduled job pulls every store, one replica at a time, with the daemon configuration', async () => {
  const config = loadPipelineConfig(
    baseEnv({
      SECRETS_KEY,
      META_GRAPH_URL: fake.url,
      GOOGLE_ADS_API_URL: fake.url,
      GOOGLE_OAUTH_TOKEN_URL: fake.tokenUrl,
      TIKTOK_API_URL: fake.url,
      META_ASYNC_POLL_MS: '50',
    }),
  );
  const job = standardJobs(db, config, silentLogger(), pipeline.metrics, pipeline.nc).find(
    (j) => j.name === 'spend-pull',
  )!;
  expect(job.cron).toBe('7 * * * *');
  const before = fake.requests.length;
  const startedAt = (await db.query<{ now: Date }>('test.now', 'select now()'))[0]!.now.getTime();
  // While one replica holds the lock, another does not run the job.
  const [first, second] = await Promise.all([withJobLock(db, job.name, job.run), withJobLock(db, job.name, job.run)]);
  expect([first.ran, second.ran].sort()).toEqual([false, true]);
  const ran = first.ran ? first : second;
  // Every store's connections: other test files leave some in this database, sealed under their own SECRETS_KEY
  // (their pulls fail here). This store's three are pulled again and succeed: 7 rows.
  const result = ran.result as { connections: number; rows: number; failed: number };
  expect(result.connections - result.failed).toBeGreaterThanOrEqual(3);
  for (const kind of ['meta', 'google', 'tiktok']) {
    const c = await statusOf(kind);
    expect({ kind, lastError: c.lastError, pulledInThisRun: c.lastPullAt!.getTime() >= startedAt }).toEqual({
      kind,
      lastError: null,
      pulledInThisRun: true,
    });
  }
  expect(result.rows).toBeGreaterThanOrEqual(7);
  expect(fake.requests.length).toBeGreaterThan(before);
  await settles(RECORDED);
});
