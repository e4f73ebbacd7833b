import { formatCell, formatTable, MAX_TABLE_ROWS } from './text-table';

interface Row {
  channel: string;
  conversions: number;
  revenue: number;
}

const columns = [
  { header: 'channel', value: (r: Row) => r.channel },
  { header: 'conversions', value: (r: Row) => r.conversions, format: 'number' as const },
  { header: 'revenue', value: (r: Row) => r.revenue, format: 'money' as const },
];

describe('formatTable', () => {
  it('writes an aligned Markdown table, numbers right-aligned', () => {
    const text = formatTable(
      [
        { channel: 'Paid Search', conversions: 12.3333333, revenue: 1234.5 },
        { channel: 'Email', conversions: 2, revenue: -3 },
      ],
      columns,
    );
    expect(text).toBe(
      [
        '| channel     | conversions |  revenue |',
        '|-------------|------------:|---------:|',
        '| Paid Search |       12.33 | 1,234.50 |',
        '| Email       |           2 |    -3.00 |',
      ].join('\n'),
    );
  });

  it('shows at most 20 rows and says how many the result has', () => {
    const rows = Array.from({ length: 30 }, (_, i) => ({ channel: `c${i}`, conversions: i, revenue: i }));
    const lines = formatTable(rows, columns, { total: 57 }).split('\n');
    expect(MAX_TABLE_ROWS).toBe(20);
    expect(lines).toHaveLength(2 + 20 + 1);
    expect(lines[2]).toContain('c0');
    expect(lines[21]).toContain('c19');
    expect(lines[22]).toBe('(20 of 57 rows shown)');
  });

  it('counts the rows given when no total is given, and says when there is none', () => {
    const rows = Array.from({ length: 21 }, (_, i) => ({ channel: `c${i}`, conversions: i, revenue: i }));
    expect(formatTable(rows, columns).split('\n').at(-1)).toBe('(20 of 21 rows shown)');
    expect(formatTable([], columns).split('\n')).toEqual([
      '| channel | conversions | revenue |',
      '|---------|------------:|--------:|',
      '(no rows)',
    ]);
  });

  it('cuts long cells and keeps the table on one line per row', () => {
    const text = formatTable([{ channel: `a|b\n${'x'.repeat(80)}`, conversions: 1, revenue: 1 }], columns, {
      maxCellWidth: 12,
    });
    expect(text.split('\n')[2]).toBe('| a b xxxxxxx… |           1 |    1.00 |');
  });
});

describe('formatCell', () => {
  it.each([
    [1234567.891, 'money', '1,234,567.89'],
    [-0.004, 'money', '-0.00'],
    [0.333333, 'number', '0.33'],
    [1000, 'number', '1,000'],
    [-2.5, 'number', '-2.5'],
    [12.6, 'int', '13'],
    [3.14159, 'ratio', '3.14'],
    [0.125, 'percent', '+12.5%'],
    [-0.5, 'percent', '-50.0%'],
    [null, 'percent', '-'],
    ['text', 'text', 'text'],
  ] as const)('%p as %s is %p', (value, format, expected) => {
    expect(formatCell(value, format)).toBe(expected);
  });
});
