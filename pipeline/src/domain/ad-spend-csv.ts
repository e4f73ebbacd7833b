/**
 * Meta Ads Manager and Google Ads report exports (CSV, column names as exported in English) as ad-spend rows
 * (docs/product.md, Ad spend from the ad platforms). The export must be broken down by day and by ad.
 * - Meta: `Day` (or `Reporting starts`), `Campaign name`, `Ad set name`, `Ad name`, `Amount spent (<CUR>)`,
 *   `Impressions`, `Link clicks` (or `Clicks (all)`), optional `Campaign ID`, `Ad set ID`, `Ad ID`,
 *   `Account ID`, `Purchases conversion value`.
 * - Google Ads: a title and a date-range line may precede the header; `Day`, `Campaign`, `Ad group`, `Cost`,
 *   `Impr.`, `Clicks`, optional `Campaign ID`, `Ad group ID`, `Ad ID`, `Customer ID`, `Currency code`,
 *   `Conv. value`. Numbers may carry thousands separators; `--` means none. A `Total...` line ends the rows.
 * Money is parsed to exact micros. An error names the first bad row (its line in the file) and column.
 */
import { countOf, decimalToMicros } from './decimal-micros';

export interface CsvSpendRow {
  day: string;
  campaignId: string;
  campaignName: string;
  adsetId: string;
  adsetName: string;
  adId: string;
  adName: string;
  spendMicros: number;
  impressions: number;
  clicks: number;
  valueMicros: number;
  /** From the file when it says; else the caller's. */
  accountId: string;
  currency: string;
}

export interface CsvSpend {
  platform: 'facebook' | 'google';
  rows: CsvSpendRow[];
}

export class CsvSpendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CsvSpendError';
  }
}

/** RFC 4180 records with their 1-based starting line numbers. */
export function parseCsv(text: string): Array<{ line: number; cells: string[] }> {
  const out: Array<{ line: number; cells: string[] }> = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  const s = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        cell += ch;
      }
    } else if (ch === '"') quoted = true;
    else if (ch === ',' || ch === '\t') {
      cells.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && s[i + 1] === '\n') i++;
      cells.push(cell);
      if (cells.some((c) => c.trim() !== '')) out.push({ line: start, cells });
      cells = [];
      cell = '';
      line++;
      start = line;
    } else cell += ch;
  }
  cells.push(cell);
  if (cells.some((c) => c.trim() !== '')) out.push({ line: start, cells });
  return out;
}

const MONTHS: Record<string, string> = {
  jan: '01',
  feb: '02',
  mar: '03',
  apr: '04',
  may: '05',
  jun: '06',
  jul: '07',
  aug: '08',
  sep: '09',
  oct: '10',
  nov: '11',
  dec: '12',
};

/** `2024-06-01`, or Google's `Jun 1, 2024`; null otherwise. */
function dayOf(v: string): string | null {
  const t = v.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return t;
  const m = /^([A-Za-z]{3})[a-z]*\.? (\d{1,2}), (\d{4})$/.exec(t);
  const month = m ? MONTHS[m[1]!.toLowerCase()] : undefined;
  return m && month ? `${m[3]}-${month}-${m[2]!.padStart(2, '0')}` : null;
}

const clean = (v: string): string => v.trim().replace(/,/g, '').replace(/^--$/, '0').replace(/^$/, '0');

export function parseSpendCsv(text: string): CsvSpend {
  const records = parseCsv(text);
  const headerAt = records.findIndex(
    (r) =>
      r.cells.some((c) => /^Amount spent \([A-Z]{3}\)$/.test(c.trim())) || r.cells.some((c) => c.trim() === 'Cost'),
  );
  if (headerAt < 0) {
    throw new CsvSpendError(
      'not a Meta Ads Manager or Google Ads export: no "Amount spent (<currency>)" or "Cost" column header',
    );
  }
  const header = records[headerAt]!.cells.map((c) => c.trim());
  const col = (...names: string[]): number => {
    for (const n of names) {
      const i = header.indexOf(n);
      if (i >= 0) return i;
    }
    return -1;
  };
  const spendHeader = header.find((c) => /^Amount spent \([A-Z]{3}\)$/.test(c));
  const platform = spendHeader ? 'facebook' : 'google';
  const c = spendHeader
    ? {
        day: col('Day', 'Reporting starts'),
        campaign: col('Campaign name'),
        campaignId: col('Campaign ID'),
        adset: col('Ad set name'),
        adsetId: col('Ad set ID'),
        ad: col('Ad name'),
        adId: col('Ad ID'),
        spend: col(spendHeader),
        impressions: col('Impressions'),
        clicks: col('Link clicks', 'Clicks (all)'),
        value: col('Purchases conversion value', 'Website purchases conversion value'),
        account: col('Account ID'),
        currency: -1,
      }
    : {
        day: col('Day'),
        campaign: col('Campaign'),
        campaignId: col('Campaign ID'),
        adset: col('Ad group'),
        adsetId: col('Ad group ID'),
        ad: col('Ad name', 'Ad'),
        adId: col('Ad ID'),
        spend: col('Cost'),
        impressions: col('Impr.', 'Impressions'),
        clicks: col('Clicks'),
        value: col('Conv. value', 'Conversion value'),
        account: col('Customer ID'),
        currency: col('Currency code', 'Currency'),
      };
  const required: Array<[keyof typeof c, string]> = [
    ['day', spendHeader ? 'Day (or Reporting starts)' : 'Day'],
    ['campaign', spendHeader ? 'Campaign name' : 'Campaign'],
    ['impressions', spendHeader ? 'Impressions' : 'Impr.'],
    ['clicks', spendHeader ? 'Link clicks (or Clicks (all))' : 'Clicks'],
  ];
  for (const [k, name] of required) {
    if (c[k] < 0)
      throw new CsvSpendError(`the ${platform === 'facebook' ? 'Meta' : 'Google Ads'} export has no "${name}" column`);
  }
  const currencyOfHeader = spendHeader ? /\(([A-Z]{3})\)/.exec(spendHeader)![1]! : '';
  const rows: CsvSpendRow[] = [];
  for (const r of records.slice(headerAt + 1)) {
    const get = (i: number): string => (i >= 0 ? (r.cells[i] ?? '').trim() : '');
    if (/^total/i.test(get(0)) || /^total/i.test(get(c.day))) break;
    const bad = (column: string, value: string, what: string): CsvSpendError =>
      new CsvSpendError(`line ${r.line}: ${column} ${JSON.stringify(value)} is not ${what}`);
    const day = dayOf(get(c.day));
    if (!day) throw bad(header[c.day]!, get(c.day), 'a day (YYYY-MM-DD or Jun 1, 2024)');
    const money = (i: number): number => {
      if (i < 0) return 0;
      const m = decimalToMicros(clean(get(i)));
      if (m === null) throw bad(header[i]!, get(i), 'an amount');
      return m;
    };
    const count = (i: number): number => {
      const n = countOf(clean(get(i)));
      if (n === null) throw bad(header[i]!, get(i), 'a whole number');
      return n;
    };
    rows.push({
      day,
      campaignId: get(c.campaignId),
      campaignName: get(c.campaign),
      adsetId: get(c.adsetId),
      adsetName: get(c.adset),
      adId: get(c.adId),
      adName: get(c.ad),
      spendMicros: money(c.spend),
      impressions: count(c.impressions),
      clicks: count(c.clicks),
      valueMicros: money(c.value),
      accountId: get(c.account).replace(/-/g, ''),
      currency: (get(c.currency) || currencyOfHeader).toUpperCase(),
    });
  }
  return { platform, rows };
}
