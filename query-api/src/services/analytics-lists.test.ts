import { compareBy, requestedValue } from './analytics-lists';

describe('requestedValue', () => {
  const values = { channel: 'paid_social', source: 'facebook', medium: null };

  it("gives a requested dimension's value", () => {
    expect(requestedValue(values, ['source', 'channel'], 'channel')).toBe('paid_social');
  });

  it('gives "" for a dimension not requested, whatever the group holds', () => {
    expect(requestedValue(values, ['channel'], 'source')).toBe('');
  });

  it('gives "" for a requested dimension the group has no value of', () => {
    expect(requestedValue(values, ['medium', 'campaign'], 'medium')).toBe('');
    expect(requestedValue(values, ['medium', 'campaign'], 'campaign')).toBe('');
  });
});

describe('compareBy', () => {
  const a = { conversions: 2, source: 'b' };
  const b = { conversions: 1, source: 'a' };

  it('orders by the keys, numbers as numbers, descending when asked', () => {
    expect(compareBy(a, b, [{ column: 'conversions', desc: true }], ['source'])).toBeLessThan(0);
    expect(compareBy(a, b, [{ column: 'conversions', desc: false }], ['source'])).toBeGreaterThan(0);
    // As text '10' < '9' and '-2' > '-10'; as numbers the other way round.
    const ten = { conversions: 10, source: 'a' };
    const nine = { conversions: 9, source: 'b' };
    expect(compareBy(ten, nine, [{ column: 'conversions', desc: false }], ['source'])).toBeGreaterThan(0);
    expect(compareBy(ten, nine, [{ column: 'conversions', desc: true }], ['source'])).toBeLessThan(0);
    const rows = [2, -10, 10, 9, 0.5, -2, 100].map((conversions, i) => ({ conversions, source: `s${i}` }));
    const sorted = [...rows].sort((x, y) => compareBy(x, y, [{ column: 'conversions', desc: false }], ['source']));
    expect(sorted.map((r) => r.conversions)).toEqual([-10, -2, 0.5, 2, 9, 10, 100]);
  });

  it('breaks ties by the tie columns, ascending', () => {
    const c = { conversions: 2, source: 'a' };
    expect(compareBy(a, c, [{ column: 'conversions', desc: true }], ['source'])).toBeGreaterThan(0);
    expect(compareBy(a, a, [{ column: 'conversions', desc: true }], ['source'])).toBe(0);
  });
});
