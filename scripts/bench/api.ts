/**
 * `npm run bench -- api`: latency and throughput of get-list (3 dimensions, 90-day range) over a store
 * loaded with demo data (1 million events by default), alone and while ingestion runs; then of the web
 * funnel (3 dimensions, 90 days: exact distinct persons per step) and of the product list over the same store.
 * Latency is measured one request at a time (what a caller waits); throughput with `--concurrency` requests
 * in flight, which on a small machine saturates the cores, so its latencies include queueing.
 * The rate limit is 5 requests/s per key and operation, so the load generator spreads its requests over
 * many API keys of the store (created for the run), as many consumers of one store would. Each phase also gives
 * the API's own account of it from its metrics (`server`, see `serverSide`), and where its slowest requests
 * waited, from each answer's Server-Timing (`slowest`, see `slowestSplit`).
 */
import { randomBytes } from 'node:crypto';
import { GOALS, MODELS } from '../../contracts/src/attribution';
import { digestCredential } from '../../storage/credentials';
import { planDemo } from '../demo/generate';
import { pushDemo } from '../demo/push';
import { growthByLabel, pushPaced } from './pipeline';
import { parseServerTiming } from '../../query-api/src/app/request-timing';
import { percentile, scrapeMetrics, startBenchEnv, waitForCommitted } from './bench-env';

export interface ApiBenchOptions {
  events: number;
  seconds: number;
  /** Requests in flight in the throughput phases (the latency phases send one at a time). */
  concurrency: number;
  /** Events/s pushed through the API during the second phase. */
  ingestRate: number;
}

const DIMENSION_SETS = [
  ['campaign', 'channel', 'source'],
  ['channel', 'source', 'medium'],
  ['source', 'medium', 'landing_page'],
];

interface Phase {
  requests: number;
  errors: number;
  requests_per_s: number;
  latency_ms: { p50: number; p90: number; p99: number; max: number };
  server: ServerSide;
  slowest: SlowestSplit | null;
}

/** One answered request: what the client waited, and the API's Server-Timing of it. */
export interface TimedRequest {
  clientMs: number;
  appMs: number;
  dbMs: number;
}

/**
 * Where the slowest requests of a phase waited, request by request (the API's Server-Timing against the client's
 * latency): in the database (`db`), in the API's own work (`app` minus `db`), or before the API read the request
 * or after it answered (`client` minus `app`). Means over the slowest 1 % (at least one request), beside the
 * same means over every request.
 */
export interface SlowestSplit {
  requests: number;
  slowest: { client_ms: number; app_ms: number; db_ms: number };
  all: { client_ms: number; app_ms: number; db_ms: number };
}

export function slowestSplit(timed: readonly TimedRequest[], share = 0.01): SlowestSplit | null {
  if (timed.length === 0) return null;
  const bySlowest = [...timed].sort((a, b) => b.clientMs - a.clientMs);
  const mean = (rs: readonly TimedRequest[]) => {
    const avg = (f: (r: TimedRequest) => number) => Number((rs.reduce((s, r) => s + f(r), 0) / rs.length).toFixed(1));
    return { client_ms: avg((r) => r.clientMs), app_ms: avg((r) => r.appMs), db_ms: avg((r) => r.dbMs) };
  };
  const n = Math.max(1, Math.round(timed.length * share));
  return { requests: n, slowest: mean(bySlowest.slice(0, n)), all: mean(timed) };
}

/** What the API measured of a phase: its mean time per answered request and per statement, by tag. */
export interface ServerSide {
  request_ms_mean: number | null;
  statement_ms_mean: Record<string, number>;
}

/** Mean milliseconds per observation of each series of a histogram that grew between two scrapes, by labels. */
function meansByLabels(before: string, after: string, histogram: string): Map<string, number> {
  const grown = (part: 'sum' | 'count') =>
    growthByLabel(before, after, new RegExp(`^${histogram}_${part}\\{([^}]*)\\} (\\S+)$`, 'gm'));
  const sums = grown('sum');
  const means = new Map<string, number>();
  for (const [labels, count] of grown('count')) {
    if (count > 0) means.set(labels, Number(((1000 * (sums.get(labels) ?? 0)) / count).toFixed(1)));
  }
  return means;
}

/**
 * The API's own account of a phase, from its metrics scraped before and after it: the mean time from reading a
 * request of the operation at `path` to its answer, and the mean time of each statement tag it ran (those of the
 * ingestion running beside it included). A latency the client sees then splits into the database's part, the
 * API's and the wait before the API reads the request.
 */
