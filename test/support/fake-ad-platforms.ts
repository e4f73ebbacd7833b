/**
 * A local stand-in for Meta, Google Ads and TikTok (node:http on 127.0.0.1, port 0) that replays the recorded
 * responses of test/fixtures/{meta,google-ads,tiktok}. The recorded days are moved so that the latest one is
 * the last day asked for. Hooks: `fail` (an expired token, a 429 once, a 5xx outage), `restate` (change a
 * body before it is sent: a restated day) and `generate` (a body of one's own, for the bench). Meta's long ranges
 * run as asynchronous reports: started, reported running once, then completed, then paged.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export type FakePlatform = 'meta' | 'google' | 'tiktok';
/** `report-failed`: Meta's asynchronous reports end in `Job Failed` (Meta only). */
export type FakeFailure = 'expired' | 'rate-limit-once' | 'outage' | 'report-failed' | null;

const FIXTURES = path.join(__dirname, '..', 'fixtures');
const fixture = (p: string): string => readFileSync(path.join(FIXTURES, p), 'utf8');

/** The latest day in each platform's recorded rows. */
const LATEST: Record<FakePlatform, string> = { meta: '2023-06-02', google: '2024-06-02', tiktok: '2024-01-02' };

const DAY_MS = 86_400_000;
/** The report run id of the recorded asynchronous report; each report started gets the next ones. */
const RUN_ID = 1128003977936306;
const dayMs = (d: string): number => Date.parse(`${d}T00:00:00Z`);

/** Moves every YYYY-MM-DD in `text` by whole days so that `latest` becomes `until`. */
function redate(text: string, latest: string, until: string): string {
  const shift = dayMs(until) - dayMs(latest);
  return text.replace(/\b(\d{4}-\d{2}-\d{2})\b/g, (d) => new Date(dayMs(d) + shift).toISOString().slice(0, 10));
}

