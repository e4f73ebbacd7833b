import { CommittedTouchGroups, touchGroupId } from './touch-groups';

describe('touchGroupId', () => {
  it('is a signed 64-bit integer in decimal, the same for the same values', () => {
    const id = touchGroupId(['paid_social', 'facebook', 'paid_social', 'spring', '/']);
    expect(id).toMatch(/^-?\d{1,19}$/);
    const n = BigInt(id);
    expect(n >= -(2n ** 63n) && n < 2n ** 63n).toBe(true);
    expect(touchGroupId(['paid_social', 'facebook', 'paid_social', 'spring', '/'])).toBe(id);
  });

  it('tells apart values whose concatenations are equal', () => {
    const ids = [
      ['ab', '', '', '', ''],
      ['a', 'b', '', '', ''],
      ['', 'ab', '', '', ''],
      ['a1:', 'b', '', '', ''],
      ['a', '1:b', '', '', ''],
    ].map(touchGroupId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('takes exactly the five dimensions', () => {
    expect(() => touchGroupId(['a', 'b'])).toThrow(/expected 5 values, got 2/);
  });
});

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
