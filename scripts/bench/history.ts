/**
 * `npm run bench -- history`: the pipeline's throughput on the demo stream, then on the same stream with a few
 * persons of long history woven in (sessions of 20 page views a minute apart, spread evenly over the period;
 * with `--carts-every n` every n-th of them an add-to-cart, so that such a person also has many conversions to
 * credit; with `--landings n` its sessions come from n different newsletter links, in turn, instead of all
 * from the same page), each run in a fresh environment.
 * Every batch loads each person it touches with all of its facts, and credits again all the conversions of
 * those it cannot extend, so such a person costs more with every event it adds; the target is throughput within
 * 20 % of the normal stream. The views of the second run are
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
  /** Events of each. */
  each: number;
  /** Make every n-th event of a long-history person an add-to-cart, a conversion (absent: page views only). */
  cartsEvery?: number;
  /** Land such a person's sessions on this many different links, in turn (absent: all on the same page). */
  landings?: number;
}

const DAYS = 30;
const VIEWS_PER_SESSION = 20;

/** The demo stream's first event of this name, to copy. */
function firstOf(demo: DemoPlan, name: StorefrontEvent['name']): StorefrontEvent {
  for (const e of demo.events()) if (e.name === name) return e;
  throw new Error(`the demo stream has no ${name} event to copy`);
}

/** The event's page context on the link `?utm_source=newsletter&utm_medium=email&utm_campaign=<campaign>`. */
function onLink(template: StorefrontEvent, campaign: string): StorefrontEvent['context'] {
  const { document, window } = template.context;
  const search = `?utm_source=newsletter&utm_medium=email&utm_campaign=${campaign}`;
  const location = { ...document.location, href: `${document.location.origin}/${search}`, pathname: '/', search };
  return { ...template.context, document: { ...document, location, referrer: '' }, window: { ...window, location } };
}

/**
 * The demo stream with `persons` clients of `each` events, in sessions spread evenly over its days (the
 * persons' sessions staggered), merged in time order: page views, and with `cartsEvery` every n-th of them an
 * add-to-cart. With `landings`, every event of a person's s-th session is on the link of campaign `s % landings`,
 * so that its sessions' touchpoints differ.
 */
export function withLongHistory(
  demo: DemoPlan,
  persons: number,
  each: number,
  cartsEvery?: number,
  landings?: number,
): DemoSource {
  const view = firstOf(demo, 'page_viewed');
  const cart = cartsEvery ? firstOf(demo, 'product_added_to_cart') : view;
  const links = Array.from({ length: landings ?? 0 }, (_, c) => onLink(view, `history-${c}`));
  const start = demo.options.start.getTime();
  const sessions = Math.ceil(each / VIEWS_PER_SESSION);
  const step = (DAYS * 86_400_000) / sessions;
  const history: DemoItem[] = [];
  for (let k = 0; k < persons; k++) {
    for (let i = 0; i < each; i++) {
      const session = Math.floor(i / VIEWS_PER_SESSION);
      const at = Math.round(start + (session + k / persons) * step + (i % VIEWS_PER_SESSION) * 60_000);
      const template = cartsEvery && i % cartsEvery === cartsEvery - 1 ? cart : view;
      history.push({
        kind: 'event',
        at,
        event: {
          ...template,
          ...(links.length ? { context: links[session % links.length]! } : {}),
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
      withLongHistory(demo, opts.persons, opts.each, opts.cartsEvery, opts.landings),
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
        long_history: {
          persons: opts.persons,
          events_each: opts.each,
          carts_every: opts.cartsEvery ?? null,
          landings: opts.landings ?? null,
        },
        normal,
        with_long_history: history,
        throughput_ratio: Number((history.events_per_s / normal.events_per_s).toFixed(3)),
      },
      null,
      2,
    ),
  );
}