export function serverSide(before: string, after: string, path: string): ServerSide {
  const answered = [...meansByLabels(before, after, 'http_request_duration_seconds')].filter(
    ([labels]) => labels.includes(`/${path}"`) && labels.includes('status="200"'),
  );
  const statements = [...meansByLabels(before, after, 'api_db_query_duration_seconds')].filter(([labels]) =>
    labels.includes('ok="true"'),
  );
  return {
    request_ms_mean: answered.length === 1 ? answered[0]![1] : null,
    statement_ms_mean: Object.fromEntries(
      statements.map(([labels, ms]): [string, number] => [/tag="([^"]+)"/.exec(labels)?.[1] ?? labels, ms]),
    ),
  };
}

/** One request of a phase: the operation's path and body for the i-th request. */
type RequestOf = (i: number) => { path: string; body: object };

/** get-list, 3 dimensions, rotating dimension sets, models, goals and pages. */
const getListRequest =
  (start: string, end: string): RequestOf =>
  (i) => ({
    path: 'all-attribution/get-list',
    body: {
      start_date: start,
      end_date: end,
      dimensions: DIMENSION_SETS[i % DIMENSION_SETS.length],
      model: MODELS[i % MODELS.length],
      goal: GOALS[(i >> 2) % GOALS.length],
      page: 1 + (i % 3),
      page_size: 50,
      orders: [{ column: 'conversions', order: 'desc' }],
    },
  });

/** The web funnel, 3 dimensions (each request an exact distinct count per group and step over the range). */
const webAnalysisRequest =
  (start: string, end: string): RequestOf =>
  (i) => ({
    path: 'get/web-analysis/list',
    body: { start_date: start, end_date: end, dimensions: DIMENSION_SETS[i % DIMENSION_SETS.length], page_size: 50 },
  });

/** The product list, sorted by rotating figures. */
const productAnalysisRequest =
  (start: string, end: string): RequestOf =>
  (i) => ({
    path: 'get/product-analysis/list',
    body: {
      start_date: start,
      end_date: end,
      page_size: 50,
      orders: [{ column: ['revenue', 'views', 'view_users', 'units'][i % 4], order: 'desc' }],
    },
  });

