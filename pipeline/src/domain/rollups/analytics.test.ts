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
import { NO_PREVIOUS_DAY } from '../analytics';
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
  PERSON_TABLES,
  type PersonContribution,
} from './analytics';
import type { RollupTable } from './table';

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
  // The purchase names its product, so that it also credits product_person_credits.
  events.push({
    ...checkoutCompleted(`${person}-o`, T0 + 3 * DAY + HOUR, `${person}-order`, {
      clientId: client,
      lines: [['prod1-v', 1]],
    }),
    items: item('prod1'),
  });
  return events;
}

/** A person's contribution from a subset of its pool (by bit mask), as the recomputation makes it. */
function contribution(person: string, mask: number): PersonContribution | undefined {
  const events = eventPool(person).filter((_, i) => (mask >> i) & 1);
  if (events.length === 0) return undefined;
  const facts = personFacts(events, [], { personId: person });
  return contributionOf(facts, recomputePerson(facts, RULES), RULES.timezone);
}

const FULL = (1 << 10) - 1;
const storedColumns = (t: RollupTable) => [...t.keys, ...t.values].map((c) => c.name).sort();
const nonZero = (m: Map<string, number[]>) => new Map([...m].filter(([, v]) => v.some((x) => x !== 0)));
const rollupsOf = (d: AnalyticsDelta) => ANALYTICS_ROLLUPS.map((t) => [t.table, nonZero(entriesOf(d, t.table))]);

describe('diffPart', () => {
  it('finds nothing between equal contributions, and one row gone and one added for a changed row', () => {
    const c = contribution('p1', FULL)!;
    // The whole pool fills all three parts (the purchase names its product, so it credits it too).
    for (const part of CONTRIBUTION_PARTS) expect(c[part].length).toBeGreaterThan(0);
    for (const part of CONTRIBUTION_PARTS) expect(diffPart(part, [c], [c])).toEqual({ gone: [], added: [] });
    const changed: PersonContribution = {
      ...c,
      web: [{ ...c.web[0]!, events: c.web[0]!.events + 1 }, ...c.web.slice(1)],
    };
    const { gone, added } = diffPart('web', [c], [changed]);
    expect(gone).toEqual([{ personId: 'p1', row: c.web[0] }]);
    expect(added).toEqual([{ personId: 'p1', row: changed.web[0] }]);
    // The other parts did not change.
    expect(diffPart('products', [c], [changed])).toEqual({ gone: [], added: [] });
  });

  it('tells apart rows that differ in any one column of their table, or only in their person', () => {
    const c = contribution('p1', FULL)!;
    for (const part of CONTRIBUTION_PARTS) {
      const first = c[part][0]! as unknown as Record<string, unknown>;
      for (const column of [...PERSON_TABLES[part].keys, ...PERSON_TABLES[part].values]) {
        const v = first[column.field];
        const other = Array.isArray(v)
          ? v.map((x: number, i) => (i === 0 ? x + 1 : x))
          : typeof v === 'number'
            ? v + 1
            : `${String(v)}x`;
        const fresh = { ...c, [part]: [{ ...first, [column.field]: other }, ...c[part].slice(1)] };
        const { gone, added } = diffPart(part, [c], [fresh]);
        expect([part, column.name, gone.length, added.length]).toEqual([part, column.name, 1, 1]);
      }
      // A row the same in every column, under another person (a merge moved it): gone from one, added to the other.
      const moved = diffPart(part, [c], [{ ...c, personId: 'p2' }]);
      expect(moved.gone.map((r) => r.personId)).toEqual(c[part].map(() => 'p1'));
      expect(moved.added.map((r) => r.personId)).toEqual(c[part].map(() => 'p2'));
    }
  });
});

