import type { StorefrontEvent } from '../../contracts/src/events';
import type { ShopOrder } from '../../contracts/src/pushes';
import { planDemo } from './generate';
import { preparePush, type PushStep } from './push';

const plan = planDemo({ events: 3_000, seed: 7, start: new Date('2025-03-01T00:00:00Z'), days: 20 });
const parse = (body: Uint8Array): unknown[] => JSON.parse(Buffer.from(body).toString('utf8')) as unknown[];

describe('preparePush', () => {
  it.each([
    { batchSize: 250, maxBodyBytes: 1_000_000 },
    { batchSize: 500, maxBodyBytes: 60_000 },
  ])('cuts the events into requests of at most $batchSize events and $maxBodyBytes bytes, in order', (shape) => {
    const { steps } = preparePush(plan, shape);
    const requests = steps.filter((s): s is Extract<PushStep, { kind: 'events' }> => s.kind === 'events');
    const sent = requests.flatMap((r) => {
      const events = parse(r.body) as StorefrontEvent[];
      expect(events).toHaveLength(r.n);
      expect(r.n).toBeLessThanOrEqual(shape.batchSize);
      expect(r.body.byteLength).toBeLessThanOrEqual(shape.maxBodyBytes);
      return events.map((e) => e.id);
    });
    expect(sent).toEqual([...plan.events()].map((e) => e.id));
    // The byte bound cut requests short of the count bound.
    if (shape.maxBodyBytes < 100_000) expect(requests.some((r) => r.n < 100)).toBe(true);
  });

  it('lets an order version go only after every request holding an event before it', () => {
    const { steps } = preparePush(plan, { batchSize: 100 });
    const requestOf = new Map<string, number>(); // event id -> number of its request, from 1
    let requests = 0;
    for (const step of steps) {
      if (step.kind === 'events') {
        requests++;
        for (const e of parse(step.body) as StorefrontEvent[]) requestOf.set(e.id, requests);
      }
    }
    const orders = steps.filter((s): s is Extract<PushStep, { kind: 'order' }> => s.kind === 'order');
    expect(orders.length).toBeGreaterThan(5);
    // Walk the stream: an order's `need` is the request of the last event before it.
    let lastEvent: string | null = null;
    let checked = 0;
    for (const item of plan.items()) {
      if (item.kind === 'event') {
        lastEvent = item.event.id;
        continue;
      }
      const step = orders[checked++]!;
      expect(JSON.parse(step.json) as ShopOrder).toEqual(item.order);
      expect(step.need).toBe(lastEvent === null ? 0 : requestOf.get(lastEvent));
    }
    expect(checked).toBe(orders.length);
  });

  it('renders the products and ad spend as requests of every row', () => {
    const prepared = preparePush(plan);
    expect(prepared.products.flatMap((r) => parse(r.body))).toEqual(plan.products);
    expect(prepared.adSpend.flatMap((r) => parse(r.body))).toEqual(plan.adSpend);
    expect(prepared.products.every((r) => r.n <= 100) && prepared.adSpend.every((r) => r.n <= 500)).toBe(true);
  });
});
