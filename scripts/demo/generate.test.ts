import type { StorefrontEvent } from '../../contracts/src/events';
import type { ShopOrder } from '../../contracts/src/pushes';
import { validateAdSpendRow, validateEvent, validateOrder, validateProduct } from '../../contracts/src/validation';
import { generateDemoStream, planDemo, Rng, type DemoOptions, type DemoStream } from './generate';

const START = new Date('2025-03-01T00:00:00Z');
const DAYS = 30;
const FAR_FUTURE = new Date('2100-01-01T00:00:00Z');
const opts = (events: number, seed = 1): DemoOptions => ({ events, seed, start: START, days: DAYS });

/** The landing page view of each session: the first event, or one carrying a campaign or an outside referrer. */
function landings(events: readonly StorefrontEvent[]): StorefrontEvent[] {
  const seen = new Set<string>();
  return events.filter((e) => {
    const first = !seen.has(e.clientId);
    seen.add(e.clientId);
    if (e.name !== 'page_viewed') return false;
    const ref = e.context.document.referrer;
    return first || (e.context.document.location.search ?? '') !== '' || (ref !== '' && !ref.includes('shop.example'));
  });
}

const checkoutEmail = (e: StorefrontEvent): string | null | undefined => {
  switch (e.name) {
    case 'checkout_started':
    case 'checkout_contact_info_submitted':
    case 'checkout_address_info_submitted':
    case 'checkout_shipping_info_submitted':
    case 'payment_info_submitted':
    case 'checkout_completed':
      return e.data.checkout.email;
    case 'page_viewed':
    case 'collection_viewed':
    case 'search_submitted':
    case 'product_viewed':
    case 'product_added_to_cart':
    case 'product_removed_from_cart':
    case 'cart_viewed':
    case 'lead_form_submitted':
    case 'custom_event':
    case 'user_identified':
    case 'order_refunded':
      return undefined;
  }
};

