/**
 * `npm run bench -- analytics-cost`: what maintaining the analytics views (web funnel, landing pages, products)
 * costs the pipeline. The demo stream's throughput from the stream to committed views, as in the first phase
 * of the pipeline bench, with the daemon as shipped and with one that leaves those views unmaintained
 * (scripts/bench/pipeline-without-analytics.ts), each in a fresh environment; with two lanes (the default)
 * and with one. The cost is 1 - with / without, from the mean of each side's runs, and also per round with their
 * median (`round_costs`), which one outlying run cannot drag. The two sides alternate
 * in order from round to round, so that a machine slowing down over the run does not favour either. Each side
 * also reports the daemon's CPU per event and its batch time by step, which tell CPU from waiting.
 */
import { planDemo } from '../demo/generate';
import { inFreshEnv } from './bench-env';
import { type ThroughputPhase, throughputPhase } from './pipeline';

export interface AnalyticsCostOptions {
  events: number;
  rounds: number;
}

const WITHOUT_ANALYTICS = 'scripts/bench/pipeline-without-analytics.ts';

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The cost of the analytics views from the throughputs with and without them. */
export function analyticsCost(withAnalytics: readonly number[], without: readonly number[]): number {
  return Number((1 - mean(withAnalytics) / mean(without)).toFixed(3));
}

/**
 * The cost of each round (its two runs, one with and one without the views, next to each other in time) and
 * their median. One run that the machine sped up or slowed down moves the mean of its side, and so the cost of
 * the means, by its whole deviation; it moves the median of the rounds' costs by at most one rank.
 */
export function roundCosts(
  withAnalytics: readonly number[],
  without: readonly number[],
): { by_round: number[]; median: number } {
  const byRound = withAnalytics.map((w, i) => Number((1 - w / without[i]!).toFixed(3)));
  const sorted = [...byRound].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { by_round: byRound, median: Number(median.toFixed(3)) };
}

/**
 * Where one side's time went, as the daemon measured it, averaged over its runs: CPU per event and the seconds of
 * batch time in each maintenance step (summed over the lanes; waits for the other lane's locks count in the step
 * that waited).
 */
export function sideFigures(phases: readonly ThroughputPhase[]): {
  cpu_us_per_event: number;
  step_seconds: Record<string, number>;
} {
  const steps = new Set(phases.flatMap((p) => Object.keys(p.batch_time_by_step.steps)));
  const step_seconds = Object.fromEntries(
    [...steps].map((s) => [s, Number(mean(phases.map((p) => p.batch_time_by_step.steps[s]?.seconds ?? 0)).toFixed(2))]),
  );
  return { cpu_us_per_event: Math.round(mean(phases.map((p) => p.pipeline_cpu_us_per_event))), step_seconds };
}

export async function benchAnalyticsCost(opts: AnalyticsCostOptions): Promise<void> {
  const start = new Date(Date.now() - 30 * 86_400_000);
  const byLanes: Record<string, object> = {};
  for (const [name, lanes] of [
    ['two_lanes', '2'],
    ['one_lane', '1'],
  ] as const) {
    const withAnalytics: ThroughputPhase[] = [];
    const without: ThroughputPhase[] = [];
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
        (analytics ? withAnalytics : without).push(phase);
      }
    }
    const rates = (phases: ThroughputPhase[]) => phases.map((p) => p.events_per_s);
    byLanes[name] = {
      with_events_per_s: rates(withAnalytics),
      without_events_per_s: rates(without),
      cost: analyticsCost(rates(withAnalytics), rates(without)),
      round_costs: roundCosts(rates(withAnalytics), rates(without)),
      with: sideFigures(withAnalytics),
      without: sideFigures(without),
    };
  }
  console.log(
    JSON.stringify({ bench: 'analytics-cost', demo_events: opts.events, rounds: opts.rounds, lanes: byLanes }, null, 2),
  );
}
