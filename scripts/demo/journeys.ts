/**
 * People's journeys: each person's sessions over hours to days on their 1 to 3 devices, until they stop coming
 * back, the window ends, or the stream has its exact number of events. A purchase settles its order; an
 * abandoned checkout or a lead form subscribes the person to the newsletter, which later brings email sessions.
 */
import type { PlannerContext } from './context';
import type { Device } from './devices';
import { flat } from './format';
import { Stage } from './funnel';
import { type OrderPlan, settleOrder } from './orders';
import { makePerson, type Person } from './persons';
import { Rng, SALT } from './random';
import { landingPath, planSession, type Session } from './sessions';
import { DAY, dayOf, firstVisitAt, HOUR, HOUR_DIST, MINUTE } from './time';

/** A person plans at most this many sessions. */
const MAX_SESSIONS = 14;

export interface Journeys {
  /** In planning order (person by person, each in time order). */
  sessions: Session[];
  orders: OrderPlan[];
  persons: number;
}

/** Plans people one after the other until their sessions have exactly `events` events. */
export function planJourneys(ctx: PlannerContext, events: number): Journeys {
  const sessions: Session[] = [];
  const orders: OrderPlan[] = [];
  let remaining = events;
  let persons = 0;
  while (remaining > 0) {
    const out = planPerson(ctx, persons++, remaining);
    for (const s of out.sessions) {
      sessions.push(s);
      remaining -= s.eventCount;
    }
    orders.push(...out.orders);
  }
  return { sessions, orders, persons };
}

/** Plans person `idx`'s journey; returns it cut to `budget` events. */
function planPerson(ctx: PlannerContext, idx: number, budget: number): { sessions: Session[]; orders: OrderPlan[] } {
  const rng = new Rng(ctx.keys[0], ctx.keys[1], SALT.person, idx);
  const person = makePerson(ctx, rng, idx);
  const sessions: Session[] = [];
  const orders: OrderPlan[] = [];
  const lastStart = ctx.endMs - 90 * MINUTE;
  let t = firstVisitAt(rng, ctx.startMs, ctx.dayDist);
  const multi = person.devices.length > 1;
  let used = 0;
  for (let i = 0; i < MAX_SESSIONS && t < lastStart; i++) {
    const device = pickDevice(rng, person, i);
    const s = planSession(ctx, rng, person, device, i, t);
    // A long session that would run past the window is not had: the journey stops here.
    if (s.end >= ctx.endMs) break;
    if (!device.firstLanding) {
      device.firstLanding = { site: flat(landingPath(s), s.touch.query), referrer: s.touch.referrer };
    }
    if (s.order) {
      settleOrder(s.order, rng, s.end, device.firstLanding, ctx.endMs);
      orders.push(s.order);
    }
    updatePerson(person, s, t);

    // Exact event count: cut the session that crosses the budget and stop.
    if (used + s.eventCount >= budget) {
      const keep = budget - used;
      if (keep < s.eventCount) {
        s.eventCount = keep;
        if (s.order && s.order.hasEvent) {
          orders.pop();
          s.order = null;
        }
      }
      if (s.eventCount > 0 || device.blocked) sessions.push(s);
      used += s.eventCount;
      break;
    }
    used += s.eventCount;
    sessions.push(s);

    const next = nextSessionStart(ctx, rng, s, t, multi);
    if (next === null) break;
    t = next;
  }
  numberEvents(sessions);
  return { sessions, orders };
}

/** The first session on the first device; later ones on any (people move to the laptop to buy). */
function pickDevice(rng: Rng, person: Person, i: number): Device {
  if (i === 0) return person.devices[0]!;
  // The first device a little less often than each of the others.
  return rng.chance(1 / (1 + 1.6 * (person.devices.length - 1)))
    ? person.devices[0]!
    : person.devices[1 + rng.int(person.devices.length - 1)]!;
}

/** What a session (that started at `t`) changes for its person: last purchase, subscription, abandoned checkout. */
function updatePerson(person: Person, s: Session, t: number): void {
  if (s.order) {
    person.lastPurchaseAt = t;
    if (s.acceptsMarketing && person.subscribedAt === null) person.subscribedAt = s.end;
  } else if (s.stage >= Stage.ContactInfo && s.acceptsMarketing) {
    if (person.subscribedAt === null) person.subscribedAt = s.end;
    person.abandonedAt = s.end;
  }
  if (s.lead && person.subscribedAt === null) person.subscribedAt = s.end;
}

/**
 * Start of the person's next session after `s` (which started at `t`), or null when they do not come back. Coming
 * back is more likely for multi-device people, after an abandoned checkout and after a purchase.
 */
function nextSessionStart(
  ctx: Pick<PlannerContext, 'startMs'>,
  rng: Rng,
  s: Session,
  t: number,
  multi: boolean,
): number | null {
  let pNext = multi ? 0.64 : 0.44;
  if (s.stage >= Stage.AddToCart && s.stage < Stage.Purchase) pNext += 0.15;
  if (s.stage === Stage.Purchase) pNext = 0.5;
  if (!rng.chance(pNext)) return null;
  const abandonedEmail = s.person.abandonedAt === s.end;
  const gap = abandonedEmail
    ? rng.between(3 * HOUR, 26 * HOUR)
    : rng.weighted(
        [rng.between(HOUR, 8 * HOUR), Math.round(rng.exp(2.5 * DAY)), rng.between(5 * DAY, 12 * DAY)],
        [25, 50, 25],
      );
  let next = Math.max(s.end + 35 * MINUTE, t + gap);
  // Land on a round-ish hour of the visitor's day, not in the middle of the night when the gap is long.
  if (gap > DAY) {
    const dayStart = ctx.startMs + dayOf(ctx, next) * DAY;
    const candidate = dayStart + HOUR_DIST.sample(rng) * HOUR + rng.int(HOUR);
    if (candidate > s.end + 35 * MINUTE) next = candidate;
  }
  return next;
}

/** Numbers the events of each device (`seq` from 1), session after session. */
function numberEvents(sessions: readonly Session[]): void {
  for (const s of sessions) {
    s.seqStart = s.device.seq + 1;
    s.device.seq += s.eventCount;
  }
}
