import fc from 'fast-check';
import type { EventFact, OrderFact } from './facts';
import { ClientIdentity, PersonUnion, personsOfLinks } from './identity';

describe('PersonUnion', () => {
  it('keeps the smallest member as the root of a component', () => {
    const u = new PersonUnion();
    u.union('c', 'b');
    u.union('d', 'e');
    expect(u.find('c')).toBe('b');
    u.union('e', 'c');
    for (const x of ['b', 'c', 'd', 'e']) expect(u.find(x)).toBe('b');
    expect(u.find('z')).toBe('z');
  });

  it('gives the same components whatever the order of the links', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 }))),
        fc.integer(),
        (links, seed) => {
          const shuffled = [...links].sort((a, b) => ((a[0] * 31 + a[1] + seed) % 7) - ((b[0] * 31 + b[1] + seed) % 7));
          const roots = (ls: Array<[number, number]>) => {
            const u = new PersonUnion();
            for (const [a, b] of ls) u.union(`c${a}`, `c${b}`);
            return Array.from({ length: 10 }, (_, i) => u.find(`c${i}`));
          };
          expect(roots(shuffled)).toEqual(roots(links));
        },
      ),
    );
  });
});

describe('personsOfLinks', () => {
  it('makes one person of the clients that share a key, named by the smallest, in any order of the links', () => {
    const links: Array<[string, string]> = [
      ['c3', 'e:ann@example.com'],
      ['c1', 'k:token'],
      ['c2', 'e:ann@example.com'],
      ['c3', 'k:token'],
      ['c5', 'e:bob@example.com'],
    ];
    for (const order of [links, [...links].reverse()]) {
      const persons = personsOfLinks(order);
      expect(['c1', 'c2', 'c3', 'c4', 'c5'].map((c) => persons.find(c))).toEqual(['c1', 'c1', 'c1', 'c4', 'c5']);
    }
  });
});

describe('ClientIdentity', () => {
  const event = (clientId: string, at: number, keys: Partial<EventFact> = {}) =>
    ({ clientId, at, email: null, customerId: null, orderId: null, checkoutToken: null, ...keys }) as EventFact;
  const order = (orderId: string, createdAt: number, email: string | null) =>
    ({ orderId, createdAt, email, customerId: null, checkoutToken: null }) as OrderFact;

  it("keeps each client's earliest sighting and each link once, in the order first met", () => {
    const identity = new ClientIdentity();
    identity.addEvent(event('a', 20, { email: 'x@example.com' }));
    identity.addEvent(event('a', 10, { email: 'x@example.com', checkoutToken: 't1' }));
    identity.addOrder(order('1001', 30, 'x@example.com'));
    identity.addHandoff('1001', 'b');
    identity.addHandoff('1001', 'a');
    expect([...identity.firstSeen]).toEqual([
      ['a', 10],
      ['order:1001', 30],
      ['b', Infinity],
    ]);
    expect(identity.links()).toEqual([
      ['a', 'e:x@example.com'],
      ['a', 'k:t1'],
      ['order:1001', 'o:1001'],
      ['order:1001', 'e:x@example.com'],
      ['order:1001', 'b:b'],
      ['b', 'b:b'],
      ['order:1001', 'b:a'],
      ['a', 'b:a'],
    ]);
  });
});
