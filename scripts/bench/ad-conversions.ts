/**
 * `npm run bench -- ad-conversions`: purchases sent to the three ad platforms' conversion APIs, end to end, across
 * a crash of the webhook worker. The API and the pipeline run as processes (bench-env), the webhook worker as a
 * process of its own, the platforms are the local fake of the tests (`test/support/fake-conversion-apis.ts`, which
 * records every request and the event ids it carried). One store with a `meta_capi`, a `google_ads` and a
 * `tiktok_events` destination; each purchase is a visitor landing with `fbclid`, `gclid` and `ttclid` an hour
 * before completing a checkout of its own order id, both events pushed through `POST /events` as the demo is
 * (500 per request, 4 in flight).
 *
 * Once a third of the 3 x N purchases reached the platforms (the fake's request log), the worker is killed with
 * SIGKILL and a new one started: what the dead worker held comes back from the stream after the consumer's ack_wait.
 * Printed: the seconds from the first push to the last distinct event id at the platforms (the target:
 * `--limit-seconds`) and to each quarter of them, and the longest time without a new one; per platform the distinct
 * event ids (all N: none lost), the ids received more than once (sent again after the kill; the platforms drop
 * them by event id, the order id), the requests and the event ids they carried (repeats included; over the
 * requests, the mean batch); when the pipeline had queued them all (its `pipeline_ad_conversions_total`) and
 * where its batches' time went; the CPU seconds of each process; each worker's own counters
 * (`ad_conversions_total` by outcome, `ad_conversion_requests_total` by verdict), the first's scraped just before
 * the kill. A line on stderr every 5 s follows the pipeline. It throws, after printing, if a platform misses an
 * event id or the last arrived after the limit.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { upsertAdConnection } from '../../storage/ad-connections';
import { createSecretBox, generateSecretsKey, parseSecretsKey } from '../../storage/secret-box';
import { createAdPlatformDestination } from '../../webhook-worker/src/destination-repo';
import type { NewAdDestination } from '../../webhook-worker/src/conversions/destination-settings';
import { sampleCompletedCheckout, sampleContext, sampleEvent } from '../../test/support/samples';
import { startFakeConversionApis, type ConversionPlatform } from '../../test/support/fake-conversion-apis';
import { freePort } from '../../test/support/free-port';
import type { DemoItem } from '../demo/output';
import { pushDemo } from '../demo/push';
import { batchTimeBySteps } from './pipeline';
import {
  type BenchEnv,
  committedIn,
  cpuSecondsIn,
  scrapeMetrics,
  spawnService,
  startBenchEnv,
  stopChild,
  waitReady,
} from './bench-env';

export interface AdConversionsBenchOptions {
  purchases: number;
  limitSeconds: number;
}

const PLATFORMS: ConversionPlatform[] = ['meta', 'google', 'tiktok'];
const HOUR = 3_600_000;
/** How long past the limit the bench still waits, to tell a late purchase (an ack_wait, ...) from a lost one. */
const GRACE_MS = 120_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A visitor landing from three ads, and the purchase an hour later. */
function purchase(i: number, now: number): DemoItem[] {
  const at = (ms: number) => ({ clientId: `bench-${i}`, timestamp: new Date(ms).toISOString() });
  const landing = sampleEvent('page_viewed', {
    id: `bench-land-${i}`,
    ...at(now - 2 * HOUR),
    context: sampleContext(`https://shop.example/?fbclid=IwAR${i}&gclid=Cj0K${i}&ttclid=E.C.P.${i}`),
  });
  const bought = sampleEvent('checkout_completed', {
    id: `bench-buy-${i}`,
    ...at(now - HOUR),
    context: sampleContext('https://shop.example/checkouts/cn/x/thank-you'),
    data: {
      checkout: sampleCompletedCheckout({
        token: randomUUID().replaceAll('-', ''),
        email: `buyer${i}@example.com`,
        totalPrice: { amount: 20 + (i % 100), currencyCode: 'USD' },
        order: { id: String(7_000_000_000_000 + i), customer: { id: `cust-${i}`, isFirstOrder: true } },
      }),
    },
  });
  return [landing, bought].map((event) => ({ kind: 'event', at: Date.parse(event.timestamp), event }));
}

interface Worker {
  child: ChildProcess;
  metricsUrl: string;
}

async function startWorker(env: BenchEnv, extra: Record<string, string>): Promise<Worker> {
  const port = await freePort();
  const child = spawnService('webhook-worker/src/app/main.ts', {
    NATS_URL: env.natsUrl,
    DATABASE_URL: env.databaseUrl,
    LOG_LEVEL: 'error',
    WEBHOOK_HEALTH_PORT: String(port),
    ...extra,
  });
  await waitReady(`http://127.0.0.1:${port}/readyz`);
  return { child, metricsUrl: `http://127.0.0.1:${port}/metrics` };
}

