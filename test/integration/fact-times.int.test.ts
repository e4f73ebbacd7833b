/**
 * The recomputation loads facts' and sessions' times as epoch milliseconds computed by PostgreSQL (cheaper to
 * parse than a Date); they must be the times a Date made from the stored text holds, to the millisecond,
 * whatever the microseconds stored, so that a batch finds unchanged sessions unchanged.
 */
import { loadFactsOfGroups } from '../../pipeline/src/adapters/pg-person-facts';
import { writeSessions } from '../../pipeline/src/adapters/pg-sessions';
import { ORDER_CLIENT_PREFIX } from '../../pipeline/src/domain/facts';
import { recomputePerson } from '../../pipeline/src/domain/recompute-person';
import type { Db } from '../../storage/db';
import { createTestStore, testDb } from '../support/harness';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

const TIMES = [
  '2026-03-01T10:00:00Z',
  '2026-03-01T10:00:00.029Z',
  '2026-03-01T10:00:00.123456Z',
  '2026-03-01T10:00:00.999999Z',
  '2026-03-01T10:00:00.000001Z',
  '1969-12-31T23:59:59.250500Z',
];

it("loads event and order times as the milliseconds of the stored times' Dates", async () => {
  const { store } = await createTestStore(db);
  const s = store.store_id;
  const client = 'c-times';
  const orderClients = TIMES.map((_, i) => `${ORDER_CLIENT_PREFIX}o${i}`);
  await db.query(
    'test.facts',
    `insert into event_facts (store_id, event_id, client_id, name, occurred_at, page_url, referrer)
     select $1, 'e' || i, $2, 'page_viewed', t::timestamptz, 'https://shop.example/', ''
     from unnest($3::text[]) with ordinality as x(t, i)`,
    [s, client, TIMES],
  );
  await db.query(
    'test.orders',
    `insert into order_facts (store_id, order_id, created_at, cancelled, value_micros, refunded_micros, value_orig,
                              currency_orig, landing_site, referring_site)
     select $1, 'o' || (i - 1), t::timestamptz, false, 0, 0, 0, 'EUR', '', ''
     from unnest($2::text[]) with ordinality as x(t, i)`,
    [s, TIMES],
  );
  const asDates = await db.query<{ id: string; at: Date }>(
    'test.dates',
    `select event_id as id, occurred_at as at from event_facts where store_id = $1
     union all select 'o:' || order_id, created_at from order_facts where store_id = $1`,
    [s],
  );
  const expected = new Map(asDates.map((r) => [r.id, r.at.getTime()]));

  const loaded = await db.transaction('test.load', (q) =>
    loadFactsOfGroups(
      q,
      s,
      ['p-times'],
      [
        { client_id: client, person_id: 'p-times' },
        ...orderClients.map((client_id) => ({ client_id, person_id: 'p-times' })),
      ],
    ),
  );
  const person = loaded.facts[0]!;
  const got = new Map([
    ...person.events.map((e) => [e.eventId, e.at] as const),
    ...person.orders.map((o) => [`o:${o.orderId}`, o.createdAt] as const),
  ]);
  expect(got.size).toBe(TIMES.length * 2);
  expect(got).toEqual(expected);
  // The microseconds are dropped, not rounded: .999999 stays in its millisecond.
  expect(got.get('e4')).toBe(Date.parse('2026-03-01T10:00:00.999Z'));
  expect(got.get('e6')).toBe(Date.parse('1969-12-31T23:59:59.250Z'));
});

it('finds the sessions it wrote unchanged when it recomputes them from the same facts', async () => {
  const { store } = await createTestStore(db);
  const s = store.store_id;
  const client = 'c-sessions';
  // Three sessions (an hour apart), each starting at a time with microseconds.
  const times = ['2026-03-01T10:00:00.123456Z', '2026-03-01T11:00:00.999999Z', '2026-03-01T12:00:00.029Z'];
  await db.query(
    'test.facts',
    `insert into event_facts (store_id, event_id, client_id, name, occurred_at, page_url, referrer)
     select $1, 'e' || i, $2, 'page_viewed', t::timestamptz, 'https://shop.example/?utm_source=news' || i, ''
     from unnest($3::text[]) with ordinality as x(t, i)`,
    [s, client, times],
  );
  const rules = { timezone: 'UTC', lookbackDays: 30, halfLifeDays: 7 };
  const apply = () =>
    db.transaction('test.sessions', async (q) => {
      const loaded = await loadFactsOfGroups(q, s, ['p-sessions'], [{ client_id: client, person_id: 'p-sessions' }]);
      const view = recomputePerson(loaded.facts[0]!, rules);
      return writeSessions(q, s, [client], view.sessions);
    });
  expect(await apply()).toEqual({ inserted: 3, deleted: 0 });
  expect(await apply()).toEqual({ inserted: 0, deleted: 0 });
  const stored = await db.query<{ started_at: Date }>(
    'test.stored',
    'select started_at from sessions where store_id = $1 order by started_at',
    [s],
  );
  expect(stored.map((r) => r.started_at.toISOString())).toEqual([
    '2026-03-01T10:00:00.123Z',
    '2026-03-01T11:00:00.999Z',
    '2026-03-01T12:00:00.029Z',
  ]);
});
