import { CommittedTouchGroups } from './analytics-rollups';

describe('CommittedTouchGroups', () => {
  it('knows the groups added for a store, and only for that store', () => {
    const groups = new CommittedTouchGroups();
    groups.add('st_a', ['1', '2']);
    expect(groups.has('st_a', '1')).toBe(true);
    expect(groups.has('st_a', '3')).toBe(false);
    expect(groups.has('st_b', '1')).toBe(false);
  });

  it('forgets everything rather than grow past its limit (forgetting only costs an insert again)', () => {
    const groups = new CommittedTouchGroups(3);
    groups.add('st_a', ['1', '2']);
    groups.add('st_a', ['2']); // already known: does not count twice
    groups.add('st_b', ['9']);
    expect(groups.has('st_a', '2') && groups.has('st_b', '9')).toBe(true);
    groups.add('st_a', ['3']);
    expect(groups.has('st_a', '1')).toBe(false);
    expect(groups.has('st_b', '9')).toBe(false);
    expect(groups.has('st_a', '3')).toBe(true);
  });
});
