/**
 * Settings (docs/product.md, Settings): the models and goals the store's reports accept, what feeds the store
 * (from what it received) and the identity-event destinations it feeds. Read-only; every query is scoped to
 * the caller's store.
 */
import { AD_SPEND_PLATFORM, adConnectionStatusOf, listAdConnections } from '../../../storage/ad-connections';
import {
  DATA_DRIVEN_MIN_CONVERSIONS,
  DATA_DRIVEN_MIN_PATHS,
  FIT_WEIGHT_SCALE,
  GOALS,
  type Goal,
  MODELS,
  type Model,
} from '../../../contracts/src/attribution';
import { loadFits } from '../../../storage/data-driven-fits';
import type {
  DataDrivenStatus,
  DestinationConnectionData,
  DestinationConnectionRecord,
  ModelSettingRecord,
  SettingGoalsData,
  SettingModelsData,
  SourceConnectionData,
  SourceConnectionRecord,
} from '../../../contracts/src/settings';
import { localDateTime } from '../../../contracts/src/time';
import { IDENTITY_EVENTS } from '../../../contracts/src/identity-events';
import type { Db } from '../../../storage/db';
import type { StoreRecord } from '../../../storage/store-registry';

/** The model reports are read under when a caller names none. */
export const DEFAULT_MODEL: Model = 'last';
const DAY_MS = 86_400_000;
/** A source counts as connected when something arrived within this window. */
const CONNECTED_WITHIN_MS = 7 * DAY_MS;

const MODEL_TEXT: Record<Model, { name: string; description: string }> = {
  first: { name: 'First touch', description: 'All the credit to the first touchpoint in the lookback window.' },
  last: { name: 'Last touch', description: 'All the credit to the last touchpoint before the conversion.' },
  linear: { name: 'Linear', description: 'Equal credit to every touchpoint in the lookback window.' },
  position: {
    name: 'Position based',
    description: '40 % to the first and the last touchpoint, 20 % shared by those between (half each for two).',
  },
  time_decay: {
    name: 'Time decay',
    description:
      'Each touchpoint weighs 2^(-t/H), t the time from its session start to the conversion and H the half-life, normalised to 1.',
  },
  data_driven: {
    name: 'Data-driven',
    description:
      "Each channel's removal effect in a Markov chain fitted on the store's converting and non-converting journeys of the last 90 days; a conversion's credit goes to its channels by those weights, then equally to each channel's touchpoints.",
  },
};

const POSITION_WEIGHTS: Partial<Record<Model, ModelSettingRecord['position_weights']>> = {
  first: { first: 1, middle: 0, last: 0 },
  last: { first: 0, middle: 0, last: 1 },
  position: { first: 0.4, middle: 0.2, last: 0.4 },
};

const GOAL_TEXT: Record<Goal, { name: string; event_type: string }> = {
  purchase: { name: 'Purchase', event_type: 'checkout_completed' },
  add_to_cart: { name: 'Add to cart', event_type: 'product_added_to_cart' },
  checkout_start: { name: 'Checkout started', event_type: 'checkout_started' },
  payment_info_submitted: { name: 'Payment info submitted', event_type: 'payment_info_submitted' },
};

export class SettingsService {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  async models(store: StoreRecord): Promise<SettingModelsData> {
    const fits = new Map((await loadFits(this.db, store.store_id)).map((f) => [f.goal, f]));
    const dataDriven: DataDrivenStatus = {
      min_conversions: DATA_DRIVEN_MIN_CONVERSIONS,
      min_paths: DATA_DRIVEN_MIN_PATHS,
      goals: GOALS.map((goal) => {
        const f = fits.get(goal);
        return {
          goal,
          fitted: Boolean(f?.weights),
          reason: f ? f.reason : 'not fitted yet: the fit runs nightly (or npm run models -- fit)',
          weights: Object.fromEntries(Object.entries(f?.weights ?? {}).map(([c, w]) => [c, w / FIT_WEIGHT_SCALE])),
          window_from: f?.windowFrom ?? null,
          window_to: f?.windowTo ?? null,
          paths: f?.paths ?? 0,
          conversions: f?.conversions ?? 0,
          fitted_at: f ? localDateTime(f.fittedAt.getTime(), store.timezone) : null,
        };
      }),
    };
    return {
      records: MODELS.map((code) => ({
        code,
        name: MODEL_TEXT[code].name,
        base_model: code,
        lookback_days: store.lookback_days,
        position_weights: POSITION_WEIGHTS[code] ?? null,
        half_life_days: code === 'time_decay' ? Number(store.half_life_days) : null,
        is_default: code === DEFAULT_MODEL,
        description: MODEL_TEXT[code].description,
        ...(code === 'data_driven' ? { data_driven: dataDriven } : {}),
      })),
    };
  }

