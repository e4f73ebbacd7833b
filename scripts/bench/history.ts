/**
 * `npm run bench -- history`: the pipeline's throughput on the demo stream, then on the same stream with a few
 * persons of long history woven in (sessions of 20 page views a minute apart, spread evenly over the period),
 * each run in a fresh environment.
 * Every batch recomputes each person it touches from all of its facts, so such a person costs more with every
 * event it adds; the target is throughput within 20 % of the normal stream. The views of the second run are
 * reconciled afterwards (the drift must be zero).
 */
import type { StorefrontEvent } from '../../contracts/src/events';
import { reconcileStore } from '../../pipeline/src/operations/reconcile';
import { type DemoItem, type DemoPlan, planDemo } from '../demo/generate';
import type { DemoSource } from '../demo/push';
import { inFreshEnv } from './bench-env';
import { throughputPhase } from './pipeline';

export interface HistoryBenchOptions {
  events: number;
  /** Persons of long history. */
  persons: number;
  /** Page views of each. */
  each: number;
}

const DAYS = 30;
const VIEWS_PER_SESSION = 20;

/**
 * The demo stream with `persons` clients of `each` page views, in sessions spread evenly over its days (the
 * persons' sessions staggered), merged in time order.
 */
export function withLongHistory(demo: DemoPlan, persons: number, each: number): DemoSource {
  let template: StorefrontEvent | undefined;
  for (const e of demo.events()) {
    if (e.name === 'page_viewed') {
      template = e;
      break;
    }
  }
  if (!template) throw new Error('the demo stream has no page view to copy');
  const start = demo.options.start.getTime();
  const sessions = Math.ceil(each / VIEWS_PER_SESSION);
  const step = (DAYS * 86_400_000) / sessions;
  const history: DemoItem[] = [];
  for (let k = 0; k < persons; k++) {
    for (let i = 0; i < each; i++) {
      const session = Math.floor(i / VIEWS_PER_SESSION);
      const at = Math.round(start + (session + k / persons) * step + (i % VIEWS_PER_SESSION) * 60_000);
      history.push({
        kind: 'event',
        at,
        event: {
          ...template,
          id: `sh-history-${k}-${i}`,
          clientId: `history-client-${k}`,
          seq: i + 1,
          timestamp: new Date(at).toISOString(),
        },
      });
    }
  }
  history.sort((a, b) => a.at - b.at);
  return {
    products: demo.products,
    adSpend: demo.adSpend,
    *items() {
      let h = 0;
      for (const item of demo.items()) {
        while (h < history.length && history[h]!.at <= item.at) yield history[h++]!;
        yield item;
      }
      while (h < history.length) yield history[h++]!;
    },
  };
}

export async function benchHistory(opts: HistoryBenchOptions): Promise<void> {
  const start = new Date(Date.now() - DAYS * 86_400_000);
  const plan = () => planDemo({ events: opts.events, seed: 42, start, days: DAYS });
  const normal = await inFreshEnv({}, (env) => {
    const demo = plan();
    return throughputPhase(env, demo, demo.summary.events);
  });
  const extra = opts.persons * opts.each;
  const history = await inFreshEnv({}, async (env) => {
    const demo = plan();
    const phase = await throughputPhase(
      env,
      withLongHistory(demo, opts.persons, opts.each),
      demo.summary.events + extra,
    );
    await env.stopPipeline();
    const drift = await reconcileStore(env.db, env.store.store_id);
    return { ...phase, reconciliation_drift: drift.driftCount };
  });
  console.log(
    JSON.stringify(
      {
        bench: 'history',
        demo_events: opts.events,
        long_history: { persons: opts.persons, events_each: opts.each },
        normal,
        with_long_history: history,
        throughput_ratio: Number((history.events_per_s / normal.events_per_s).toFixed(3)),
      },
      null,
      2,
    ),
  );
}