describe('the batch delta', () => {
  it('equals the fresh contributions summed less the stored ones, for every rollup', () => {
    const person = fc.constantFrom('p1', 'p2', 'p3');
    const masks = fc.dictionary(person, fc.integer({ min: 0, max: FULL }));
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
  /** A google ad visit with a product view on Monday 2 March, a newsletter visit on Tuesday 3 March. */
  const twoVisits = (): PersonContribution => {
    const facts = personFacts([
      pageView('v0', T0, page('/', SOURCES[0])),
      makeEvent({ eventId: 'p0', at: T0 + 60_000, name: 'product_viewed', items: [['prod0', 'prod0-v', 1, 2000]] }),
      pageView('v1', T0 + DAY, page('/', SOURCES[1])),
    ]);
    return contributionOf(facts, recomputePerson(facts, RULES), RULES.timezone);
  };
  const GOOGLE = ['paid_search', 'google', 'cpc', 'brand', '/'];
  const NEWSLETTER = ['email', 'newsletter', 'email', '(not set)', '/'];
  /** A group id that names its texts, and the texts it was asked for. */
  const recordingIds = () => {
    const asked: string[] = [];
    const groupIdOf = (touch: readonly string[]) => {
      asked.push(touch.join('|'));
      return `g:${touch.join('|')}`;
    };
    return { asked, groupIdOf };
  };

  it('stores web_daily with the touch group id in place of the five touchpoint texts', () => {
    const delta = emptyDelta();
    accumulatePart(delta, 'web', twoVisits().web, 1);
    const { asked, groupIdOf } = recordingIds();
    const rows = analyticsRollupRows(delta, groupIdOf);
    expect(rows.map((r) => r.table.table)).toEqual(ANALYTICS_ROLLUPS.map((t) => t.table));
    const [webDaily, ...others] = rows;
    expect(webDaily!.table.keys.map((c) => c.name)).toEqual(['day', 'group_id']);
    // By hand: Monday's session holds the page view and the product view (2 events, engaged by the product
    // view, the person's first session); Tuesday's only a page view (1 event, not engaged, not new).
    expect(webDaily!.rows).toEqual([
      {
        day: '2026-03-02',
        group_id: `g:${GOOGLE.join('|')}`,
        sessions: 1,
        events: 2,
        engaged_sessions: 1,
        new_users: 1,
      },
      {
        day: '2026-03-03',
        group_id: `g:${NEWSLETTER.join('|')}`,
        sessions: 1,
        events: 1,
        engaged_sessions: 0,
        new_users: 0,
      },
    ]);
    expect(asked).toEqual([GOOGLE.join('|'), NEWSLETTER.join('|')]);
    // Only web rows were added: the other rollups have no rows.
    for (const r of others) expect([r.table.table, r.rows]).toEqual([r.table.table, []]);
  });

  it('asks for the id of each web_users group once, however many rows the group has', () => {
    const delta = emptyDelta();
    delta.webUsers.addSpans(twoVisits().web, 1);
    const { asked, groupIdOf } = recordingIds();
    const webUsers = analyticsRollupRows(delta, groupIdOf).find((r) => r.table.table === 'web_users')!;
    expect(webUsers.table.keys.map((c) => c.name)).toEqual(['dims', 'day', 'group_id', 'prev_day']);
    // By hand: of the 26 dimension sets (0 to 3 of the 5 dimensions: 1 + 5 + 10 + 10), the two visits share
    // one group in the 2 sets within {landing_page} (none, or the landing page alone: both "/"), and fall into
    // two groups in the other 24: 2 + 48 = 50 groups. A shared group has 2 rows (Monday, then Tuesday after
    // Monday), every other group 1: 2 * 2 + 48 = 52 rows.
    expect(asked).toHaveLength(50);
    expect(new Set(asked).size).toBe(50);
    expect(webUsers.rows).toHaveLength(52);
    expect(new Set(webUsers.rows.map((r) => r.group_id))).toEqual(new Set(asked.map((t) => `g:${t}`)));
    for (const r of webUsers.rows) expect(Object.keys(r).sort()).toEqual(storedColumns(webUsers.table));
    // The all-dimensions-blank group: Monday new (previous none), Tuesday after Monday, both a visit; Monday's
    // visit also viewed a product.
    const blank = webUsers.rows.filter((r) => r.dims === 0);
    expect(blank).toEqual([
      expect.objectContaining({ day: '2026-03-02', prev_day: NO_PREVIOUS_DAY, users: 1, product_view_users: 1 }),
      expect.objectContaining({ day: '2026-03-03', prev_day: '2026-03-02', users: 1, product_view_users: 0 }),
    ]);
  });

  it('names every row by its stored columns, product_credits_daily keeping its texts', () => {
    const delta = emptyDelta();
    accumulateContribution(delta, contribution('p1', FULL)!, 1);
    const { asked, groupIdOf } = recordingIds();
    const rows = analyticsRollupRows(delta, groupIdOf);
    for (const { table, rows: tableRows } of rows) {
      expect([table.table, tableRows.length > 0]).toEqual([table.table, true]);
      for (const r of tableRows)
        expect([table.table, Object.keys(r).sort()]).toEqual([table.table, storedColumns(table)]);
    }
    const byTable = new Map(rows.map((r) => [r.table.table, r]));
    // web_daily and web_users store a group id; the product rollups store no touch group.
    expect(byTable.get('web_daily')!.table.keys.some((c) => c.name === 'group_id')).toBe(true);
    for (const t of ['product_daily', 'product_users', 'product_credits_daily'])
      expect(byTable.get(t)!.table.keys.some((c) => c.name === 'group_id')).toBe(false);
    expect(byTable.get('product_credits_daily')!.rows[0]).toMatchObject({ product_id: 'prod1', landing_page: '/' });
    // Asked once per web_daily row (each its own touchpoint and day here, or the same touchpoint on another day)
    // and once per web_users group: never for a product rollup.
    const webDailyRows = byTable.get('web_daily')!.rows.length;
    const webUserGroups = new Set(byTable.get('web_users')!.rows.map((r) => r.group_id)).size;
    expect(asked).toHaveLength(webDailyRows + webUserGroups);
  });
});
