/**
 * The ad platforms' view: the clicks each ad brought per day (the sessions it started), the conversion value each
 * platform claims (last paid click of the person in the 7 days before the order), and the daily ad spend rows
 * built from them.
 */
import type { AdSpendRow } from '../../contracts/src/pushes';
import { isActive } from './campaigns';
import type { PlannerContext } from './context';
import { DEMO_CURRENCY } from './format';
import type { OrderPlan } from './orders';
import type { Person } from './persons';
import { Rng, SALT } from './random';
import type { Session } from './sessions';
import { DAY, dayOf, HOUR, isoDay, isoSeconds } from './time';

/** Per ad index, per day of the window: sessions it brought, and order value (cents) the platform credits it. */
export interface AdActivity {
  clicks: Map<number, number[]>;
  value: Map<number, number[]>;
}

/** The platforms credit an order to the person's last paid click in this many ms before it. */
const CLICK_WINDOW = 7 * DAY;

/**
 * Counts the sessions each ad brought and credits each numbered order to its ad, as the platforms would
 * (`o.creditAd`). `sessions` in planning order.
 */
export function adActivity(
  ctx: Pick<PlannerContext, 'startMs' | 'endMs' | 'days'>,
  sessions: readonly Session[],
  orders: readonly OrderPlan[],
): AdActivity {
  const clicks = new Map<number, number[]>();
  const value = new Map<number, number[]>();
  const bump = (m: Map<number, number[]>, ad: number, day: number, v: number): void => {
    let arr = m.get(ad);
    if (!arr) m.set(ad, (arr = new Array<number>(ctx.days).fill(0)));
    arr[day] = (arr[day] ?? 0) + v;
  };
  const paidByPerson = new Map<Person, Session[]>();
  for (const s of sessions) {
    if (!s.touch.ad) continue;
    bump(clicks, s.touch.ad.index, dayOf(ctx, s.start), 1);
    const list = paidByPerson.get(s.person);
    if (list) list.push(s);
    else paidByPerson.set(s.person, [s]);
  }
  for (const o of orders) {
    const paid = (paidByPerson.get(o.person) ?? []).filter(
      (p) => p.start <= o.createdAt && o.createdAt - p.start <= CLICK_WINDOW,
    );
    const last = paid[paid.length - 1];
    if (last?.touch.ad) {
      o.creditAd = { ad: last.touch.ad, day: dayOf(ctx, last.start) };
      bump(value, last.touch.ad.index, o.creditAd.day, o.cart.total);
    }
  }
  return { clicks, value };
}

/**
 * One row per ad and day of its campaign's flight. Platforms count more clicks than the store sees sessions
 * (bounces before the page loads, bots); impressions follow from the click-through rate, spend from the cost per
 * click, conversion value is the platform's own credit (+-20%). `total` is the spend in USD.
 */
export function buildAdSpend(
  ctx: Pick<PlannerContext, 'keys' | 'startMs' | 'endMs' | 'days' | 'ads'>,
  { clicks, value }: AdActivity,
): { rows: AdSpendRow[]; total: number } {
  const rows: AdSpendRow[] = [];
  let total = 0;
  for (let day = 0; day < ctx.days; day++) {
    const dayMs = ctx.startMs + day * DAY;
    for (const ad of ctx.ads) {
      const c = ad.campaign;
      if (!isActive(c, ctx, dayMs + 12 * HOUR)) continue;
      const rng = new Rng(ctx.keys[0], ctx.keys[1], SALT.spend, ad.index, day);
      const sessions = clicks.get(ad.index)?.[day] ?? 0;
      const adClicks = sessions === 0 ? (rng.chance(0.3) ? 1 : 0) : Math.round(sessions * rng.uniform(1.08, 1.35));
      const ctr = c.ctr * rng.uniform(0.8, 1.2);
      const impressions = Math.max(adClicks, Math.round((adClicks + rng.uniform(0.2, 0.8)) / ctr));
      const spendCents =
        adClicks === 0
          ? Math.round(impressions * c.cpcCents * c.ctr * rng.uniform(0.5, 1))
          : Math.round(adClicks * c.cpcCents * rng.uniform(0.85, 1.15));
      const reported = (value.get(ad.index)?.[day] ?? 0) * rng.uniform(0.85, 1.25);
      total += spendCents;
      rows.push({
        date: isoDay(dayMs),
        platform: c.platform,
        account_id: c.accountId,
        campaign_id: c.campaignId,
        campaign_name: c.campaignName,
        adset_id: ad.adsetId,
        adset_name: ad.adsetName,
        ad_id: ad.id,
        ad_name: ad.name,
        source: ad.source,
        medium: ad.medium,
        campaign: c.key,
        spend: spendCents / 100,
        impressions,
        clicks: adClicks,
        conversion_value: Math.round(reported) / 100,
        currency: DEMO_CURRENCY,
        updated_at: isoSeconds(dayMs + DAY + 2 * HOUR),
      });
    }
  }
  return { rows, total: total / 100 };
}
