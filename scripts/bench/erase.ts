/**
 * `npm run bench -- erase`: erasing persons of a demo store (docs/operations.md, Privacy) while it ingests.
 * 1. The store: the demo stream of `--events` events through the pipeline (as the pipeline bench's first phase).
 * 2. Ingestion alone: page views of recent days pushed at `--rate` per second for `--seconds`; the time from API
 *    acceptance to the views, from the daemon's `pipeline_visibility_seconds`.
 * 3. The same ingestion while `--persons` persons are erased, spread over it, through `POST .../privacy/erase`
 *    (half of them the clients of the longest histories, half buyers by their email): each erasure's time as the
 *    caller waits for it, and as the daemon's `pipeline_privacy_request_seconds` records it; the visibility of the
 *    events ingested meanwhile.
 * 4. The reconciliation of the store afterwards: the drift must be zero.
 * The target: an erasure under 2 s at 1M events, the visibility beside it as without it.
 */
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { planDemo } from '../demo/generate';
import { type BenchEnv, committedMessages, percentile, startBenchEnv, waitForCommitted } from './bench-env';
import { histogramCount, histogramQuantileSince, pushPaced, throughputPhase } from './pipeline';

export interface EraseBenchOptions {
  events: number;
  persons: number;
  rate: number;
  seconds: number;
}

/** Who to erase: the API's request body. */
type Subject = { client_id: string } | { email: string };

/** The clients of the longest histories and buyers' emails (read once, before anything is measured). */
async function subjectsOf(env: BenchEnv, persons: number): Promise<Subject[]> {
  const storeId = env.store.store_id;
  const heavy = await env.db.query<{ client_id: string }>(
    'bench.heavy_clients',
    `select client_id from event_facts where store_id = $1 group by client_id order by count(*) desc, client_id limit $2`,
    [storeId, Math.ceil(persons / 2)],
  );
  const buyers = await env.db.query<{ email: string }>(
    'bench.buyers',
    `select distinct email from order_facts where store_id = $1 and email is not null order by email limit $2`,
    [storeId, Math.floor(persons / 2)],
  );
  return [...heavy.map((r) => ({ client_id: r.client_id })), ...buyers.map((r) => ({ email: r.email }))];
}

/** Sum and count of the daemon's erasures so far, from `pipeline_privacy_request_seconds`. */
function erasuresIn(text: string): { sum: number; count: number } {
  const of = (part: string) =>
    [
      ...text.matchAll(
        new RegExp(`^pipeline_privacy_request_seconds_${part}\\{kind="erase",outcome="done"\\} (\\S+)$`, 'gm'),
      ),
    ]
      .map((m) => Number(m[1]))
      .reduce((a, b) => a + b, 0);
  return { sum: of('sum'), count: of('count') };
}

/** Page views of recent days at `rate` per second for `seconds`, from the demo generator (seed `seed`). */
function liveViews(rate: number, seconds: number, seed: number): unknown[] {
  const demo = planDemo({ events: rate * seconds, seed, start: new Date(Date.now() - 86_400_000), days: 1 });
  return [...demo.events()];
}

/** One ingestion phase, with `during` run beside it; the visibility of its events. */
async function ingestionPhase<T>(
  env: BenchEnv,
  opts: EraseBenchOptions,
  seed: number,
  during: () => Promise<T>,
): Promise<{ result: T; visibility: { events: number; p50_s: number | null; p95_s: number | null } }> {
  const events = liveViews(opts.rate, opts.seconds, seed);
  const before = await env.pipelineMetrics();
  const committedBefore = await committedMessages(env);
  const [pushed, result] = await Promise.all([
    pushPaced(env.apiUrl, env.credentials.ingest_key, events, opts.rate),
    during(),
  ]);
  await waitForCommitted(env, committedBefore + pushed);
  const after = await env.pipelineMetrics();
  const q = (p: number) => {
    const v = histogramQuantileSince(before, after, p);
    return v === null ? null : Number(v.toFixed(3));
  };
  return {
    result,
    visibility: { events: histogramCount(after) - histogramCount(before), p50_s: q(0.5), p95_s: q(0.95) },
  };
}

export async function benchErase(opts: EraseBenchOptions): Promise<void> {
  const env = await startBenchEnv({ withPipeline: false });
  try {
    const start = new Date(Date.now() - 30 * 86_400_000);
    const demo = planDemo({ events: opts.events, seed: 42, start, days: 30 });
    const load = await throughputPhase(env, demo, demo.summary.events);
    const subjects = await subjectsOf(env, opts.persons);

    console.error(`bench: ingestion alone at ${opts.rate} events/s for ${opts.seconds} s`);
    const alone = await ingestionPhase(env, opts, 43, () => Promise.resolve(null));

    console.error(`bench: the same, erasing ${subjects.length} persons`);
    const metricsBefore = erasuresIn(await env.pipelineMetrics());
    const beside = await ingestionPhase(env, opts, 44, async () => {
      const waits: Array<{ seconds: number; events: number; messages: number; conversions: number }> = [];
      // Spread over the phase, so that the ingestion around every erasure is measured.
      const every = Math.max(210, (opts.seconds * 1000) / Math.max(1, subjects.length));
      for (const subject of subjects) {
        const t = performance.now();
        const res = await fetch(`${env.apiUrl}/v2-4-2/api/privacy/erase`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ApiKey: env.credentials.api_key },
          body: JSON.stringify(subject),
        });
        const body = (await res.json()) as {
          data?: { status?: string; removed?: { event_facts: number; stream_messages: number; conversions: number } };
        };
        if (res.status !== 200 || body.data?.status !== 'done')
          throw new Error(`erase answered ${res.status}: ${JSON.stringify(body)}`);
        const removed = body.data.removed!;
        waits.push({
          seconds: Number(((performance.now() - t) / 1000).toFixed(3)),
          events: removed.event_facts,
          messages: removed.stream_messages,
          conversions: removed.conversions,
        });
        // At most 5 erasures per second per key, as the API allows.
        await new Promise((r) => setTimeout(r, Math.max(0, every - (performance.now() - t))));
      }
      return waits;
    });
    const metricsAfter = erasuresIn(await env.pipelineMetrics());
    const erased = metricsAfter.count - metricsBefore.count;
    const waits = beside.result.map((w) => w.seconds).sort((a, b) => a - b);

    await env.stopPipeline();
    const drift = await reconcileStore(env.db, env.store.store_id);
    const round = (s: number) => Number(s.toFixed(3));
    console.log(
      JSON.stringify(
        {
          bench: 'erase',
          demo_events: demo.summary.events,
          load_events_per_s: load.events_per_s,
          erasures: erased,
          erase_seconds_as_answered: {
            p50: round(percentile(waits, 50)),
            max: round(waits.at(-1) ?? NaN),
          },
          erase_seconds_in_pipeline_mean: erased ? round((metricsAfter.sum - metricsBefore.sum) / erased) : null,
          each: beside.result,
          visibility_alone: alone.visibility,
          visibility_while_erasing: beside.visibility,
          reconciliation_drift: drift.driftCount,
        },
        null,
        2,
      ),
    );
  } finally {
    await env.close();
  }
}