  async goals(store: StoreRecord): Promise<SettingGoalsData> {
    const since = new Date(this.now() - 30 * DAY_MS).toISOString();
    const rows = await this.db.query<{ goal: string; n: string }>(
      'settings.goal_counts',
      `select goal, count(*) as n from conversions where store_id = $1 and occurred_at >= $2 group by goal`,
      [store.store_id, since],
    );
    const counts = new Map(rows.map((r) => [r.goal, Number(r.n)]));
    return {
      goals: GOALS.map((code) => ({
        code,
        ...GOAL_TEXT[code],
        lookback_days: store.lookback_days,
        conversion_num: counts.get(code) ?? 0,
      })),
    };
  }

  async sources(store: StoreRecord): Promise<SourceConnectionData> {
    const now = this.now();
    const params = [store.store_id, new Date(now - DAY_MS).toISOString()];
    // Shopify's pixels give their events ids starting with `sh-`; the snippet and servers give others.
    const [events, pushes, spend, connections, pulled] = await Promise.all([
      this.db.query<{ pixel: boolean; last_at: Date | null; n: string }>(
        'settings.source_events',
        `select pixel, max(stored_at) as last_at, count(*) filter (where counted) as n from (
           (select true as pixel, stored_at, false as counted from event_facts where store_id = $1 and event_id like 'sh-%'
            order by stored_at desc limit 1)
           union all
           (select false, stored_at, false from event_facts where store_id = $1 and event_id not like 'sh-%'
            order by stored_at desc limit 1)
           union all
           select event_id like 'sh-%', stored_at, true from event_facts where store_id = $1 and stored_at >= $2
         ) x group by pixel`,
        params,
      ),
      this.db.query<{ last_at: Date | null; n: string }>(
        'settings.source_pushes',
        `select max(updated_at) as last_at, count(*) filter (where updated_at >= $2) as n from (
           select updated_at from shop_orders where store_id = $1
           union all select updated_at from shop_products where store_id = $1
           union all select updated_at from shop_customers where store_id = $1
         ) x`,
        params,
      ),
      this.db.query<{ platform: string; account_id: string; last_at: Date; n: string }>(
        'settings.source_spend',
        `select platform, account_id, max(updated_at) as last_at, count(*) filter (where updated_at >= $2) as n
         from ad_spend where store_id = $1 group by platform, account_id order by platform, account_id`,
        params,
      ),
      // Store platform connections (docs/product.md, Store connections), from their accepted deliveries.
      this.db.query<{ connection_id: string; kind: string; account: string; last_at: Date | null; n: string }>(
        'settings.source_connections',
        `select c.connection_id, c.kind, c.account, max(d.received_at) as last_at,
                count(d.delivery_key) filter (where d.received_at >= $2) as n
         from store_connections c left join store_hook_deliveries d on d.connection_id = c.connection_id
         where c.store_id = $1 group by c.connection_id order by c.created_at, c.connection_id`,
        params,
      ),
      listAdConnections(this.db, store.store_id),
    ]);
    const record = (
      id: string,
      platformType: string,
      accountId: string,
      name: string,
      lastAt: Date | null | undefined,
      n: string | undefined,
    ): SourceConnectionRecord => ({
      id,
      platform_type: platformType,
      account_id: accountId,
      name,
      connected: lastAt ? now - lastAt.getTime() <= CONNECTED_WITHIN_MS : false,
      last_event_at: lastAt ? localDateTime(lastAt.getTime(), store.timezone) : null,
      events_24h: Number(n ?? 0),
    });
    const pixel = events.find((e) => e.pixel);
    const snippet = events.find((e) => !e.pixel);
    return {
      records: [
        record('shopify_pixel', 'shopify_pixel', '', 'Shopify pixel', pixel?.last_at, pixel?.n),
        record('web_snippet', 'web_snippet', '', 'Web snippet and server events', snippet?.last_at, snippet?.n),
        record(
          'store_push',
          'store_push',
          '',
          'Store pushes (orders, products, customers)',
          pushes[0]?.last_at,
          pushes[0]?.n,
        ),
        ...connections.map((c) =>
          record(
            c.connection_id,
            c.kind,
            c.account,
            `${c.kind === 'shopify' ? 'Shopify' : 'WooCommerce'} ${c.account}`,
            c.last_at,
            c.n,
          ),
        ),
        // An account pulled through a connection is listed once, as the connection, with its pull status.
        ...pulled.map((c) => {
          const platform = AD_SPEND_PLATFORM[c.kind];
          const s = spend.find((x) => x.platform === platform && x.account_id === c.accountId);
          return {
            ...record(c.id, platform, c.accountId, `${platform} ads (pulled)`, s?.last_at ?? c.lastPullAt, s?.n),
            ...(c.status === 'failing' ? { connected: false } : {}),
            pull: adConnectionStatusOf(c, (d) => localDateTime(d.getTime(), store.timezone)),
          };
        }),
        ...spend
          .filter((s) => !pulled.some((c) => AD_SPEND_PLATFORM[c.kind] === s.platform && c.accountId === s.account_id))
          .map((s) =>
            record(`ad:${s.platform}:${s.account_id}`, s.platform, s.account_id, `${s.platform} ads`, s.last_at, s.n),
          ),
      ],
    };
  }