export async function loadPhase(
  apiUrl: string,
  keys: string[],
  seconds: number,
  concurrency: number,
  requestOf: RequestOf,
): Promise<Phase> {
  const latencies: number[] = [];
  const timed: TimedRequest[] = [];
  let errors = 0;
  let k = 0;
  const deadline = Date.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (Date.now() < deadline) {
      const i = k++;
      const { path, body } = requestOf(i);
      const t = performance.now();
      const res = await fetch(`${apiUrl}/v2-4-2/api/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ApiKey: keys[i % keys.length]! },
        body: JSON.stringify(body),
      });
      await res.arrayBuffer();
      const clientMs = performance.now() - t;
      latencies.push(clientMs);
      if (res.status !== 200) errors++;
      const serverTiming = parseServerTiming(res.headers.get('server-timing'));
      if (res.status === 200 && serverTiming.app !== undefined && serverTiming.db !== undefined)
        timed.push({ clientMs, appMs: serverTiming.app, dbMs: serverTiming.db });
    }
  };
  const metricsBefore = await scrapeMetrics(`${apiUrl}/metrics`);
  const t0 = Date.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (Date.now() - t0) / 1000;
  const server = serverSide(metricsBefore, await scrapeMetrics(`${apiUrl}/metrics`), requestOf(0).path);
  latencies.sort((a, b) => a - b);
  const r = (x: number) => Number(x.toFixed(1));
  return {
    requests: latencies.length,
    errors,
    requests_per_s: Math.round(latencies.length / elapsed),
    latency_ms: {
      p50: r(percentile(latencies, 50)),
      p90: r(percentile(latencies, 90)),
      p99: r(percentile(latencies, 99)),
      max: r(latencies.at(-1) ?? 0),
    },
    server,
    slowest: slowestSplit(timed),
  };
}

export async function benchApi(opts: ApiBenchOptions): Promise<void> {
  // Each answer says how long the API and its statements took: the slowest requests split one by one.
  // API_SERVER_TIMING=false runs the API without it, to measure what the timing itself costs.
  const env = await startBenchEnv({ apiEnv: { API_SERVER_TIMING: process.env.API_SERVER_TIMING ?? 'true' } });
  try {
    const days = 90;
    const first = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - days * 86_400_000);
    const demo = planDemo({ events: opts.events, seed: 90, start: first, days });
    const t0 = Date.now();
    console.error(`bench: loading ${opts.events} demo events over ${days} days through the API and the pipeline...`);
    await pushDemo({
      apiUrl: env.apiUrl,
      ingestKey: env.credentials.ingest_key,
      stream: demo,
      concurrency: 4,
      onProgress: (p) => {
        if (p.events % 100_000 < 500)
          console.error(`bench: ${p.events} events pushed (${Math.round((Date.now() - t0) / 1000)} s)`);
      },
    });
    await waitForCommitted(env, demo.summary.events, 1000);
    const loadSeconds = (Date.now() - t0) / 1000;
    // The store was loaded in minutes; a real one accumulates its 90 days under autovacuum, which has long since
    // marked the old days' pages all-visible for index-only scans and taken the statistics. Do that once before
    // measuring, so the reports read what they would read in a store of this size.
    await env.db.query('bench.vacuum', 'vacuum (analyze)');
    const [rows] = await env.db.query<{ n: string }>(
      'bench.rows',
      'select count(*) as n from attribution_daily where store_id = $1',
      [env.store.store_id],
    );
    console.error(
      `bench: loaded in ${loadSeconds.toFixed(0)} s (${rows!.n} attribution rollup rows); measuring get-list`,
    );

    // Keys for the load generator: 5 requests/s each, so enough of them never to hit the limit.
    const keys: string[] = [];
    for (let i = 0; i < 200; i++) {
      const key = `ak_${randomBytes(32).toString('base64url')}`;
      await env.db.query('bench.key', "insert into credentials (store_id, kind, digest) values ($1, 'api_key', $2)", [
        env.store.store_id,
        digestCredential(key),
      ]);
      keys.push(key);
    }
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const end = day(new Date(first.getTime() + days * 86_400_000));
    /** One request at a time, then `concurrency` in flight, after a warm-up. */
    const measure = async (requestOf: RequestOf) => {
      await loadPhase(env.apiUrl, keys, 2, opts.concurrency, requestOf);
      return {
        one_in_flight: await loadPhase(env.apiUrl, keys, opts.seconds, 1, requestOf),
        [`${opts.concurrency}_in_flight`]: await loadPhase(env.apiUrl, keys, opts.seconds, opts.concurrency, requestOf),
      };
    };
    const getList = getListRequest(day(first), end);
    const alone = await measure(getList);

    // The same while ingestion runs at a steady rate (a busy store's traffic), through the API and the pipeline.
    const more = planDemo({
      events: opts.ingestRate * (opts.seconds + 4),
      seed: 91,
      start: new Date(Date.now() - 86_400_000),
      days: 1,
    });
    const ingest = pushPaced(env.apiUrl, env.credentials.ingest_key, [...more.events()], opts.ingestRate);
    await new Promise((r) => setTimeout(r, 2000));
    const underIngestion = { one_in_flight: await loadPhase(env.apiUrl, keys, opts.seconds, 1, getList) };
    const pushed = await ingest.then(
      (events) => ({ events, rate_events_per_s: opts.ingestRate }),
      (err: unknown) => ({ error: String(err) }),
    );

    // The analytics operations over the same store and range, alone.
    const webAnalysis = await measure(webAnalysisRequest(day(first), end));
    const productAnalysis = await measure(productAnalysisRequest(day(first), end));
    const [webRows] = await env.db.query<{ daily: string; users: string; products: string }>(
      'bench.analytics_rows',
      `select (select count(*) from web_daily where store_id = $1) as daily,
              (select count(*) from web_users where store_id = $1) as users,
              (select count(*) from product_daily where store_id = $1) as products`,
      [env.store.store_id],
    );

    console.log(
      JSON.stringify(
        {
          bench: 'api',
          operation: 'get-list, 3 dimensions, 90-day range, page_size 50',
          store_events: demo.summary.events,
          rollup_rows: Number(rows!.n),
          load_seconds: Math.round(loadSeconds),
          concurrency: opts.concurrency,
          alone,
          while_ingesting: underIngestion,
          ingestion_during_phase: pushed,
          web_analysis: {
            operation: 'get/web-analysis/list, 3 dimensions, 90-day range, page_size 50',
            web_daily_rows: Number(webRows!.daily),
            web_users_rows: Number(webRows!.users),
            ...webAnalysis,
          },
          product_analysis: {
            operation: 'get/product-analysis/list, 90-day range, page_size 50',
            product_daily_rows: Number(webRows!.products),
            ...productAnalysis,
          },
        },
        null,
        2,
      ),
    );
  } finally {
    await env.close();
  }
}
