import { analyticsCost } from './analytics-cost';

describe('analyticsCost', () => {
  it('is one minus the ratio of the mean throughputs with and without the views', () => {
    expect(analyticsCost([3_000], [4_000])).toBe(0.25);
    expect(analyticsCost([3_000, 3_400], [4_000, 4_000])).toBe(0.2);
  });

  it('is negative when the runs with the views were faster (noise, not a gain)', () => {
    expect(analyticsCost([4_100], [4_000])).toBe(-0.025);
  });
});
