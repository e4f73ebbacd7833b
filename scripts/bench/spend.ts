/**
 * `npm run bench -- spend`: a first pull (90-day backfill) of one Meta account of `--ads` ads against the fake
 * ad platforms (test/support/fake-ad-platforms.ts, one generated Insights page in the recorded rows' shape):
 * seconds to fetch and publish, and until the pipeline has stored every row.
 */
import { connect } from '@nats-io/transport-node';
import { adPlatformClients } from '../../pipeline/src/adapters/ad-platforms/index';
import { DEFAULT_AD_PLATFORM_CONFIG } from '../../pipeline/src/adapters/ad-platforms/types';
import { jetStreamSpendPublisher } from '../../pipeline/src/adapters/spend-publisher';
import { pullAdSpend } from '../../pipeline/src/jobs/ad-spend-pull';
import { upsertAdConnection } from '../../storage/ad-connections';
import { startFakeAdPlatforms } from '../../test/support/fake-ad-platforms';
import { createSecretBox, generateSecretsKey, parseSecretsKey } from '../../storage/secret-box';
import { startBenchEnv } from './bench-env';

export interface SpendBenchOptions {
  ads: number;
  days: number;
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

export async function benchSpend(opts: SpendBenchOptions): Promise<void> {
  const env = await startBenchEnv();
  const fake = await startFakeAdPlatforms();
  const nc = await connect({ servers: env.natsUrl.split(','), name: 'bench-spend' });
  try {
    fake.generate.meta = (from, to) => insights(opts.ads, from, to);
    const box = createSecretBox(parseSecretsKey(generateSecretsKey()));
    const storeId = env.store.store_id;
    await upsertAdConnection(env.db, box, {
      storeId,
      kind: 'meta',
      accountId: 'act_798085168510957',
      secrets: { token: 't' },
    });
    const started = Date.now();
    const [result] = await pullAdSpend(
      {
        db: env.db,
        box,
        clients: adPlatformClients({ ...DEFAULT_AD_PLATFORM_CONFIG, metaGraphUrl: fake.url, metaAsyncPollMs: 100 }),
        publish: jetStreamSpendPublisher(nc),
        partitions: Number(process.env.EVENT_PARTITIONS ?? 16),
        now: Date.now,
      },
      { storeId, windowDays: 7, backfillDays: opts.days },
    );
    const published = (Date.now() - started) / 1000;
    if (!result || result.error) throw new Error(`pull failed: ${result?.error ?? 'no connection'}`);
    const expected = opts.ads * opts.days;
    for (;;) {
      const [row] = await env.db.query<{ n: string }>(
        'bench.spend',
        'select count(*) as n from ad_spend where store_id = $1',
        [storeId],
      );
      if (Number(row?.n) >= expected) break;
      if (Date.now() - started > 600_000) throw new Error(`only ${row?.n} of ${expected} rows after 10 minutes`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const stored = (Date.now() - started) / 1000;
    console.log(
      JSON.stringify({
        bench: 'spend',
        ads: opts.ads,
        days: opts.days,
        rows: result.rows,
        fetch_and_publish_seconds: Math.round(published * 10) / 10,
        stored_seconds: Math.round(stored * 10) / 10,
      }),
    );
  } finally {
    await nc.drain();
    await fake.close();
    await env.close();
  }
}
