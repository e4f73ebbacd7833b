/**
 * `npm run bench -- fit`: the data-driven model's fit of a demo store (docs/product.md, Attribution,
 * "Data-driven"): a month of demo traffic is pushed and applied, then the store is fitted as the nightly job
 * does. Figures from the job's own report: seconds to read the paths and fit every goal, and seconds to store the
 * fits and recompute the store under them (one transaction); then a second fit on the same data (nothing to
 * recompute). The thresholds are lowered for small stores so that a goal is fitted.
 */
import { fitStore } from '../../pipeline/src/jobs/data-driven-fit';
import { planDemo } from '../demo/generate';
import { startBenchEnv } from './bench-env';
import { throughputPhase } from './pipeline';

export interface FitBenchOptions {
  events: number;
}

export async function benchFit(opts: FitBenchOptions): Promise<void> {
  const env = await startBenchEnv({ withPipeline: false });
  try {
    const demo = planDemo({ events: opts.events, seed: 42, start: new Date(Date.now() - 60 * 86_400_000), days: 60 });
    const load = await throughputPhase(env, demo, demo.summary.events);
    const thresholds = { minConversions: 20, minPaths: 100 };
    const first = await fitStore(env.db, env.store.store_id, { now: Date.now(), ...thresholds });
    const second = await fitStore(env.db, env.store.store_id, { now: Date.now(), ...thresholds });
    const purchase = first.goals.find((g) => g.goal === 'purchase');
    console.log(
      JSON.stringify(
        {
          bench: 'fit',
          demo_events: demo.summary.events,
          load_seconds: load.seconds,
          goals_fitted: first.goals.filter((g) => g.fitted).map((g) => g.goal),
          purchase: purchase && {
            conversions: purchase.conversions,
            paths: purchase.paths,
            distinct_paths: purchase.distinct_paths,
            weights: purchase.weights,
          },
          fit_seconds: first.fit_seconds,
          recompute_seconds: first.recompute_seconds,
          recomputed_conversions: first.recomputed_conversions,
          second_fit: {
            fit_seconds: second.fit_seconds,
            recompute_seconds: second.recompute_seconds,
            changed: second.goals.some((g) => g.changed),
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