  async destinations(store: StoreRecord): Promise<DestinationConnectionData> {
    const rows = await this.db.query<{
      destination_id: string;
      kind: string;
      url: string;
      events: string[];
      enabled: boolean;
      settings: Record<string, unknown> | null;
      last_delivery_at: Date | null;
      last_failure_at: Date | null;
      dead_letters: string;
    }>(
      'settings.destinations',
      `select d.destination_id, d.kind, d.url, d.events, d.settings, d.enabled, d.last_delivery_at, d.last_failure_at,
              (select count(*) from webhook_dead_letters l
               where l.store_id = d.store_id and l.destination_id = d.destination_id and l.redriven_at is null) as dead_letters
       from webhook_destinations d where d.store_id = $1 order by d.created_at, d.destination_id`,
      [store.store_id],
    );
    return {
      records: rows.map((r) => ({
        id: r.destination_id,
        ...destinationKindFields(r),
        status: r.enabled ? 'enabled' : 'disabled',
        last_delivery_at: r.last_delivery_at ? localDateTime(r.last_delivery_at.getTime(), store.timezone) : null,
        failing:
          r.last_failure_at !== null &&
          (r.last_delivery_at === null || r.last_failure_at.getTime() > r.last_delivery_at.getTime()),
        dead_letters: Number(r.dead_letters),
      })),
    };
  }
}

/** The type, name and events of a destination by its kind (an ad platform's from its settings, never a token). */
function destinationKindFields(r: {
  kind: string;
  url: string;
  events: string[];
  settings: Record<string, unknown> | null;
}): Pick<DestinationConnectionRecord, 'platform_type' | 'name' | 'server_config'> {
  const setting = (k: string): string => (typeof r.settings?.[k] === 'string' ? r.settings[k] : '');
  const test = setting('testEventCode') ? ' (test events)' : '';
  switch (r.kind) {
    case 'meta_capi':
      return {
        platform_type: 'meta_capi',
        name: `Meta pixel ${setting('pixelId')}${test}`,
        server_config: { purchase: true },
      };
    case 'google_ads':
      return {
        platform_type: 'google_ads',
        name: `Google Ads ${setting('customerId')} ${setting('conversionAction').split('/').pop() ?? ''}`.trim(),
        server_config: { purchase: true },
      };
    case 'tiktok_events':
      return {
        platform_type: 'tiktok_events',
        name: `TikTok pixel ${setting('pixelCode')}${test}`,
        server_config: { purchase: true },
      };
    default:
      return {
        platform_type: 'webhook',
        name: r.kind === 'klaviyo' ? `${hostOf(r.url)} (klaviyo)` : hostOf(r.url),
        server_config: Object.fromEntries(IDENTITY_EVENTS.map((e) => [e, r.events.includes(e)])),
      };
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
