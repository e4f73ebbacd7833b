import fc from 'fast-check';
import {
  bigintColumn,
  CREDIT_SUM_COLUMNS,
  creditSumValues,
  dateColumn,
  fieldOfColumn,
  keyCellsOfRow,
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

  it('takes the cells of any table in column order, and only as many as it has columns', () => {
    const name = fc.stringMatching(/^[a-z]{1,3}(_[a-z]{1,3})?$/);
    const table = fc
      .tuple(fc.uniqueArray(name, { minLength: 1, maxLength: 4 }), fc.uniqueArray(name, { maxLength: 4 }))
      .filter(([keys, values]) => keys.every((k) => !values.includes(k)))
      .map(([keys, values]): RollupTable => ({
        table: 'x',
        keys: keys.map(textColumn),
        values: values.map(bigintColumn),
      }));
    fc.assert(
      fc.property(table, fc.nat({ max: 5 }), fc.nat({ max: 5 }), (t, nk, nv) => {
        const keyCells = Array.from({ length: nk }, (_, i) => `k${i}`);
        const values = Array.from({ length: nv }, (_, i) => i * 10);
        if (nk !== t.keys.length || nv !== t.values.length) {
          expect(() => rowOf(t, keyCells, values)).toThrow(`x: a row has ${t.keys.length} key`);
          return;
        }
        const row = rowOf(t, keyCells, values);
        expect(Object.keys(row)).toEqual([...t.keys, ...t.values].map((c) => c.name));
        expect(keyCellsOfRow(t, row)).toEqual(keyCells);
        expect(valuesOfRow(t, row)).toEqual(values);
      }),
    );
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

  it('keeps a group whose values cancel only in part, negative values included', () => {
    const key = keyOfTable(T);
    // +5 - 5 on weight but -3 on value: still a change to write.
    const delta = new Map([[key.ofParts(['2026-03-01', '/a']), [5 - 5, -3]]]);
    expect(rowsOfDelta(T, delta)).toEqual([{ day: '2026-03-01', landing_page: '/a', weight: 0, value_micros: -3 }]);
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
    // The attribution rollups' four sums, as CreditSums names them.
    const credit: RollupTable = { table: 'a', keys: [dateColumn('day')], values: CREDIT_SUM_COLUMNS };
    expect(namedValues(credit, [1, 2, 3, 4])).toEqual({ weight: 1, newWeight: 2, valueMicros: 3, cogsMicros: 4 });
    expect(namedValues(credit, creditSumValues({ weight: 1, newWeight: 2, valueMicros: 3, cogsMicros: 4 }))).toEqual({
      weight: 1,
      newWeight: 2,
      valueMicros: 3,
      cogsMicros: 4,
    });
  });
});
