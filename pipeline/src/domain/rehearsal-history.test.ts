import { STOREFRONT_EVENT_NAMES } from '../../../contracts/src/events';
import { validateEvent, validateOrder } from '../../../contracts/src/validation';
import { formatFieldError } from '../../../contracts/src/validation/result';
import { rehearsalHistory, type RehearsalItem } from './rehearsal-history';

const END = Date.UTC(2026, 10, 30, 12);
const history = rehearsalHistory({ persons: 200, end: END, days: 60 });
const timeOf = (it: RehearsalItem): number =>
  Date.parse(it.kind === 'event' ? it.event.timestamp : it.order.updated_at);
const events = history.flatMap((it) => (it.kind === 'event' ? [it.event] : []));
const orders = history.flatMap((it) => (it.kind === 'order' ? [it.order] : []));

it('is what a storefront and a store backend send: every item valid, without a warning', () => {
  const problems = history.flatMap((it) => {
    const r = it.kind === 'event' ? validateEvent(it.event, { now: new Date(END) }) : validateOrder(it.order);
    return r.ok ? r.warnings : r.errors.map(formatFieldError);
  });
  expect(problems).toEqual([]);
});

it('holds every storefront kind, orders and their refunds, in time order within its days', () => {
  expect(new Set(events.map((e) => e.name))).toEqual(new Set(STOREFRONT_EVENT_NAMES));
  const purchases = events.filter((e) => e.name === 'checkout_completed');
  expect(purchases.length).toBeGreaterThan(10);
  expect(new Set(orders.map((o) => o.id)).size).toBe(purchases.length);
  expect(orders.filter((o) => o.refunds?.length).length).toBe(purchases.length / 2);
  const times = history.map(timeOf);
  expect(times).toEqual([...times].sort((a, b) => a - b));
  expect(Math.min(...times)).toBeGreaterThanOrEqual(END - 60 * 86_400_000);
  expect(Math.max(...times)).toBeLessThanOrEqual(END);
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
});

it('has shoppers of several visits from several sources, and second devices joined by an email', () => {
  const landings = events.filter((e) => e.name === 'page_viewed').map((e) => e.context.document.location.href);
  expect(new Set(landings.map((href) => new URL(href).searchParams.get('utm_source'))).size).toBeGreaterThan(4);
  const emailsOf = new Map<string, Set<string>>();
  for (const e of events) {
    const email =
      e.name === 'lead_form_submitted'
        ? e.data.lead.email
        : e.name === 'checkout_contact_info_submitted'
          ? e.data.checkout.email
          : null;
    if (email) emailsOf.set(email, (emailsOf.get(email) ?? new Set()).add(e.clientId));
  }
  expect([...emailsOf.values()].filter((clients) => clients.size > 1).length).toBeGreaterThan(5);
});

it('is the same history for the same options', () => {
  expect(rehearsalHistory({ persons: 20, end: END, days: 60 })).toEqual(
    rehearsalHistory({ persons: 20, end: END, days: 60 }),
  );
});
