import fc from 'fast-check';
import {
  addToCart,
  checkoutCompleted,
  DAY,
  HOUR,
  makeEvent,
  ms,
  page,
  pageView,
  personFacts,
  UNIT,
} from '../../../../test/support/fact-builders';
import type { EventFact } from '../facts';
import { recomputePerson, type StoreRules } from '../recompute-person';
import {
  accumulateContribution,
  accumulatePart,
  accumulateSpanChange,
  ANALYTICS_ROLLUPS,
  type AnalyticsDelta,
  analyticsRollupRows,
  CONTRIBUTION_PARTS,
  contributionOf,
  diffPart,
  emptyDelta,
  entriesOf,
  type PersonContribution,
} from './analytics';

const RULES: StoreRules = { timezone: 'UTC', lookbackDays: 30, halfLifeDays: 7 };
const T0 = ms('2026-03-02T10:00:00Z');
const SOURCES = ['utm_source=google&utm_medium=cpc&utm_campaign=brand', 'utm_source=newsletter&utm_medium=email', ''];

/** The events a person may have: visits from three sources over four days, product views, a cart and a purchase. */
function eventPool(person: string): EventFact[] {
  const client = `${person}-c`;
  const item = (p: string): [string, string, number, number][] => [[p, `${p}-v`, 1, 2000]];
  const events: EventFact[] = [];
  for (let d = 0; d < 4; d++) {
    const at = T0 + d * DAY;
    events.push(pageView(`${person}-v${d}`, at, page('/', SOURCES[d % 3]), '', client));
    events.push(
      makeEvent({
        eventId: `${person}-p${d}`,
        at: at + 60_000,
        name: 'product_viewed',
        clientId: client,
        items: item(`prod${d % 2}`),
      }),
    );
  }
  events.push(
    addToCart(`${person}-a`, T0 + 2 * DAY + HOUR, 20 * UNIT, [['prod1-v', 1]], {
      clientId: client,
      items: item('prod1'),
    }),
  );
  events.push(
    checkoutCompleted(`${person}-o`, T0 + 3 * DAY + HOUR, `${person}-order`, {
      clientId: client,
      lines: [['prod1-v', 1]],
    }),
  );
  return events;
}

/** A person's contribution from a subset of its pool (by bit mask), as the recomputation makes it. */
function contribution(person: string, mask: number): PersonContribution | undefined {
  const events = eventPool(person).filter((_, i) => (mask >> i) & 1);
  if (events.length === 0) return undefined;
  const facts = personFacts(events, [], { personId: person });
  return contributionOf(facts, recomputePerson(facts, RULES), RULES.timezone);
}

const nonZero = (m: Map<string, number[]>) => new Map([...m].filter(([, v]) => v.some((x) => x !== 0)));
const rollupsOf = (d: AnalyticsDelta) => ANALYTICS_ROLLUPS.map((t) => [t.table, nonZero(entriesOf(d, t.table))]);

describe('diffPart', () => {
  it('finds nothing between equal contributions, and one row gone and one added for a changed row', () => {
    const c = contribution('p1', 0b1111)!;
    for (const part of CONTRIBUTION_PARTS) expect(diffPart(part, [c], [c])).toEqual({ gone: [], added: [] });
    const changed: PersonContribution = {
      ...c,
      web: [{ ...c.web[0]!, events: c.web[0]!.events + 1 }, ...c.web.slice(1)],
    };
    const { gone, added } = diffPart('web', [c], [changed]);
    expect(gone).toEqual([{ personId: 'p1', row: c.web[0] }]);
    expect(added).toEqual([{ personId: 'p1', row: changed.web[0] }]);
  });
});

describe('the batch delta', () => {
  it('equals the fresh contributions summed less the stored ones, for every rollup', () => {
    const person = fc.constantFrom('p1', 'p2', 'p3');
    const masks = fc.dictionary(person, fc.integer({ min: 0, max: (1 << 10) - 1 }));
    fc.assert(
      fc.property(masks, masks, (oldMasks, freshMasks) => {
        const persons = [...new Set([...Object.keys(oldMasks), ...Object.keys(freshMasks)])];
        const oldOf = new Map(
          persons.map((p) => [p, oldMasks[p] === undefined ? undefined : contribution(p, oldMasks[p])]),
        );
        const freshOf = new Map(
          persons.map((p) => [p, freshMasks[p] === undefined ? undefined : contribution(p, freshMasks[p])]),
        );
        const old = [...oldOf.values()].filter((c) => c !== undefined);
        const fresh = [...freshOf.values()].filter((c) => c !== undefined);

        // As a batch writes it: the rows that differ, and each person's span change.
        const batch = emptyDelta();
        for (const part of CONTRIBUTION_PARTS) {
          const { gone, added } = diffPart(part, old, fresh);
          accumulatePart(
            batch,
            part,
            gone.map((r) => r.row),
            -1,
          );
          accumulatePart(
            batch,
            part,
            added.map((r) => r.row),
            1,
          );
        }
        for (const p of persons) accumulateSpanChange(batch, oldOf.get(p), freshOf.get(p));

        // As a recomputation sums it: everything fresh, less everything stored.
        const whole = emptyDelta();
        for (const c of fresh) accumulateContribution(whole, c, 1);
        for (const c of old) accumulateContribution(whole, c, -1);
        expect(rollupsOf(batch)).toEqual(rollupsOf(whole));
      }),
      { numRuns: 60 },
    );
  });
});

describe('analyticsRollupRows', () => {
  it('stores a touch group id in place of the five touchpoint texts, asking for each web_users group once', () => {
    const delta = emptyDelta();
    accumulateContribution(delta, contribution('p1', 0b1111)!, 1);
    const asked: string[] = [];
    const rows = analyticsRollupRows(delta, (touch) => {
      asked.push(touch.join('|'));
      return `g:${touch.join('|')}`;
    });
    expect(rows.map((r) => r.table.table)).toEqual(ANALYTICS_ROLLUPS.map((t) => t.table));
    const webDaily = rows.find((r) => r.table.table === 'web_daily')!;
    // One web_daily row per day: day, the group id and the four sums, named by the stored columns.
    expect(Object.keys(webDaily.rows[0]!).sort()).toEqual(
      ['day', 'group_id', 'sessions', 'events', 'engaged_sessions', 'new_users'].sort(),
    );
    // The two days visited (events 0 to 3: google ads on the first, the newsletter on the second).
    expect(webDaily.rows.map((r) => r.group_id).sort()).toEqual(
      ['g:email|newsletter|email|(not set)|/', 'g:paid_search|google|cpc|brand|/'].sort(),
    );
    const webUsers = rows.find((r) => r.table.table === 'web_users')!;
    expect(webUsers.rows.length).toBeGreaterThan(0);
    expect(webUsers.rows.every((r) => typeof r.group_id === 'string' && !('channel' in r))).toBe(true);
    // web_users names a group's id once for all its rows.
    const webUserGroups = new Set(webUsers.rows.map((r) => r.group_id));
    const webDailyGroups = webDaily.rows.length;
    expect(asked.length).toBe(
      webDailyGroups + webUserGroups.size + rows.find((r) => r.table.table === 'product_credits_daily')!.rows.length,
    );
  });
});
