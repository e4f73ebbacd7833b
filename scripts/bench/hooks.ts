/**
 * `npm run bench -- hooks`: signed Shopify order webhooks (orders/create, then orders/updated of each order) from
 * --shops shops, one store and connection each, --concurrency in flight, to the API with the pipeline running.
 * Latency is each answer as the client times it (the 200 comes once the order is in the stream); throughput is
 * deliveries over the sending time. Afterwards it waits for the pipeline to commit them (its metrics) and checks,
 * once, that every order is stored exactly once in its newest state.
 */
import { createSecretBox, generateSecretsKey, parseSecretsKey } from '../../storage/secret-box';
import { createConnection } from '../../storage/store-connections';
import { createStore } from '../../storage/store-registry';
import { type BenchEnv, percentile, startBenchEnv } from './bench-env';
import { hookLoad, sendHookLoad, type HookLoadShop } from './hook-load';

export interface HooksBenchOptions {
  webhooks: number;
  shops: number;
  concurrency: number;
}

/**
 * Resolves once the daemon has committed `count` messages of any kind, from its `pipeline_batch_size_sum`
 * (pushes are not counted in `pipeline_events_consumed_total`, which counts events only).
 */
async function waitForCommittedMessages(env: Pick<BenchEnv, 'pipelineMetrics'>, count: number): Promise<void> {
  const committed = async () =>
    [...(await env.pipelineMetrics()).matchAll(/^pipeline_batch_size_sum (\S+)$/gm)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
  while ((await committed()) < count) await new Promise((r) => setTimeout(r, 250));
}

export async function benchHooks(opts: HooksBenchOptions): Promise<void> {
  const ordersPerShop = Math.ceil(opts.webhooks / 2 / opts.shops);
  const secretsKey = generateSecretsKey();
  const env = await startBenchEnv({ apiEnv: { SECRETS_KEY: secretsKey } });
  try {
    const box = createSecretBox(parseSecretsKey(secretsKey));
    const shops: Array<HookLoadShop & { storeId: string }> = [];
    for (let s = 0; s < opts.shops; s++) {
      const { store } = await createStore(env.db, {
        name: `bench-hooks-${Date.now()}-${s}`,
        timezone: 'UTC',
        currency: 'USD',
        lookbackDays: 30,
      });
      const shop = `bench-${s}.myshopify.com`;
      const secret = `shpss_bench_${s}_${secretsKey.slice(0, 16)}`;
      const connection = await createConnection(env.db, box, {
        storeId: store.store_id,
        kind: 'shopify',
        account: shop,
        secret,
      });
      shops.push({ storeId: store.store_id, connectionId: connection.connection_id, shop, secret });
    }
    const { deliveries, expected } = hookLoad(shops, ordersPerShop);

    const started = performance.now();
    const answers = await sendHookLoad(env.apiUrl, deliveries, opts.concurrency);
    const seconds = (performance.now() - started) / 1000;
    const failed = answers.filter((a) => a.status < 200 || a.status >= 300);
    // Each accepted delivery published one order version (every body differs).
    await waitForCommittedMessages(env, answers.length - failed.length);

    const rows = await env.db.query<{ order_id: string; value_micros: string }>(
      'bench.hooks_orders',
      'select order_id, value_micros from order_facts where store_id = any($1)',
      [shops.map((s) => s.storeId)],
    );
    const newest = new Map(expected.map((e) => [e.orderId, String(e.valueMicros)]));
    const inNewestState = rows.filter((r) => newest.get(r.order_id) === r.value_micros).length;

    const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
    const round = (v: number) => Number(v.toFixed(1));
    console.log(
      JSON.stringify(
        {
          bench: 'hooks',
          webhooks: deliveries.length,
          shops: opts.shops,
          concurrency: opts.concurrency,
          answered_2xx: answers.length - failed.length,
          failed: failed.slice(0, 5).map((a) => `${a.status} ${a.outcome}`),
          webhooks_per_s: Math.round(deliveries.length / seconds),
          answer_ms: { p50: round(percentile(ms, 50)), p95: round(percentile(ms, 95)), p99: round(percentile(ms, 99)) },
          orders_expected: expected.length,
          orders_stored: rows.length,
          orders_in_newest_state: inNewestState,
        },
        null,
        2,
      ),
    );
    if (failed.length > 0 || rows.length !== expected.length || inNewestState !== expected.length) process.exitCode = 1;
  } finally {
    await env.close();
  }
}