/** A counter's series in one scrape, summed by two of their labels: `{meta_capi: {delivered: 10000}}`. */
function byLabels(text: string, name: string, outer: string, inner: string) {
  const sums: Record<string, Record<string, number>> = {};
  for (const m of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const label = (l: string) => new RegExp(`${l}="([^"]*)"`).exec(m[1]!)?.[1] ?? '';
    const of = (sums[label(outer)] ??= {});
    of[label(inner)] = (of[label(inner)] ?? 0) + Number(m[2]);
  }
  return sums;
}

/** A worker's own counters, by destination kind: purchases by outcome, requests by verdict. */
const workerFigures = (text: string) => ({
  purchases: byLabels(text, 'ad_conversions_total', 'kind', 'outcome'),
  requests: byLabels(text, 'ad_conversion_requests_total', 'kind', 'verdict'),
});

export async function benchAdConversions(opts: AdConversionsBenchOptions): Promise<void> {
  const fake = await startFakeConversionApis();
  const env = await startBenchEnv();
  let worker: Worker | null = null;
  try {
    const secretsKey = generateSecretsKey();
    const box = createSecretBox(parseSecretsKey(secretsKey));
    const storeId = env.store.store_id;
    await upsertAdConnection(env.db, box, {
      storeId,
      kind: 'google',
      accountId: '1234567890',
      secrets: { developerToken: 'devtoken123', clientId: 'cid', clientSecret: 'csecret', refreshToken: 'rtoken' },
    });
    const token = 'EAABbenchtoken0123456789abcdef';
    const destinations: NewAdDestination[] = [
      { settings: { kind: 'meta_capi', pixelId: '1234567890123456', testEventCode: null }, accessToken: token },
      {
        settings: {
          kind: 'google_ads',
          customerId: '1234567890',
          conversionAction: 'customers/1234567890/conversionActions/987654',
        },
        accessToken: null,
      },
      {
        settings: { kind: 'tiktok_events', pixelCode: 'C85O1JNV9S6R0CDU7VV0', testEventCode: null },
        accessToken: token,
      },
    ];
    for (const d of destinations) await createAdPlatformDestination(env.db, box, storeId, d);
    const workerEnv = {
      SECRETS_KEY: secretsKey,
      META_GRAPH_URL: fake.url,
      GOOGLE_ADS_API_URL: fake.url,
      GOOGLE_OAUTH_TOKEN_URL: fake.tokenUrl,
      TIKTOK_API_URL: fake.url,
    };
    worker = await startWorker(env, workerEnv);

    // Every event id each platform took, with how often, and when the last new one arrived.
    const seen: Record<ConversionPlatform, Map<string, number>> = {
      meta: new Map(),
      google: new Map(),
      tiktok: new Map(),
    };
    const total = opts.purchases * PLATFORMS.length;
    const quarters: number[] = []; // when a quarter, half, three quarters and all of them had arrived
    let read = 0;
    let distinct = 0;
    let lastNewAt = 0;
    let pause = { from: 0, to: 0 }; // the longest time without a new event id at any platform
    const catchUp = (): number => {
      for (; read < fake.requests.length; read++) {
        const r = fake.requests[read]!;
        if (r.platform === 'oauth' || r.status !== 200) continue;
        for (const id of r.eventIds) {
          const n = seen[r.platform].get(id) ?? 0;
          seen[r.platform].set(id, n + 1);
          if (n > 0) continue;
          if (distinct > 0 && r.at - lastNewAt > pause.to - pause.from) pause = { from: lastNewAt, to: r.at };
          distinct += 1;
          lastNewAt = r.at;
          if (distinct >= ((quarters.length + 1) * total) / 4) quarters.push(r.at);
        }
      }
      return distinct;
    };
    const items = Array.from({ length: opts.purchases }, (_, i) => purchase(i, Date.now())).flat();

    const pipelineBefore = await env.pipelineMetrics();
    const serversBefore = env.serverCpu();
    const benchCpu = process.cpuUsage();
    const started = Date.now();
    const deadline = started + opts.limitSeconds * 1000 + GRACE_MS;
    const s = (ms: number | null) => (ms === null ? null : Number(((ms - started) / 1000).toFixed(2)));
    let failure: Error | null = null;
    const stream = { products: [], adSpend: [], items: () => items };
    const pushing = pushDemo({ apiUrl: env.apiUrl, ingestKey: env.credentials.ingest_key, stream }).then(
      () => Date.now(),
      (err: unknown) => void (failure = err instanceof Error ? err : new Error(String(err))),
    );
    const progress = (): number => {
      if (failure) throw failure;
      return catchUp();
    };
    // The pipeline's progress, every half second until every purchase reached every platform (a line each 5 s).
    let queuedAt: number | null = null;
    const queued = (async () => {
      for (let tick = 1; distinct < total && Date.now() < deadline; tick++) {
        const text = await env.pipelineMetrics();
        const q = Number(/^pipeline_ad_conversions_total\{outcome="queued"\} (\S+)$/m.exec(text)?.[1] ?? 0);
        if (q >= opts.purchases) queuedAt ??= Date.now();
        if (tick % 10 === 0)
          console.error(
            `bench: ${s(Date.now())} s: ${committedIn(text)} events committed, ${q} purchases queued, ` +
              `${distinct} of ${total} deliveries`,
          );
        await sleep(500);
      }
    })().catch(() => undefined);

    while (progress() < total / 3) {
      if (Date.now() > deadline) throw new Error(`bench: only ${distinct} of ${total} deliveries by the deadline`);
      await sleep(20);
    }
    const beforeKill = await scrapeMetrics(worker.metricsUrl);
    const killedAt = Date.now();
    const atKill = catchUp();
    const exited = new Promise((resolve) => worker!.child.once('exit', resolve));
    worker.child.kill('SIGKILL');
    await exited;
    worker = null; // not stopped again should the new one fail to start
    worker = await startWorker(env, workerEnv);
    const restartedAt = Date.now();
    console.error(`bench: worker killed with SIGKILL at ${atKill} of ${total} deliveries; another one started`);

    while (progress() < total && Date.now() < deadline) await sleep(50);
    const pushedAt = (await pushing) ?? null;
    await queued;
    const afterward = await scrapeMetrics(worker.metricsUrl);
    const pipelineAfter = await env.pipelineMetrics();
    const serversAfter = env.serverCpu();
    const grew = (a: number | null, b: number | null) => (a === null || b === null ? null : Math.round(b - a));
    const { user, system } = process.cpuUsage(benchCpu);
    const perPlatform = Object.fromEntries(
      PLATFORMS.map((p) => {
        const requests = fake.requests.filter((r) => r.platform === p);
        const carried = requests.reduce((n, r) => n + r.eventIds.length, 0);
        const again = [...seen[p].values()].filter((n) => n > 1).length;
        const missing = opts.purchases - seen[p].size;
        return [
          p,
          { event_ids: seen[p].size, missing, received_more_than_once: again, requests: requests.length, carried },
        ];
      }),
    );
    const seconds = s(lastNewAt)!;
    console.log(
      JSON.stringify(
        {
          bench: 'ad-conversions',
          purchases: opts.purchases,
          deliveries: total,
          seconds_to_last_event_id: distinct === total ? seconds : null,
          limit_seconds: opts.limitSeconds,
          quarters_s: quarters.map(s),
          pushed_s: s(pushedAt),
          pipeline_queued_all_s: s(queuedAt),
          cpu_seconds: {
            pipeline: grew(cpuSecondsIn(pipelineBefore, 'the pipeline'), cpuSecondsIn(pipelineAfter, 'the pipeline')),
            postgres: grew(serversBefore.postgres, serversAfter.postgres),
            nats: grew(serversBefore.nats, serversAfter.nats),
            workers: Math.round(cpuSecondsIn(beforeKill, 'a worker') + cpuSecondsIn(afterward, 'a worker')),
            bench_and_fake_platforms: Math.round((user + system) / 1e6),
          },
          pipeline_batch_time: batchTimeBySteps(pipelineBefore, pipelineAfter),
          killed: { at_s: s(killedAt), delivered_before: atKill, new_worker_ready_s: s(restartedAt) },
          longest_pause_s: { from: s(pause.from), to: s(pause.to) },
          per_platform: perPlatform,
          worker_before_kill: workerFigures(beforeKill),
          worker_after_kill: workerFigures(afterward),
        },
        null,
        2,
      ),
    );
    const short = PLATFORMS.filter((p) => seen[p].size < opts.purchases);
    if (short.length) throw new Error(`bench: event ids missing at ${short.join(', ')} after ${s(Date.now())} s`);
    if (seconds > opts.limitSeconds)
      throw new Error(`bench: the last event id arrived after ${seconds} s, over the ${opts.limitSeconds} s limit`);
  } finally {
    if (worker) await stopChild(worker.child);
    await env.close();
    await fake.close();
  }
}
