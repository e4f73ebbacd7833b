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

  it('retracts nothing into a cleared store', () => {
    const plan = planConversions(new Map(), [view('p1', [conversion('a'), conversion('b')])], digests([]), true);
    expect(plan.fresh).toHaveLength(2);
    expect(plan.retract).toEqual([]);
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
