import fc from 'fast-check';
import type { ConversionView, PersonView } from '../recompute-person';
import { CONVERSION_KEY } from './attribution';
import { planConversions, type StoredConversions, storedUnder } from './conversions';

const conversion = (key: string): ConversionView => ({ goal: 'purchase', key }) as ConversionView;
const view = (personId: string, conversions: ConversionView[], unchanged: ConversionView[] = []): PersonView => ({
  personId,
  conversions,
  unchanged: new Set(unchanged),
  sessions: [],
});
const k = (key: string) => CONVERSION_KEY.of({ goal: 'purchase', key });
/** A digest that names the conversion and its person, and `v2` for the conversions marked changed. */
const digests =
  (changed: string[]) =>
  (c: ConversionView, personId: string): string =>
    `${personId}/${c.key}/${changed.includes(c.key) ? 'v2' : 'v1'}`;

describe('planConversions', () => {
  const stored: StoredConversions = new Map([
    [k('same'), { digest: 'p1/same/v1', personId: 'p1' }],
    [k('changed'), { digest: 'p1/changed/v1', personId: 'p1' }],
    [k('gone'), { digest: 'p1/gone/v1', personId: 'p1' }],
    [k('kept'), { digest: 'p1/kept/v0', personId: 'p1' }],
  ]);

  it('rewrites new and changed conversions, retracts the changed and the gone, leaves the rest alone', () => {
    const kept = conversion('kept');
    const plan = planConversions(
      stored,
      [view('p1', [conversion('same'), conversion('changed'), conversion('new'), kept], [kept])],
      digests(['changed']),
    );
    // "kept" has another digest but the recomputation vouches for it (extended person): not even digested.
    expect(plan.fresh.map((f) => [f.view.key, f.digest])).toEqual([
      ['changed', 'p1/changed/v2'],
      ['new', 'p1/new/v1'],
    ]);
    expect(plan.gone).toEqual([k('gone')]);
    expect(plan.retract.sort()).toEqual([k('changed'), k('gone'), k('new')].sort());
  });

  it('rewrites a conversion that moved to another person (its digest names the person)', () => {
    const plan = planConversions(stored, [view('p2', [conversion('same')])], digests([]));
    expect(plan.fresh.map((f) => [f.view.key, f.personId])).toEqual([['same', 'p2']]);
    expect(plan.gone.sort()).toEqual([k('changed'), k('gone'), k('kept')].sort());
  });

  it('does not even digest the conversions a view vouches for as unchanged', () => {
    const kept = conversion('kept');
    const digested: string[] = [];
    planConversions(stored, [view('p1', [conversion('same'), kept], [kept])], (c, personId) => {
      digested.push(c.key);
      return digests([])(c, personId);
    });
    expect(digested).toEqual(['same']);
  });

  it('retracts nothing into a cleared store, though it still names the gone conversions', () => {
    const plan = planConversions(new Map(), [view('p1', [conversion('a'), conversion('b')])], digests([]));
    expect(plan.retract.sort()).toEqual([k('a'), k('b')].sort());
    const cleared = planConversions(new Map(), [view('p1', [conversion('a'), conversion('b')])], digests([]), true);
    expect(cleared.fresh).toHaveLength(2);
    expect(cleared.retract).toEqual([]);
    // Over the stored conversions above: "changed" rewritten, "gone" gone, neither retracted.
    const over = planConversions(
      stored,
      [view('p1', [conversion('same'), conversion('changed')])],
      digests(['changed']),
      true,
    );
    expect(over.fresh.map((f) => f.view.key)).toEqual(['changed']);
    expect(over.gone.sort()).toEqual([k('gone'), k('kept')].sort());
    expect(over.retract).toEqual([]);
  });

  it('retracts exactly the gone and the rewritten, each once, and keeps every conversion a view holds', () => {
    const key = fc.constantFrom('o1', 'o2', 'o3', 'o4', 'o5');
    const storedArb = fc.dictionary(
      key,
      fc.record({ digest: fc.constantFrom('v1', 'v2'), personId: fc.constantFrom('p1', 'p2') }),
    );
    const viewArb = fc.record({
      personId: fc.constantFrom('p1', 'p2'),
      conversions: fc.uniqueArray(fc.tuple(key, fc.constantFrom('v1', 'v2'), fc.boolean()), { selector: ([k]) => k }),
    });
    fc.assert(
      fc.property(storedArb, fc.array(viewArb, { maxLength: 2 }), (storedByKey, viewSpecs) => {
        // A conversion belongs to one person: the first view that holds it.
        const seen = new Set<string>();
        const digestOf = new Map<ConversionView, string>();
        const views = viewSpecs.map((v) => {
          const own = v.conversions.filter(([key]) => {
            if (seen.has(key)) return false;
            seen.add(key);
            return true;
          });
          const cs = own.map(([key, digest]) => {
            const c = conversion(key);
            digestOf.set(c, `${v.personId}/${digest}`);
            return c;
          });
          return view(
            v.personId,
            cs,
            cs.filter((_, i) => own[i]![2]),
          );
        });
        const storedMap: StoredConversions = new Map(
          Object.entries(storedByKey).map(([key, s]) => [
            k(key),
            { digest: `${s.personId}/${s.digest}`, personId: s.personId },
          ]),
        );
        const plan = planConversions(storedMap, views, (c) => digestOf.get(c)!);
        const held = new Set([...seen].map(k));
        const unchanged = new Set(views.flatMap((v) => [...v.unchanged]));
        // Gone: stored, held by no view.
        expect(plan.gone.sort()).toEqual([...storedMap.keys()].filter((x) => !held.has(x)).sort());
        // Fresh: held, not vouched for, and not stored with the same digest.
        const expectedFresh = views.flatMap((v) =>
          v.conversions.filter((c) => !unchanged.has(c) && storedMap.get(k(c.key))?.digest !== digestOf.get(c)),
        );
        expect(plan.fresh.map((f) => f.view)).toEqual(expectedFresh);
        // Retract: the gone and the fresh, once each.
        expect(plan.retract.sort()).toEqual([...plan.gone, ...expectedFresh.map((c) => k(c.key))].sort());
        expect(new Set(plan.retract).size).toBe(plan.retract.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('storedUnder', () => {
  it('says whether the views hold a conversion under that very person', () => {
    const stored: StoredConversions = new Map([[k('o1'), { digest: 'd', personId: 'p1' }]]);
    expect(storedUnder(stored, 'p1')('purchase', 'o1')).toBe(true);
    expect(storedUnder(stored, 'p2')('purchase', 'o1')).toBe(false);
    expect(storedUnder(stored, 'p1')('purchase', 'o2')).toBe(false);
  });
});
