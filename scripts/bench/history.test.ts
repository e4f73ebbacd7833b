import { planDemo } from '../demo/generate';
import { withLongHistory } from './history';

describe('withLongHistory', () => {
  const demo = planDemo({ events: 2_000, seed: 7, start: new Date('2026-10-01T00:00:00Z'), days: 30 });
  const items = [...withLongHistory(demo, 3, 400).items()];

  it('keeps every demo item and adds each person’s page views, in time order', () => {
    const demoItems = [...demo.items()];
    const history = items.filter((i) => i.kind === 'event' && i.event.clientId.startsWith('history-client-'));
    expect(items).toHaveLength(demoItems.length + 3 * 400);
    expect(history).toHaveLength(3 * 400);
    expect(items.filter((i) => !history.includes(i))).toEqual(demoItems);
    for (let i = 1; i < items.length; i++) expect(items[i]!.at).toBeGreaterThanOrEqual(items[i - 1]!.at);
  });

  it('gives each person distinct event ids, increasing seq and times within the demo’s days', () => {
    const events = items.flatMap((i) =>
      i.kind === 'event' && i.event.clientId === 'history-client-1' ? [i.event] : [],
    );
    expect(new Set(events.map((e) => e.id)).size).toBe(400);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    expect(events[0]!.timestamp >= '2026-10-01T00:00:00.000Z').toBe(true);
    expect(events.at(-1)!.timestamp < '2026-10-31T00:00:00.000Z').toBe(true);
    expect(events.every((e) => e.name === 'page_viewed')).toBe(true);
    // Sessions of 20 views a minute apart, with more than the 30-minute session timeout between them.
    const gaps = events.slice(1).map((e, i) => Date.parse(e.timestamp) - Date.parse(events[i]!.timestamp));
    expect(gaps.filter((g) => g === 60_000)).toHaveLength(400 - 20);
    expect(gaps.filter((g) => g > 30 * 60_000)).toHaveLength(20 - 1);
  });

  it('makes every n-th event of each person an add-to-cart when asked', () => {
    const withCarts = [...withLongHistory(demo, 2, 100, 10).items()].flatMap((i) =>
      i.kind === 'event' && i.event.clientId === 'history-client-0' ? [i.event] : [],
    );
    expect(withCarts).toHaveLength(100);
    withCarts.forEach((e, i) => expect(e.name).toBe(i % 10 === 9 ? 'product_added_to_cart' : 'page_viewed'));
  });

  it('lands the sessions on different links in turn when asked, every event of a session on its link', () => {
    const events = [...withLongHistory(demo, 1, 100, 10, 3).items()].flatMap((i) =>
      i.kind === 'event' && i.event.clientId === 'history-client-0' ? [i.event] : [],
    );
    // Five sessions of 20 events: campaigns 0, 1, 2, 0, 1.
    const links = events.map((e) => e.context.document.location.href.replace(/^https?:\/\/[^/]+/, ''));
    expect(links).toEqual(
      [0, 1, 2, 0, 1].flatMap((c) =>
        Array.from({ length: 20 }, () => `/?utm_source=newsletter&utm_medium=email&utm_campaign=history-${c}`),
      ),
    );
    expect(events.every((e) => e.context.window?.location?.href === e.context.document.location.href)).toBe(true);
    expect(events.every((e) => e.context.document.referrer === '')).toBe(true);
  });
});
