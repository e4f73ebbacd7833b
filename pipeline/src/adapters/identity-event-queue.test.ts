import type { StorefrontEvent } from '../../../contracts/src/events';
import { DAY, HOUR, MINUTE, ms, page, pageView, personFacts } from '../../../test/support/fact-builders';
import { recomputePerson } from '../domain/recompute-person';
import { identityEventCandidates } from './identity-event-queue';

const T = ms('2026-03-10T12:00:00Z');
const RULES = { timezone: 'UTC', lookbackDays: 30, halfLifeDays: 7 };

/** The raw event the candidates are built for: only its id, client and time are read. */
const raw = (id: string, at: number, clientId = 'c1'): StorefrontEvent =>
  ({ id, clientId, timestamp: new Date(at).toISOString() }) as StorefrontEvent;

describe('identityEventCandidates', () => {
  it('gives each new event the landing of the latest session of its client that started by its time', () => {
    const landings = [
      pageView('l1', T, page('/', 'utm_source=a'), 'https://www.google.com/'),
      pageView('l2', T + DAY, page('/b', 'utm_source=b')),
      pageView('l3', T + 2 * DAY, page('/c', 'utm_source=c'), 'https://news.example.net/'),
    ];
    const later = [pageView('n1', T + DAY + MINUTE, page('/x')), pageView('n2', T + 2 * DAY + HOUR / 4, page('/y'))];
    const other = pageView('o1', T + 3 * HOUR, page('/', 'utm_source=z'), '', 'c2');
    const facts = personFacts([...landings, ...later, other]);
    const view = recomputePerson(facts, RULES);
    const candidates = identityEventCandidates(
      [
        raw('l2', T + DAY),
        raw('n1', T + DAY + MINUTE),
        raw('n2', T + 2 * DAY + HOUR / 4),
        raw('o1', T + 3 * HOUR, 'c2'),
      ],
      [facts],
      [view],
    );
    expect(candidates.map((c) => [c.event.id, c.personId, c.isSessionLanding, c.landingSite, c.referringSite])).toEqual(
      [
        ['l2', 'p1', true, page('/b', 'utm_source=b'), ''],
        ['n1', 'p1', false, page('/b', 'utm_source=b'), ''],
        ['n2', 'p1', false, page('/c', 'utm_source=c'), 'https://news.example.net/'],
        ['o1', 'p1', true, page('/', 'utm_source=z'), ''],
      ],
    );
  });

  it('an event of a client no recomputed person holds has no candidate; one before any session has no landing', () => {
    const facts = personFacts([pageView('l1', T, page('/', 'utm_source=a'))]);
    const view = recomputePerson(facts, RULES);
    const candidates = identityEventCandidates([raw('x', T, 'stranger'), raw('early', T - DAY)], [facts], [view]);
    expect(candidates.map((c) => [c.event.id, c.isSessionLanding, c.landingSite])).toEqual([['early', false, '']]);
  });
});