describe('demo generator', () => {
  let stream: DemoStream;
  beforeAll(() => {
    stream = generateDemoStream(opts(30_000, 3));
  });

  it('is deterministic for a seed and differs for another seed', () => {
    const a = generateDemoStream(opts(3000, 42));
    const b = generateDemoStream(opts(3000, 42));
    const c = generateDemoStream(opts(3000, 43));
    expect(JSON.stringify(a)).toEqual(JSON.stringify(b));
    expect(a.events.map((e) => e.id)).not.toEqual(c.events.map((e) => e.id));
    expect(JSON.stringify(a.orders)).not.toEqual(JSON.stringify(c.orders));
    // Two passes over one plan give the same items.
    const plan = planDemo(opts(2000, 7));
    expect(JSON.stringify([...plan.items()])).toEqual(JSON.stringify([...plan.items()]));
  });

  it.each([0, 1, 2, 17, 999, 5000])('produces exactly %i events', (n) => {
    const plan = planDemo(opts(n, 5));
    let count = 0;
    for (const _ of plan.events()) count++;
    expect(count).toBe(n);
    expect(plan.summary.events).toBe(n);
  });

  it('produces events that pass validateEvent without errors or warnings', () => {
    const failures: string[] = [];
    const warnings = new Set<string>();
    for (const e of stream.events) {
      const r = validateEvent(e, { now: FAR_FUTURE });
      if (!r.ok) failures.push(`${e.name} ${e.id}: ${JSON.stringify(r.errors)}`);
      else r.warnings.forEach((w) => warnings.add(w));
    }
    expect(failures.slice(0, 5)).toEqual([]);
    expect([...warnings]).toEqual([]);
    expect(new Set(stream.events.map((e) => e.name)).size).toBe(14);
  });

  it('produces orders, products and ad spend rows that pass their validators', () => {
    const bad = [
      ...stream.orders.map((o) => validateOrder(o)),
      ...stream.products.map((p) => validateProduct(p)),
      ...stream.adSpend.map((r) => validateAdSpendRow(r)),
    ].filter((r) => !r.ok || r.warnings.length > 0);
    expect(bad.slice(0, 3)).toEqual([]);
    expect(stream.products).toHaveLength(40);
    expect(stream.products.every((p) => p.variants.length > 0 && p.variants.every((v) => v.cost))).toBe(true);
  });

  it('gives unique ids, timestamps inside the window, in time order and increasing per client', () => {
    const end = START.getTime() + DAYS * 24 * 3600 * 1000;
    expect(new Set(stream.events.map((e) => e.id)).size).toBe(stream.events.length);
    const last = new Map<string, { t: number; seq: number }>();
    let previous = 0;
    const problems: string[] = [];
    for (const e of stream.events) {
      const t = Date.parse(e.timestamp);
      if (!e.timestamp.endsWith('Z')) problems.push(`not UTC: ${e.timestamp}`);
      if (t < START.getTime() || t >= end) problems.push(`outside the window: ${e.timestamp}`);
      if (t < previous) problems.push(`out of order: ${e.timestamp}`);
      previous = t;
      const before = last.get(e.clientId);
      if (before && t <= before.t) problems.push(`client ${e.clientId} goes back in time at ${e.timestamp}`);
      if (e.seq !== (before?.seq ?? 0) + 1) problems.push(`client ${e.clientId} seq ${e.seq} after ${before?.seq}`);
      last.set(e.clientId, { t, seq: e.seq });
    }
    expect(problems.slice(0, 5)).toEqual([]);
  });

  it('pushes a matching order for every checkout_completed, and some orders without one', () => {
    const firstVersion = new Map<string, ShopOrder>();
    for (const o of stream.orders) if (!firstVersion.has(o.id)) firstVersion.set(o.id, o);
    const completed = stream.events.filter((e) => e.name === 'checkout_completed');
    expect(completed.length).toBeGreaterThan(50);
    const mismatches: string[] = [];
    for (const e of completed) {
      const checkout = e.data.checkout;
      const order = firstVersion.get(checkout.order.id);
      if (!order) {
        mismatches.push(`no order ${checkout.order.id}`);
        continue;
      }
      const dt = Date.parse(e.timestamp) - Date.parse(order.created_at);
      if (order.email !== checkout.email?.toLowerCase()) mismatches.push(`email of ${order.id}`);
      if (order.customer?.id !== checkout.order.customer?.id) mismatches.push(`customer of ${order.id}`);
      if (Number(order.total_price) !== checkout.totalPrice.amount) mismatches.push(`total of ${order.id}`);
      if (order.checkout_token !== checkout.token) mismatches.push(`token of ${order.id}`);
      if (dt < 0 || dt > 60_000) mismatches.push(`created_at of ${order.id} is ${dt} ms before the event`);
      if (!order.landing_site?.startsWith('/')) mismatches.push(`landing_site of ${order.id}`);
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    const withEvent = new Set(completed.map((e) => e.data.checkout.order.id));
    const without = [...firstVersion.values()].filter((o) => !withEvent.has(o.id));
    expect(without.length).toBeGreaterThan(0);
    expect(without.length / firstVersion.size).toBeLessThan(0.1);
    // The server-side fallback needs the landing page of the visit.
    expect(without.every((o) => o.landing_site?.startsWith('/'))).toBe(true);
  });

  it('has repeat buyers, refunds and cancellations as later order versions', () => {
    const completed = stream.events.filter((e) => e.name === 'checkout_completed');
    expect(completed.some((e) => e.data.checkout.order.customer?.isFirstOrder === false)).toBe(true);
    expect(completed.some((e) => e.data.checkout.order.customer?.isFirstOrder === true)).toBe(true);
    const versions = new Map<string, ShopOrder[]>();
    for (const o of stream.orders) versions.set(o.id, [...(versions.get(o.id) ?? []), o]);
    const later = [...versions.values()].filter((v) => v.length > 1);
    for (const v of later) {
      expect(v).toHaveLength(2);
      expect(Date.parse(v[1]!.updated_at)).toBeGreaterThan(Date.parse(v[0]!.updated_at));
    }
    const refunded = later.filter((v) => (v[1]!.refunds ?? []).length > 0).map((v) => v[1]!);
    const cancelled = later.filter((v) => v[1]!.cancelled_at).map((v) => v[1]!);
    expect(refunded.length).toBeGreaterThan(0);
    expect(cancelled.length).toBeGreaterThan(0);
    for (const o of refunded) {
      const tx = o.refunds![0]!.transactions[0]!;
      expect(tx).toMatchObject({ kind: 'refund', status: 'success' });
      expect(Number(tx.amount)).toBeGreaterThan(0);
      expect(Number(tx.amount)).toBeLessThanOrEqual(Number(o.total_price));
    }
    const share = (n: number): number => n / versions.size;
    expect(share(refunded.length)).toBeLessThan(0.15);
    expect(share(cancelled.length)).toBeLessThan(0.05);
  });

  it('has people who use two or more devices with the same checkout email', () => {
    const clientsByEmail = new Map<string, Set<string>>();
    for (const e of stream.events) {
      const email = checkoutEmail(e);
      if (!email) continue;
      const key = email.trim().toLowerCase();
      clientsByEmail.set(key, (clientsByEmail.get(key) ?? new Set()).add(e.clientId));
    }
    const multi = [...clientsByEmail.values()].filter((s) => s.size >= 2);
    expect(multi.length).toBeGreaterThan(3);
    // Some buyers type their address with capitals (identity must normalize it).
    expect(stream.events.some((e) => /[A-Z]/.test(checkoutEmail(e) ?? ''))).toBe(true);
  });

  it('brings visitors from every channel with realistic landing URLs', () => {
    const pages = landings(stream.events).map((e) => ({
      search: e.context.document.location.search ?? '',
      referrer: e.context.document.referrer,
    }));
    const has = (pred: (p: { search: string; referrer: string }) => boolean): boolean => pages.some(pred);
    expect(has((p) => /utm_source=google&utm_medium=cpc/.test(p.search) && p.search.includes('gclid='))).toBe(true);
    expect(
      has((p) => /utm_source=facebook&utm_medium=paid_social/.test(p.search) && p.search.includes('fbclid=')),
    ).toBe(true);
    expect(has((p) => /utm_source=facebook&utm_medium=cpc&utm_campaign=retargeting_30d/.test(p.search))).toBe(true);
    expect(has((p) => /utm_source=instagram&utm_medium=paid_social/.test(p.search))).toBe(true);
    expect(has((p) => p.search.includes('ttclid='))).toBe(true);
    expect(has((p) => p.search === '' && p.referrer === 'https://www.google.com/')).toBe(true);
    expect(has((p) => !p.search.includes('utm_') && p.referrer === 'https://l.facebook.com/')).toBe(true);
    expect(has((p) => /utm_source=klaviyo&utm_medium=email/.test(p.search))).toBe(true);
    expect(has((p) => p.search === '' && /^https:\/\/[a-z.]*(blog|brief)/.test(p.referrer))).toBe(true);
    expect(has((p) => p.search === '' && p.referrer === '')).toBe(true);
    for (const campaign of ['spring_sale', 'brand_search', 'retargeting_30d']) {
      expect(has((p) => p.search.includes(`utm_campaign=${campaign}`))).toBe(true);
    }
    expect(stream.events.some((e) => e.name === 'lead_form_submitted')).toBe(true);
  });

  it('has a realistic funnel: about 3% of sessions buy', () => {
    const { summary } = stream;
    expect(summary.purchaseRate).toBeGreaterThan(0.015);
    expect(summary.purchaseRate).toBeLessThan(0.06);
    const count = (name: string): number => stream.events.filter((e) => e.name === name).length;
    expect(count('page_viewed')).toBeGreaterThan(count('product_added_to_cart'));
    expect(count('product_added_to_cart')).toBeGreaterThan(count('checkout_started'));
    expect(count('checkout_started')).toBeGreaterThan(count('payment_info_submitted'));
    expect(count('payment_info_submitted')).toBeGreaterThan(count('checkout_completed'));
  });

  it('reports ad spend for the paid campaigns with the utm values of the event URLs', () => {
    const searches = landings(stream.events).map((e) => e.context.document.location.search ?? '');
    const keys = new Set(
      searches.map((s) => {
        const q = new URLSearchParams(s);
        return `${q.get('utm_source')}/${q.get('utm_medium')}/${q.get('utm_campaign')}`;
      }),
    );
    const rows = stream.adSpend;
    expect(new Set(rows.map((r) => r.platform))).toEqual(new Set(['google', 'facebook', 'tiktok']));
    for (const r of rows) {
      expect(keys.has(`${r.source}/${r.medium}/${r.campaign}`)).toBe(true);
      expect(r.currency).toBe('USD');
      expect(r.clicks).toBeLessThanOrEqual(r.impressions);
    }
    const dates = new Set(rows.map((r) => r.date));
    expect(dates.size).toBe(DAYS);
    expect([...dates].sort()[0]).toBe('2025-03-01');
    expect(rows.reduce((a, r) => a + r.spend, 0)).toBeGreaterThan(0);
    expect(rows.some((r) => r.conversion_value > 0)).toBe(true);
  });

  it('carries the ad ids of Google, Meta and TikTok in paid landing URLs, each naming an ad of the spend rows', () => {
    const ads = new Set(stream.adSpend.map((r) => `${r.platform}/${r.campaign_id}/${r.adset_id}/${r.ad_id}`));
    const seen = new Set<string>();
    for (const e of landings(stream.events)) {
      const q = new URLSearchParams(e.context.document.location.search ?? '');
      const ids = q.has('creative')
        ? ['google', q.get('campaignid'), q.get('adgroupid'), q.get('creative')]
        : q.has('adset_id')
          ? ['facebook', q.get('utm_id'), q.get('adset_id'), q.get('ad_id')]
          : q.has('ad_group_id')
            ? ['tiktok', q.get('campaign_id'), q.get('ad_group_id'), q.get('ad_id')]
            : null;
      if (!ids) continue;
      const key = ids.join('/');
      expect(ads.has(key)).toBe(true);
      seen.add(ids[0]!);
    }
    expect(seen).toEqual(new Set(['google', 'facebook', 'tiktok']));
  });

  it('interleaves order versions after the events before them', () => {
    const plan = planDemo(opts(8000, 11));
    let previous = 0;
    const completedAt = new Map<string, number>();
    const problems: string[] = [];
    for (const item of plan.items()) {
      if (item.at < previous) problems.push(`out of order at ${item.at}`);
      previous = item.at;
      if (item.kind === 'event' && item.event.name === 'checkout_completed') {
        completedAt.set(item.event.data.checkout.order.id, item.at);
      }
      if (item.kind === 'order') {
        const at = completedAt.get(item.order.id);
        if (at !== undefined && item.at < at) problems.push(`order ${item.order.id} before its event`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('uses the store host and starts at the UTC day of start', () => {
    const s = generateDemoStream({
      events: 50,
      seed: 2,
      start: new Date('2025-06-10T17:45:00Z'),
      storeHost: 'demo.test',
    });
    expect(s.events.every((e) => e.context.document.location.href.startsWith('https://demo.test/'))).toBe(true);
    expect(s.events.every((e) => e.timestamp >= '2025-06-10T00:00:00.000Z')).toBe(true);
    expect(() => planDemo({ events: -1, seed: 1, start: START })).toThrow(RangeError);
  });

  it('has a seeded PRNG', () => {
    const a = new Rng(1, 2);
    const b = new Rng(1, 2);
    const xs = Array.from({ length: 5 }, () => a.u32());
    expect(Array.from({ length: 5 }, () => b.u32())).toEqual(xs);
    expect(new Rng(1, 3).u32()).not.toBe(xs[0]);
    const r = new Rng(9);
    const mean = Array.from({ length: 10_000 }, () => r.next()).reduce((x, y) => x + y, 0) / 10_000;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
  });

  it('generates 200,000 events quickly (timing printed, not asserted)', () => {
    const started = performance.now();
    const plan = planDemo(opts(200_000, 1));
    const planned = performance.now();
    let n = 0;
    for (const _ of plan.events()) n++;
    const done = performance.now();
    expect(n).toBe(200_000);
    console.log(
      `demo generator: 200000 events planned in ${Math.round(planned - started)} ms, built in ${Math.round(done - planned)} ms ` +
        `(${Math.round(200_000 / ((done - started) / 1000))} events/s); ${plan.summary.orders} orders, ${plan.summary.sessions} sessions`,
    );
  });
});
