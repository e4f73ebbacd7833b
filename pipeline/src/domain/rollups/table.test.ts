import fc from 'fast-check';
import {
  bigintColumn,
  dateColumn,
  fieldOfColumn,
  keyOfTable,
  namedValues,
  type RollupTable,
  rowOf,
  rowsOfDelta,
  textColumn,
  valuesOfRow,
} from './table';

const T: RollupTable = {
  table: 't',
  keys: [dateColumn('day'), textColumn('landing_page')],
  values: [bigintColumn('weight'), bigintColumn('value_micros')],
};

describe('rowOf', () => {
  it('names each cell by its column', () => {
    expect(rowOf(T, ['2026-03-01', '/a'], [5, 7])).toEqual({
      day: '2026-03-01',
      landing_page: '/a',
      weight: 5,
      value_micros: 7,
    });
  });

  it('throws, naming the table, when the cells do not match its columns', () => {
    expect(() => rowOf(T, ['2026-03-01'], [5, 7])).toThrow('t: a row has 2 key and 2 value cells, got 1 and 2');
    expect(() => rowOf(T, ['2026-03-01', '/a'], [5])).toThrow('got 2 and 1');
  });
});

describe('rowsOfDelta', () => {
  it('leaves out the groups whose values are all zero', () => {
    const key = keyOfTable(T);
    const delta = new Map([
      [key.ofParts(['2026-03-01', '/a']), [1, 0]],
      [key.ofParts(['2026-03-02', '/b']), [0, 0]],
    ]);
    expect(rowsOfDelta(T, delta)).toEqual([{ day: '2026-03-01', landing_page: '/a', weight: 1, value_micros: 0 }]);
  });

  it('gives back every non-zero group: keys and values round-trip', () => {
    const cell = fc.string({ maxLength: 6 }).filter((s) => !s.includes('\u0000'));
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, cell, fc.integer(), fc.integer()), { maxLength: 30 }), (groups) => {
        const key = keyOfTable(T);
        const delta = new Map(groups.map(([d, p, a, b]) => [key.ofParts([d, p]), [a, b]]));
        const rows = rowsOfDelta(T, delta);
        const back = new Map(rows.map((r) => [key.ofColumns(r), valuesOfRow(T, r)]));
        expect(back).toEqual(new Map([...delta].filter(([, v]) => v.some((x) => x !== 0))));
      }),
    );
  });
});

describe('drift names', () => {
  it('shows summed columns by their camel-case field names', () => {
    expect(fieldOfColumn('new_weight')).toBe('newWeight');
    expect(fieldOfColumn('conv_value_micros')).toBe('convValueMicros');
    expect(fieldOfColumn('users')).toBe('users');
    expect(namedValues(T, [3, -4])).toEqual({ weight: 3, valueMicros: -4 });
  });
});
