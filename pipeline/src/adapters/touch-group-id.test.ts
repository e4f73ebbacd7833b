import { touchGroupId } from './touch-group-id';

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