export interface FakeRequest {
  platform: FakePlatform | 'oauth';
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeAdPlatforms {
  /** Base URL for META_GRAPH_URL, GOOGLE_ADS_API_URL, TIKTOK_API_URL (all served by one server). */
  url: string;
  /** GOOGLE_OAUTH_TOKEN_URL. */
  tokenUrl: string;
  requests: FakeRequest[];
  fail: Record<FakePlatform, FakeFailure>;
  /** Changes a parsed response body before it is sent. */
  restate: Partial<Record<FakePlatform, (body: unknown) => unknown>>;
  /** Meta's asynchronous reports started, by report run id: their range, and how often their status was asked. */
  metaReports: Map<string, { timeRange: string; polls: number }>;
  /** Answers with a body of one's own for the asked range (page 1 only for Meta and TikTok). */
  generate: Partial<Record<FakePlatform, (from: string, to: string) => unknown>>;
  close(): Promise<void>;
}

export async function startFakeAdPlatforms(): Promise<FakeAdPlatforms> {
  const state: Omit<FakeAdPlatforms, 'url' | 'tokenUrl' | 'close'> = {
    requests: [],
    metaReports: new Map(),
    fail: { meta: null, google: null, tiktok: null },
    restate: {},
    generate: {},
  };
  let base = '';

  const send = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

  /** Answers a failure hook; true when it did. */
  function failed(platform: FakePlatform, res: http.ServerResponse): boolean {
    const f = state.fail[platform];
    if (f === null || f === 'report-failed') return false;
    if (f === 'rate-limit-once') state.fail[platform] = null;
    if (f === 'outage') {
      send(res, 503, '<html><body>503 Service Unavailable</body></html>', { 'content-type': 'text/html' });
      return true;
    }
    if (platform === 'meta') {
      if (f === 'expired') send(res, 400, fixture('meta/error-expired-token.json'));
      else {
        const usage = {
          '798085168510957': [{ type: 'ads_insights', call_count: 100, estimated_time_to_regain_access: 0 }],
        };
        send(res, 400, fixture('meta/error-rate-limit.json'), { 'x-business-use-case-usage': JSON.stringify(usage) });
      }
    } else if (platform === 'google') {
      if (f === 'expired') send(res, 401, fixture('google-ads/error-unauthenticated.json'));
      else send(res, 429, fixture('google-ads/error-resource-exhausted.json'));
    } else {
      send(res, 200, fixture(f === 'expired' ? 'tiktok/error-expired-token.json' : 'tiktok/error-rate-limit.json'));
    }
    return true;
  }

  /** A page of Meta Insights rows for a `time_range`, `after` the cursor of page 1 for page 2. */
  function metaInsights(res: http.ServerResponse, url: URL, timeRange: string): void {
    const range = JSON.parse(timeRange) as { since?: string; until?: string };
    const until = range.until ?? LATEST.meta;
    const gen = state.generate.meta;
    if (gen) return send(res, 200, gen(range.since ?? until, until));
    if (url.searchParams.get('after') === 'NzIZD')
      return reply('meta', res, fixture('meta/insights-page2.json'), until);
    const next = new URL(url.toString());
    next.searchParams.set('after', 'NzIZD');
    reply('meta', res, fixture('meta/insights-page1.json').replace('{{NEXT}}', next.toString()), until);
  }

  function reply(platform: FakePlatform, res: http.ServerResponse, text: string, until: string): void {
    let body: unknown = JSON.parse(redate(text, LATEST[platform], until));
    const restate = state.restate[platform];
    if (restate) body = restate(body);
    send(res, 200, body);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', base);
      const p = url.pathname;
      const record = (platform: FakeRequest['platform']): void => {
        state.requests.push({ platform, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      };
      try {
        if (p === '/token' && req.method === 'POST') {
          record('oauth');
          const form = new URLSearchParams(body);
          if (state.fail.google === 'expired' || form.get('grant_type') !== 'refresh_token') {
            return send(res, 400, fixture('google-ads/oauth-invalid-grant.json'));
          }
          return send(res, 200, fixture('google-ads/oauth-token.json'));
        }
        if (/^\/v[\d.]+\/act_[^/]+\/insights$/.test(p)) {
          record('meta');
          if (failed('meta', res)) return;
          if (req.method === 'POST') {
            // An asynchronous report: its range is in the form body; polled, then paged like the synchronous one.
            const id = String(RUN_ID + state.metaReports.size + 1);
            state.metaReports.set(id, { timeRange: new URLSearchParams(body).get('time_range') ?? '{}', polls: 0 });
            return send(res, 200, fixture('meta/async-report-start.json').replace(String(RUN_ID), id));
          }
          return metaInsights(res, url, url.searchParams.get('time_range') ?? '{}');
        }
        const run = /^\/v[\d.]+\/(\d+)(\/insights)?$/.exec(p);
        if (run && state.metaReports.has(run[1]!)) {
          record('meta');
          if (failed('meta', res)) return;
          const report = state.metaReports.get(run[1]!)!;
          if (run[2]) return metaInsights(res, url, report.timeRange);
          const status = report.polls++ === 0 ? 'running' : 'completed';
          const text = fixture(`meta/async-report-${status}.json`).replace(String(RUN_ID), run[1]!);
          return send(
            res,
            200,
            state.fail.meta === 'report-failed' ? text.replace(/"Job (Running|Completed)"/, '"Job Failed"') : text,
          );
        }
        if (/^\/v\d+\/customers\/\d+\/googleAds:searchStream$/.test(p) && req.method === 'POST') {
          record('google');
          if (
            req.headers.authorization !== 'Bearer ya29.a0AfB_byC-fake-access-token' ||
            !req.headers['developer-token']
          ) {
            return send(res, 401, fixture('google-ads/error-unauthenticated.json'));
          }
          if (failed('google', res)) return;
          const query = (JSON.parse(body) as { query?: string }).query ?? '';
          const m = /BETWEEN '(\d{4}-\d{2}-\d{2})' AND '(\d{4}-\d{2}-\d{2})'/.exec(query);
          const until = m?.[2] ?? LATEST.google;
          const gen = state.generate.google;
          if (gen) return send(res, 200, gen(m?.[1] ?? until, until));
          return reply('google', res, fixture('google-ads/search-stream.json'), until);
        }
        if (p === '/open_api/v1.3/report/integrated/get/') {
          record('tiktok');
          if (!req.headers['access-token']) return send(res, 200, fixture('tiktok/error-expired-token.json'));
          if (failed('tiktok', res)) return;
          const until = url.searchParams.get('end_date') ?? LATEST.tiktok;
          const gen = state.generate.tiktok;
          if (gen) return send(res, 200, gen(url.searchParams.get('start_date') ?? until, until));
          const page = url.searchParams.get('page') === '2' ? 2 : 1;
          return reply('tiktok', res, fixture(`tiktok/report-page${page}.json`), until);
        }
        if (p === '/open_api/v1.3/advertiser/info/') {
          record('tiktok');
          return send(res, 200, { code: 0, message: 'OK', data: { list: [{ currency: 'USD' }] } });
        }
        send(res, 404, { error: `no route ${req.method} ${p}` });
      } catch (err) {
        send(res, 500, { error: (err as Error).message });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url: base,
    tokenUrl: `${base}/token`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The day `n` days before `day`. */
export function daysBefore(day: string, n: number): string {
  return new Date(dayMs(day) - n * DAY_MS).toISOString().slice(0, 10);
}
