/**
 * What the app learns once after sign-in: the store's today and freshness (get/data-health, which also proves
 * the key), the models (get/setting-models when the server has it, else the built-in ones of the contracts)
 * and the goals likewise.
 */
import { GOALS, RULE_BASED_MODELS } from '../../contracts/src/attribution';
import { offeredGoals } from '../../contracts/src/settings';
import type { Client } from './api';
import type { Option } from './state';
import type { DataHealth, SettingModel } from './types';

const NAMES: Record<string, string> = {
  first: 'First touch',
  last: 'Last touch',
  linear: 'Linear',
  position: 'Position based',
  purchase: 'Purchase',
  add_to_cart: 'Add to cart',
  checkout_start: 'Checkout started',
  payment_info_submitted: 'Payment info submitted',
};
const option = (code: string): Option => ({ code, name: NAMES[code] ?? code });

export interface Bootstrap {
  today: string;
  freshness: string | null;
  models: Option[];
  defaultModel: string;
  goals: Option[];
  lookbackDays: number | null;
  /** The operations of this server (paths after `/{version}/api/`), for views that need one. */
  operations: Set<string>;
}

/** The operations this server has, from its OpenAPI document (public), so that absent ones are not probed. */
async function operations(base = ''): Promise<Set<string>> {
  const res = await fetch(`${base}/openapi.json`);
  if (!res.ok) return new Set();
  const doc = (await res.json()) as { paths?: Record<string, unknown> };
  return new Set(Object.keys(doc.paths ?? {}).map((p) => p.replace(/^\/\{version\}\/api\//, '')));
}

export async function bootstrap(client: Client): Promise<Bootstrap> {
  const [health, ops] = await Promise.all([client.post<DataHealth>('get/data-health'), operations()]);
  const [models, goals] = await Promise.all([
    ops.has('get/setting-models') ? client.post<{ records: SettingModel[] }>('get/setting-models') : null,
    ops.has('get/setting-goals')
      ? client.post<{ goals: Array<{ code: string; name: string }> }>('get/setting-goals')
      : null,
  ]);
  // `data_driven` is offered once the store is fitted for some goal; a goal without a fit answers 400 under it.
  const modelList: Option[] = models?.records.length
    ? models.records
        .filter((m) => offeredGoals(m)?.length !== 0)
        .map((m) => {
          const fitted = m.data_driven?.goals.filter((g) => g.fitted);
          return fitted
            ? {
                code: m.code,
                name: m.name,
                goals: offeredGoals(m),
                fits: Object.fromEntries(fitted.map((g) => [g.goal, { weights: g.weights, fittedAt: g.fitted_at }])),
              }
            : { code: m.code, name: m.name };
        })
    : RULE_BASED_MODELS.map(option);
  return {
    today: health.now.slice(0, 10),
    freshness: health.views_updated_at,
    models: modelList,
    defaultModel: models?.records.find((m) => m.is_default)?.code ?? 'last',
    goals: goals?.goals.length ? goals.goals.map((g) => ({ code: g.code, name: g.name })) : GOALS.map(option),
    lookbackDays: models?.records[0]?.lookback_days ?? null,
    operations: ops,
  };
}
