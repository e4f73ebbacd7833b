/**
 * Each client against the recorded responses, replayed by the fake platform server: the values are the
 * recorded ones, summed by hand here; paging, retries and expired tokens by the server's hooks.
 */
import { startFakeAdPlatforms, type FakeAdPlatforms } from '../../../../test/support/fake-ad-platforms';
import { adPlatformClients, type AdPlatformClients } from './index';
import { AdPlatformError, DEFAULT_AD_PLATFORM_CONFIG, type AdAccountCredentials, type AdRow } from './types';

const META: AdAccountCredentials = { kind: 'meta', account: 'act_798085168510957', token: 'meta-token' };
const GOOGLE: AdAccountCredentials = {
  kind: 'google',
  customer: '123-321-321',
  loginCustomer: '999-000-1111',
  developerToken: 'dev-token',
  clientId: 'client-id',
  clientSecret: 'client-secret',
  refreshToken: 'refresh-token',
};
const TIKTOK: AdAccountCredentials = { kind: 'tiktok', advertiser: '872746382648', token: 'tiktok-token' };

const sum = (rows: AdRow[], f: (r: AdRow) => number): number => rows.reduce((n, r) => n + f(r), 0);

describe('ad platform clients against recorded responses', () => {
  let fake: FakeAdPlatforms;
  let clients: AdPlatformClients;
  const sleeps: number[] = [];

  beforeEach(async () => {
    fake = await startFakeAdPlatforms();
    sleeps.length = 0;
    clients = adPlatformClients(
      {
        ...DEFAULT_AD_PLATFORM_CONFIG,
        metaGraphUrl: fake.url,
        googleAdsApiUrl: fake.url,
        googleOauthTokenUrl: fake.tokenUrl,
        tiktokApiUrl: fake.url,
        timeoutMs: 10_000,
        maxRetries: 2,
        maxRetryDelayMs: 5_000,
      },
      { sleep: (ms) => (sleeps.push(ms), Promise.resolve()) },
    );
  });
  afterEach(() => fake.close());

  it('Meta: two pages, numbers from strings, purchases by the omni_purchase rule', async () => {
    const rows = await clients.meta.pullDailyAdRows(META, '2026-11-25', '2026-12-01');
    expect(rows.map((r) => r.day)).toEqual(['2026-11-30', '2026-12-01']);
    // 14.35 + 8.53 = 22.88; impressions 185 + 171; clicks 9 + 7.
    expect(sum(rows, (r) => r.spendMicros)).toBe(22_880_000);
    expect(sum(rows, (r) => r.impressions)).toBe(356);
    expect(sum(rows, (r) => r.clicks)).toBe(16);
    expect(rows[0]).toMatchObject({
      accountId: 'act_798085168510957',
      campaignId: '23854404676180548',
      campaignName: 'zzzzzNew - AIA - Advertised Offers',
      adsetId: '23854404706320548',
      adId: '23854695759200548',
      purchases: 2,
      purchaseValueMicros: 129_900_000,
      currency: 'USD',
    });
    const asked = fake.requests.filter((r) => r.platform === 'meta');
    expect(asked).toHaveLength(2);
    const q = new URL(asked[0]!.url, fake.url).searchParams;
    expect(q.get('level')).toBe('ad');
    expect(q.get('time_increment')).toBe('1');
    expect(JSON.parse(q.get('time_range')!)).toEqual({ since: '2026-11-25', until: '2026-12-01' });
    expect(asked[0]!.headers.authorization).toBe('Bearer meta-token');
  });

  it('Meta: a long range runs as an asynchronous report, polled until done, then paged', async () => {
    const rows = await clients.meta.pullDailyAdRows(META, '2026-09-03', '2026-12-01');
    expect(rows.map((r) => r.day)).toEqual(['2026-11-30', '2026-12-01']);
    expect(sum(rows, (r) => r.spendMicros)).toBe(22_880_000);
    const asked = fake.requests.filter((r) => r.platform === 'meta');
    expect(asked.map((r) => r.method)).toEqual(['POST', 'GET', 'GET', 'GET', 'GET']);
    // The report is asked for with the synchronous query's parameters, in the form body.
    const form = new URLSearchParams(asked[0]!.body);
    expect(form.get('level')).toBe('ad');
    expect(form.get('time_increment')).toBe('1');
    expect(JSON.parse(form.get('time_range')!)).toEqual({ since: '2026-09-03', until: '2026-12-01' });
    const [run] = [...fake.metaReports.keys()];
    expect(new URL(asked[1]!.url, fake.url).pathname).toBe(`/v21.0/${run}`);
    expect(new URL(asked[3]!.url, fake.url).pathname).toBe(`/v21.0/${run}/insights`);
    expect(asked.every((r) => r.headers.authorization === 'Bearer meta-token')).toBe(true);
    // One wait between the running and the completed status.
    expect(sleeps).toEqual([DEFAULT_AD_PLATFORM_CONFIG.metaAsyncPollMs]);
  });

  it('Meta: a failed or overdue asynchronous report fails the pull, transient, naming the run', async () => {
    fake.fail.meta = 'report-failed';
    const failed = await clients.meta.pullDailyAdRows(META, '2026-09-03', '2026-12-01').catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(AdPlatformError);
    expect((failed as AdPlatformError).auth).toBe(false);
    expect((failed as Error).message).toMatch(/^meta: async report \d+: Job Failed$/);
    fake.fail.meta = null;
    const impatient = adPlatformClients({
      ...DEFAULT_AD_PLATFORM_CONFIG,
      metaGraphUrl: fake.url,
      metaAsyncTimeoutMs: 1,
    });
    const overdue = await impatient.meta.pullDailyAdRows(META, '2026-09-03', '2026-12-01').catch((e: unknown) => e);
    expect((overdue as Error).message).toMatch(/async report \d+ not done after 0 s \(Job Running, 50 %\)/);
  });

  it('Google Ads: the refresh-token exchange, then exact cost_micros', async () => {
    const rows = await clients.google.pullDailyAdRows(GOOGLE, '2026-11-25', '2026-12-01');
    // 1061083620 + 1109219997 + 1164811394 micros, exactly.
    expect(sum(rows, (r) => r.spendMicros)).toBe(3_335_115_011);
    expect(sum(rows, (r) => r.impressions)).toBe(3120 + 3410 + 2980);
    expect(sum(rows, (r) => r.clicks)).toBe(204 + 220 + 206);
    expect(sum(rows, (r) => r.purchaseValueMicros)).toBe(152_400_000 + 49_990_000);
    expect(rows[2]).toMatchObject({
      day: '2026-12-01',
      accountId: '123321321',
      campaignId: '20012',
      adsetId: '30022',
      adId: '40032',
      currency: 'USD',
    });
    const token = fake.requests.find((r) => r.platform === 'oauth')!;
    expect(Object.fromEntries(new URLSearchParams(token.body))).toEqual({
      grant_type: 'refresh_token',
      client_id: 'client-id',
      client_secret: 'client-secret',
      refresh_token: 'refresh-token',
    });
    const search = fake.requests.find((r) => r.platform === 'google')!;
    expect(search.url).toBe(
      `/${DEFAULT_AD_PLATFORM_CONFIG.googleAdsApiVersion}/customers/123321321/googleAds:searchStream`,
    );
    expect(search.headers['developer-token']).toBe('dev-token');
    expect(search.headers['login-customer-id']).toBe('9990001111');
    expect(JSON.parse(search.body).query).toContain(
      "FROM ad_group_ad WHERE segments.date BETWEEN '2026-11-25' AND '2026-12-01'",
    );
  });

  it('TikTok: page paging up to total_page, the Access-Token header', async () => {
    const rows = await clients.tiktok.pullDailyAdRows(TIKTOK, '2026-11-25', '2026-12-01');
    expect(rows.map((r) => r.day)).toEqual(['2026-11-30', '2026-12-01']);
    expect(sum(rows, (r) => r.spendMicros)).toBe(40_000_000);
    expect(sum(rows, (r) => r.impressions)).toBe(11_660);
    expect(sum(rows, (r) => r.clicks)).toBe(138);
    expect(rows[0]).toMatchObject({
      campaignId: '1714125042508817',
      adsetId: '1714125049901106',
      adId: '11111111',
      currency: 'USD',
    });
    const asked = fake.requests.filter((r) => r.platform === 'tiktok');
    expect(asked.map((r) => new URL(r.url, fake.url).searchParams.get('page'))).toEqual(['1', '2']);
    const q = new URL(asked[0]!.url, fake.url).searchParams;
    expect(q.get('data_level')).toBe('AUCTION_AD');
    expect(JSON.parse(q.get('dimensions')!)).toEqual(['ad_id', 'stat_time_day']);
    expect(asked[0]!.headers['access-token']).toBe('tiktok-token');
  });

  it.each([
    ['meta', META, /Session has expired.*code 190/],
    ['google', GOOGLE, /invalid_grant: Token has been expired or revoked/],
    ['tiktok', TIKTOK, /access token is invalid.*code 40105/],
  ] as const)('%s: an expired token is an auth error with the platform message', async (kind, account, message) => {
    fake.fail[kind] = 'expired';
    const err = await clients[kind].pullDailyAdRows(account, '2026-11-25', '2026-12-01').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdPlatformError);
    expect((err as AdPlatformError).auth).toBe(true);
    expect((err as Error).message).toMatch(message);
  });

  it.each([
    ['meta', META, 16],
    ['google', GOOGLE, 630],
    ['tiktok', TIKTOK, 138],
  ] as const)('%s: a rate limit is waited out and retried', async (kind, account, clicks) => {
    fake.fail[kind] = 'rate-limit-once';
    const rows = await clients[kind].pullDailyAdRows(account, '2026-11-25', '2026-12-01');
    expect(sum(rows, (r) => r.clicks)).toBe(clicks);
    expect(sleeps).toHaveLength(1);
    // Google says how long: 1 s.
    if (kind === 'google') expect(sleeps[0]).toBe(1000);
  });

  it('an outage fails after the retries, transient, with the status', async () => {
    fake.fail.tiktok = 'outage';
    const err = await clients.tiktok.pullDailyAdRows(TIKTOK, '2026-11-25', '2026-12-01').catch((e: unknown) => e);
    expect((err as AdPlatformError).auth).toBe(false);
    expect((err as Error).message).toMatch(/HTTP 503.*after 3 attempts/);
  });
});
