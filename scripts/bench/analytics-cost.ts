/**
 * `npm run bench -- analytics-cost`: what maintaining the analytics views (web funnel, landing pages, products)
 * costs the pipeline. The demo stream's throughput from the stream to committed views, as in the first phase
 * of the pipeline bench, with the daemon as shipped and with one that leaves those views unmaintained
 * (scripts/bench/pipeline-without-analytics.ts), each in a fresh environment; with two lanes (the default)
 * and with one. The cost is 1 - with / without, from the mean of each side's runs. The two sides alternate
 * in order from round to round, so that a machine slowing down over the run does not favour either.
 */
import { planDemo } from '../demo/generate';
import { inFreshEnv } from './bench-env';
import { throughputPhase } from './pipeline';

export interface AnalyticsCostOptions {
  events: number;
  rounds: number;
}

const WITHOUT_ANALYTICS = 'scripts/bench/pipeline-without-analytics.ts';

/** The cost of the analytics views from the throughputs with and without them. */
export function analyticsCost(withAnalytics: readonly number[], without: readonly number[]): number {
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return Number((1 - mean(withAnalytics) / mean(without)).toFixed(3));
}

export async function benchAnalyticsCost(opts: AnalyticsCostOptions): Promise<void> {
  const start = new Date(Date.now() - 30 * 86_400_000);
  const byLanes: Record<string, { with_events_per_s: number[]; without_events_per_s: number[]; cost: number }> = {};
  for (const [name, lanes] of [
    ['two_lanes', '2'],
    ['one_lane', '1'],
  ] as const) {
    const withAnalytics: number[] = [];
    const without: number[] = [];
    for (let round = 0; round < opts.rounds; round++) {
      const sides = round % 2 === 0 ? [true, false] : [false, true];
      for (const analytics of sides) {
        console.error(`bench: ${lanes} lane(s), ${analytics ? 'with' : 'without'} the analytics views`);
        const phase = await inFreshEnv(
          { pipeline: { entry: analytics ? undefined : WITHOUT_ANALYTICS, env: { PIPELINE_CONCURRENCY: lanes } } },
          (env) => {
            const demo = planDemo({ events: opts.events, seed: 42, start, days: 30 });
            return throughputPhase(env, demo, demo.summary.events);
          },
        );
        (analytics ? withAnalytics : without).push(phase.events_per_s);
      }
    }
    byLanes[name] = {
      with_events_per_s: withAnalytics,
      without_events_per_s: without,
      cost: analyticsCost(withAnalytics, without),
    };
  }
  console.log(
    JSON.stringify({ bench: 'analytics-cost', demo_events: opts.events, rounds: opts.rounds, lanes: byLanes }, null, 2),
  );
}
