/**
 * `npm run bench -- spend`: a first pull (90-day backfill) of one Meta account of `--ads` ads against the fake
 * ad platforms (test/support/fake-ad-platforms.ts, one generated Insights page in the recorded rows' shape):
 * seconds to fetch and publish, and until the pipeline has committed every day; and the visibility of page views
 * pushed at a steady rate beside it, against the same page views alone. Measured through the daemon's metrics.
 */
import { connect } from '@nats-io/transport-node';
import { adPlatformClients } from '../../pipeline/src/adapters/ad-platforms/index';
import { DEFAULT_AD_PLATFORM_CONFIG } from '../../pipeline/src/adapters/ad-platforms/types';
import { jetStreamSpendPublisher } from '../../pipeline/src/adapters/spend-publisher';
import { MAX_DAY_ROWS, pullConnection } from '../../pipeline/src/jobs/ad-spend-pull';
import { upsertAdConnection } from '../../storage/ad-connections';
import { startFakeAdPlatforms } from '../../test/support/fake-ad-platforms';
import { createSecretBox, generateSecretsKey, parseSecretsKey } from '../../storage/secret-box';
import { planDemo } from '../demo/generate';
import {
  committedMessages,
  committedPushes,
  PARTITIONS,
  startBenchEnv,
  waitForCommitted,
  waitForPushes,
} from './bench-env';
import { histogramCount, histogramQuantileSince, pushPaced } from './pipeline';

export interface SpendBenchOptions {
  ads: number;
  days: number;
  /** Page views per second pushed beside the backfill (and alone, for comparison), for `seconds`. */
  rate: number;
  seconds: number;
}

const DAY_MS = 86_400_000;

/** An Insights page holding `ads` ads for every day of [from, to], as Meta sends them (numbers as strings). */
function insights(ads: number, from: string, to: string): unknown {
  const data = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    for (let a = 0; a < ads; a++) {
      data.push({
        account_currency: 'USD',
        account_id: '798085168510957',
        campaign_id: `2385440467618${String(a % 10).padStart(4, '0')}`,
        campaign_name: `Campaign ${a % 10}`,
        adset_id: `2385440470632${String(a % 50).padStart(4, '0')}`,
        adset_name: `Ad set ${a % 50}`,
        ad_id: `2385469575920${String(a).padStart(4, '0')}`,
        ad_name: `Ad ${a}`,
        spend: `${(a % 97) + 1}.${String(a % 100).padStart(2, '0')}`,
        impressions: String(1000 + a),
        clicks: String(10 + (a % 40)),
        date_start: day,
        date_stop: day,
      });
    }
  }
  return { data, paging: { cursors: { before: 'MAZDZD', after: 'MAZDZD' } } };
}

/** Visibility of the paced page views of one phase, from the daemon's histogram. */
function visibility(before: string, after: string): { events: number; p50_s: number | null; p95_s: number | null } {
  const q = (p: number) => {
    const v = histogramQuantileSince(before, after, p);
    return v === null ? null : Number(v.toFixed(3));
  };
  return { events: histogramCount(after) - histogramCount(before), p50_s: q(0.5), p95_s: q(0.95) };
}

export async function benchSpend(opts: SpendBenchOptions): Promise<void> {
  const env = await startBenchEnv();
  const fake = await startFakeAdPlatforms();
  const nc = await connect({ servers: env.natsUrl.split(','), name: 'bench-spend' });
  try {
    fake.generate.meta = (from, to) => insights(opts.ads, from, to);
    const box = createSecretBox(parseSecretsKey(generateSecretsKey()));
    const storeId = env.store.store_id;
    const deps = {
      db: env.db,
      box,
      // The fake's report is done at its second look; Meta's own take longer, which the pull only waits out.
      clients: adPlatformClients({ ...DEFAULT_AD_PLATFORM_CONFIG, metaGraphUrl: fake.url, metaAsyncPollMs: 100 }),
      publish: jetStreamSpendPublisher(nc),
      partitions: PARTITIONS,
      now: Date.now,
    };
    const backfill = async (accountId: string) => {
      const connection = await upsertAdConnection(env.db, box, {
        storeId,
        kind: 'meta',
        accountId,
        secrets: { token: 't' },
      });
      const t0 = Date.now();
      const result = await pullConnection(deps, connection, { windowDays: 7, backfillDays: opts.days });
      if (result.error) throw new Error(`pull failed: ${result.error}`);
      return { rows: result.rows, seconds: (Date.now() - t0) / 1000, t0 };
    };
    // One message per day of at most MAX_DAY_ROWS ads.
    const dayMessages = opts.days * Math.ceil(opts.ads / MAX_DAY_ROWS);
    let committed = await committedMessages(env);
    let days = await committedPushes(env, 'ad_spend');

    // 1. The backfill alone: to published, and to committed by the pipeline.
    const alone = await backfill('act_798085168510957');
    days += dayMessages;
    await waitForPushes(env, 'ad_spend', days);
    const stored = (Date.now() - alone.t0) / 1000;

    // 2. Page views at a steady rate, alone, then beside another account's backfill: their visibility (acceptance
    // to commit, the daemon's histogram) says whether a backfill holds ingestion up.
    const views = (seed: number) => [
      ...planDemo({
        events: opts.rate * opts.seconds,
        seed,
        start: new Date(Date.now() - 86_400_000),
        days: 1,
      }).events(),
    ];
    const viewsBefore = await env.pipelineMetrics();
    committed += await pushPaced(env.apiUrl, env.credentials.ingest_key, views(51), opts.rate);
    await waitForCommitted(env, committed);
    const viewsAlone = await env.pipelineMetrics();
    const [beside, pushed] = await Promise.all([
      backfill('act_798085168510958'),
      pushPaced(env.apiUrl, env.credentials.ingest_key, views(52), opts.rate),
    ]);
    committed += pushed;
    await Promise.all([waitForCommitted(env, committed), waitForPushes(env, 'ad_spend', days + dayMessages)]);
    const viewsBeside = await env.pipelineMetrics();
    console.log(
      JSON.stringify({
        bench: 'spend',
        ads: opts.ads,
        days: opts.days,
        rows: alone.rows,
        fetch_and_publish_seconds: Math.round(alone.seconds * 10) / 10,
        stored_seconds: Math.round(stored * 10) / 10,
        page_views_per_s: opts.rate,
        visibility_alone: visibility(viewsBefore, viewsAlone),
        visibility_beside_backfill: visibility(viewsAlone, viewsBeside),
        backfill_beside_page_views_seconds: Math.round(beside.seconds * 10) / 10,
      }),
    );
  } finally {
    await nc.drain();
    await fake.close();
    await env.close();
  }
}
