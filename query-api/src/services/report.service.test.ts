/** The pure parts of the attribution reports: request validation, record building and the sort order. */
import fc from 'fast-check';
import type { Dimension } from '../../../contracts/src/attribution';
import { ATTRIBUTION_METRICS, type AttributionRecord } from '../../../contracts/src/reports';
import { ApiError } from '../app/errors';
import {
  compareRecords,
  emptySums,
  type GroupSums,
  parseDay,
  toRecord,
  validateDimensions,
  validateOrders,
  validateRange,
} from './report.service';
import type { SortKey } from './analytics-lists';

/** The status and message of the ApiError `fn` throws. */
function failure(fn: () => unknown): { status: number; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error('expected an ApiError, nothing was thrown');
}

const badRequest = (message: string) => ({ status: 400, message });

describe('parseDay', () => {
  it.each([
    ['2026-01-31', Date.UTC(2026, 0, 31)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
    ['2000-02-29', Date.UTC(2000, 1, 29)],
    ['1999-12-31', Date.UTC(1999, 11, 31)],
  ])('reads %s as its UTC midnight', (value, expected) => {
    expect(parseDay('start_date', value)).toBe(expected);
  });

  it.each([
    ['2026-02-30', 'a day past the end of the month'],
    ['2025-02-29', 'February 29 of a common year'],
    ['1900-02-29', 'February 29 of a century that is not a leap year'],
    ['2026-13-01', 'month 13'],
    ['2026-00-10', 'month 0'],
    ['2026-01-32', 'day 32'],
    ['2026-01-00', 'day 0'],
    ['2026-1-5', 'unpadded month and day'],
    ['20260105', 'no separators'],
    ['2026/01/05', 'slashes'],
    ['2026-01-05T00:00:00Z', 'a timestamp'],
    [' 2026-01-05', 'a leading space'],
    ['', 'an empty string'],
  ])('refuses %s (%s), naming the field', (value) => {
    expect(failure(() => parseDay('end_date', value))).toEqual(
      badRequest(`end_date: must be a calendar date YYYY-MM-DD, got "${value}"`),
    );
  });
});

describe('validateRange', () => {
  it.each([
    ['2026-01-01', '2026-01-02', 'one day'],
    ['2024-01-01', '2025-01-01', 'a leap year: 366 days'],
    ['2025-03-01', '2026-03-02', '366 days across no leap day'],
    ['2025-12-31', '2026-01-01', 'across a year end'],
  ])('accepts [%s, %s) (%s)', (start, end) => {
    expect(() => validateRange(start, end)).not.toThrow();
  });

  it.each([
    [
      '2026-01-02',
      '2026-01-02',
      'end_date: must be after start_date (end_date is exclusive: pass the day after the last day)',
    ],
    [
      '2026-01-03',
      '2026-01-02',
      'end_date: must be after start_date (end_date is exclusive: pass the day after the last day)',
    ],
    ['2025-03-01', '2026-03-03', 'end_date: must be at most 366 days after start_date'],
    ['2024-01-01', '2025-01-02', 'end_date: must be at most 366 days after start_date'],
    ['2026-02-30', '2026-03-01', 'start_date: must be a calendar date YYYY-MM-DD, got "2026-02-30"'],
    ['2026-03-01', 'tomorrow', 'end_date: must be a calendar date YYYY-MM-DD, got "tomorrow"'],
    ['yesterday', 'tomorrow', 'start_date: must be a calendar date YYYY-MM-DD, got "yesterday"'],
  ])('refuses [%s, %s)', (start, end, message) => {
    expect(failure(() => validateRange(start, end))).toEqual(badRequest(message));
  });
});

describe('validateDimensions', () => {
  it.each([[['channel']], [['campaign', 'source', 'medium']], [['landing_page', 'channel']]])(
    'accepts %j',
    (dimensions) => {
      expect(validateDimensions(dimensions)).toEqual(dimensions);
    },
  );

  it.each([
    [[], 'dimensions: must have 1 to 3 entries'],
    [['campaign', 'channel', 'source', 'medium'], 'dimensions: must have 1 to 3 entries'],
    [['platform'], 'dimensions: "platform" is not one of campaign, channel, source, medium, landing_page'],
    [['channel', 'Source'], 'dimensions: "Source" is not one of campaign, channel, source, medium, landing_page'],
    [['channel', 'source', 'channel'], 'dimensions: must not repeat a dimension'],
  ])('refuses %j', (dimensions, message) => {
    expect(failure(() => validateDimensions(dimensions))).toEqual(badRequest(message));
  });
});

describe('validateOrders', () => {
  const sortable = (...dims: string[]) => [...ATTRIBUTION_METRICS, ...dims].join(', ');

  it.each<[string, Parameters<typeof validateOrders>[0], Dimension[], SortKey[]]>([
    ['no orders', undefined, ['channel'], []],
    ['an empty list', [], ['channel'], []],
    ['a metric, descending', [{ column: 'spend', order: 'desc' }], ['channel'], [{ column: 'spend', desc: true }]],
    ['the direction in any case', [{ column: 'roas', order: 'ASC' }], ['channel'], [{ column: 'roas', desc: false }]],
    [
      'a requested dimension after a metric',
      [
        { column: 'net_margin', order: 'Desc' },
        { column: 'source', order: 'asc' },
      ],
      ['channel', 'source'],
      [
        { column: 'net_margin', desc: true },
        { column: 'source', desc: false },
      ],
    ],
  ])('accepts %s', (_label, orders, dims, expected) => {
    expect(validateOrders(orders, dims)).toEqual(expected);
  });

  it.each<[string, Parameters<typeof validateOrders>[0], Dimension[], string]>([
    [
      'a dimension not requested',
      [{ column: 'campaign', order: 'asc' }],
      ['channel', 'source'],
      `orders[0].column: "campaign" is not sortable here; use one of ${sortable('channel', 'source')}`,
    ],
    [
      'platform, which is not a dimension of the report',
      [{ column: 'platform', order: 'asc' }],
      ['channel'],
      `orders[0].column: "platform" is not sortable here; use one of ${sortable('channel')}`,
    ],
    [
      'an unknown column in second place',
      [
        { column: 'spend', order: 'asc' },
        { column: 'revenue', order: 'asc' },
      ],
      ['medium'],
      `orders[1].column: "revenue" is not sortable here; use one of ${sortable('medium')}`,
    ],
    [
      'a direction other than asc or desc',
      [
        { column: 'clicks', order: 'desc' },
        { column: 'cpc', order: 'descending' },
      ],
      ['channel'],
      'orders[1].order: must be asc or desc, got "descending"',
    ],
  ])('refuses %s, naming the entry', (_label, orders, dims, message) => {
    expect(failure(() => validateOrders(orders, dims))).toEqual(badRequest(message));
  });
});

describe('toRecord', () => {
  const DIMS = { campaign: 'spring', channel: 'paid_search', source: 'google', medium: 'cpc', landing_page: '/home' };
  const sums = (s: Partial<GroupSums>): GroupSums => ({
    dims: DIMS,
    ...emptySums(),
    ...s,
  });

  it('fills only the requested dimensions and leaves platform empty', () => {
    const r = toRecord(sums({}), ['channel', 'source']);
    expect([r.campaign, r.channel, r.source, r.medium, r.landing_page, r.platform]).toEqual([
      '',
      'paid_search',
      'google',
      '',
      '',
      '',
    ]);
    const all = toRecord(sums({}), ['campaign', 'medium', 'landing_page']);
    expect([all.campaign, all.channel, all.source, all.medium, all.landing_page]).toEqual([
      'spring',
      '',
      '',
      'cpc',
      '/home',
    ]);
  });

  type Numbers = Omit<AttributionRecord, 'campaign' | 'channel' | 'source' | 'platform' | 'medium' | 'landing_page'>;
  it.each<[string, Partial<GroupSums>, Numbers]>([
    [
      'conversions with spend, costs and ad-platform value',
      {
        weight: 2_500_000,
        newWeight: 1_000_000,
        valueMicros: 250_000_000,
        cogsMicros: 100_000_000,
        spendMicros: 50_000_000,
        impressions: 20_000,
        clicks: 400,
        adValueMicros: 150_000_000,
      },
      {
        conversions: 2.5,
        new_lead_conversions: 1,
        conversion_value: 250,
        spend: 50,
        clicks: 400,
        ad_conversion_value: 150,
        impressions: 20_000,
        roas: 5, // value / spend
        ad_roas: 3, // ad value / spend
        cpa: 20, // spend / conversions
        cpm: 2.5, // 1000 * spend / impressions
        cpc: 0.13, // 50 / 400 = 0.125, half away from zero
        net_profit: 100, // value - cost of goods - spend
        net_margin: 0.4, // net profit / value
      },
    ],
    [
      'conversions without spend: the spend ratios are 0',
      { weight: 3_000_000, valueMicros: 90_000_000, cogsMicros: 30_000_000 },
      {
        conversions: 3,
        new_lead_conversions: 0,
        conversion_value: 90,
        spend: 0,
        clicks: 0,
        ad_conversion_value: 0,
        impressions: 0,
        roas: 0,
        ad_roas: 0,
        cpa: 0,
        cpm: 0,
        cpc: 0,
        net_profit: 60,
        net_margin: 0.6667, // ratios keep 4 decimals
      },
    ],
    [
      'spend without conversions (a spend-only row of the join): a loss, no margin',
      { spendMicros: 12_500_000, impressions: 5_000, clicks: 25, adValueMicros: 40_000_000 },
      {
        conversions: 0,
        new_lead_conversions: 0,
        conversion_value: 0,
        spend: 12.5,
        clicks: 25,
        ad_conversion_value: 40,
        impressions: 5_000,
        roas: 0,
        ad_roas: 3.2,
        cpa: 0,
        cpm: 2.5,
        cpc: 0.5,
        net_profit: -12.5,
        net_margin: 0,
      },
    ],
    [
      'fractional credit and sub-cent money',
      {
        weight: 333_333,
        newWeight: 166_667,
        valueMicros: 1_005_000,
        spendMicros: 2_000_000,
        impressions: 3,
        clicks: 7,
      },
      {
        conversions: 0.333333, // conversions keep the 6 decimals of the stored weights
        new_lead_conversions: 0.166667,
        conversion_value: 1.01, // 1.005, half away from zero
        spend: 2,
        clicks: 7,
        ad_conversion_value: 0,
        impressions: 3,
        roas: 0.5025,
        ad_roas: 0,
        cpa: 6, // 2 / 0.333333 = 6.000006
        cpm: 666.67,
        cpc: 0.29,
        net_profit: -1, // -0.995, half away from zero
        net_margin: -0.99, // -0.995 / 1.005 = -0.990049...
      },
    ],
  ])('%s', (_label, input, expected) => {
    const {
      campaign: _c,
      channel: _ch,
      source: _s,
      platform: _p,
      medium: _m,
      landing_page: _l,
      ...numbers
    } = toRecord(sums(input), ['channel']);
    expect(numbers).toEqual(expected);
  });
});

describe('compareRecords', () => {
  const record = (
    dims: Partial<Record<Dimension, string>>,
    numbers: Partial<AttributionRecord>,
  ): AttributionRecord => ({
    campaign: '',
    channel: '',
    source: '',
    platform: '',
    medium: '',
    landing_page: '',
    conversions: 0,
    new_lead_conversions: 0,
    conversion_value: 0,
    spend: 0,
    clicks: 0,
    ad_conversion_value: 0,
    impressions: 0,
    roas: 0,
    ad_roas: 0,
    cpa: 0,
    cpm: 0,
    cpc: 0,
    net_profit: 0,
    net_margin: 0,
    ...dims,
    ...numbers,
  });

  const RECORDS = [
    record({ channel: 'email' }, { conversions: 5, spend: 9 }),
    record({ channel: 'paid_search' }, { conversions: 5, spend: 100 }),
    record({ channel: 'direct' }, { conversions: 2, spend: 100 }),
    record({ channel: 'Organic' }, { conversions: 7, spend: 0 }),
  ];
  const sortedChannels = (records: readonly AttributionRecord[], keys: SortKey[], dims: Dimension[]) =>
    [...records].sort((a, b) => compareRecords(a, b, keys, dims)).map((r) => r.channel);

  it.each<[string, SortKey[], string[]]>([
    [
      'a metric descending, ties by dimension ascending',
      [{ column: 'conversions', desc: true }],
      ['Organic', 'email', 'paid_search', 'direct'],
    ],
    [
      'a metric ascending, ties by dimension ascending',
      [{ column: 'conversions', desc: false }],
      ['direct', 'email', 'paid_search', 'Organic'],
    ],
    [
      'numbers as numbers (100 after 9), then the second key',
      [
        { column: 'spend', desc: true },
        { column: 'conversions', desc: false },
      ],
      ['direct', 'paid_search', 'email', 'Organic'],
    ],
    [
      'a dimension ascending, by code unit (upper case first)',
      [{ column: 'channel', desc: false }],
      ['Organic', 'direct', 'email', 'paid_search'],
    ],
    ['a dimension descending', [{ column: 'channel', desc: true }], ['paid_search', 'email', 'direct', 'Organic']],
    ['no key: the dimensions ascending', [], ['Organic', 'direct', 'email', 'paid_search']],
  ])('sorts by %s', (_label, keys, expected) => {
    expect(sortedChannels(RECORDS, keys, ['channel'])).toEqual(expected);
  });

  it('breaks ties on every requested dimension in request order', () => {
    const records = [
      record({ channel: 'social', source: 'instagram' }, { conversions: 1 }),
      record({ channel: 'email', source: 'newsletter' }, { conversions: 1 }),
      record({ channel: 'social', source: 'facebook' }, { conversions: 1 }),
      record({ channel: 'email', source: 'abandoned_cart' }, { conversions: 1 }),
    ];
    const keys = [{ column: 'conversions', desc: true }];
    const bySourceFirst = [...records].sort((a, b) => compareRecords(a, b, keys, ['source', 'channel']));
    const byChannelFirst = [...records].sort((a, b) => compareRecords(a, b, keys, ['channel', 'source']));
    expect(bySourceFirst.map((r) => r.source)).toEqual(['abandoned_cart', 'facebook', 'instagram', 'newsletter']);
    expect(byChannelFirst.map((r) => `${r.channel}/${r.source}`)).toEqual([
      'email/abandoned_cart',
      'email/newsletter',
      'social/facebook',
      'social/instagram',
    ]);
  });

  it('orders records with distinct dimensions the same whatever their order in, so pages never overlap', () => {
    const keys = [{ column: 'conversions', desc: true }];
    const expected = sortedChannels(RECORDS, keys, ['channel']);
    fc.assert(
      fc.property(fc.shuffledSubarray(RECORDS, { minLength: RECORDS.length }), (shuffled) => {
        expect(sortedChannels(shuffled, keys, ['channel'])).toEqual(expected);
      }),
    );
  });

  it('is antisymmetric, and 0 only for the same dimensions', () => {
    const keys = [{ column: 'conversions', desc: true }];
    for (const a of RECORDS) {
      for (const b of RECORDS) {
        const ab = compareRecords(a, b, keys, ['channel']);
        expect(Math.sign(ab) + Math.sign(compareRecords(b, a, keys, ['channel']))).toBe(0);
        expect(ab === 0).toBe(a === b);
      }
    }
  });
});
