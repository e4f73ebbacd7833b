import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CsvSpendError, parseCsv, parseSpendCsv } from './ad-spend-csv';

const fixture = (p: string): string => readFileSync(path.join(__dirname, '../../../test/fixtures', p), 'utf8');
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

describe('parseSpendCsv', () => {
  it('reads a Meta Ads Manager export: exact money, the currency of the spend column', () => {
    const { platform, rows } = parseSpendCsv(fixture('meta/ads-manager-export.csv'));
    expect(platform).toBe('facebook');
    expect(rows.map((r) => r.day)).toEqual(['2023-06-01', '2023-06-02']);
    expect(sum(rows.map((r) => r.spendMicros))).toBe(22_880_000); // 14.35 + 8.53
    expect(sum(rows.map((r) => r.impressions))).toBe(356);
    expect(rows[0]).toMatchObject({
      accountId: '798085168510957',
      campaignId: '23854404676180548',
      adId: '23854695759200548',
      adsetName: 'New Cayenne',
      valueMicros: 129_900_000,
      currency: 'USD',
    });
    expect(rows[1]!.valueMicros).toBe(0);
  });

  it('reads a Google Ads export: preamble, thousands separators, the Total line left out', () => {
    const { platform, rows } = parseSpendCsv(fixture('google-ads/ad-report-export.csv'));
    expect(platform).toBe('google');
    expect(rows).toHaveLength(3);
    expect(sum(rows.map((r) => r.spendMicros))).toBe(3_335_110_000); // 1061.08 + 1109.22 + 1164.81
    expect(sum(rows.map((r) => r.impressions))).toBe(9510);
    expect(sum(rows.map((r) => r.clicks))).toBe(630);
    expect(rows[2]).toMatchObject({
      day: '2024-06-02',
      accountId: '1233213210',
      adsetId: '30022',
      adId: '40032',
      currency: 'USD',
    });
  });

  it('names the first bad row and its column', () => {
    const text = fixture('google-ads/ad-report-export.csv').replace('"1,109.22"', 'n/a');
    expect(() => parseSpendCsv(text)).toThrow(new CsvSpendError('line 5: Cost "n/a" is not an amount'));
    const badDay = fixture('meta/ads-manager-export.csv').replace(
      '"2023-06-01","2023-06-02","2023-06-02"',
      '"2023-06-01","2023-06-02","yesterday"',
    );
    expect(() => parseSpendCsv(badDay)).toThrow(/^line 3: Day "yesterday" is not a day/);
    expect(() => parseSpendCsv('a,b\n1,2\n')).toThrow(/no "Amount spent \(<currency>\)" or "Cost" column/);
    expect(() => parseSpendCsv('Day,Cost\n2024-06-01,1\n')).toThrow(/Google Ads export has no "Campaign" column/);
  });

  it('parses quoted cells with commas, quotes and newlines', () => {
    expect(parseCsv('a,"b,1","c ""q""\nd"\r\nx,y,z').map((r) => r.cells)).toEqual([
      ['a', 'b,1', 'c "q"\nd'],
      ['x', 'y', 'z'],
    ]);
  });
});
