import type { AdSpendFact } from '../facts';
import { AD_SPEND_DAILY, SPEND_KEY, spendDeltaOf, spendRows } from './spend';

const row = (over: Partial<AdSpendFact>): AdSpendFact => ({
  day: '2026-03-01',
  platform: 'google',
  accountId: '123',
  campaignId: '1',
  adsetId: '2',
  adId: '3',
  channel: 'paid_search',
  source: 'google',
  medium: 'cpc',
  campaign: 'brand',
  spendMicros: 0,
  impressions: 0,
  clicks: 0,
  convValueMicros: 0,
  ...over,
});

describe('spendDeltaOf', () => {
  it('adds a new row and the difference of a replaced one', () => {
    const brand = row({ spendMicros: 12_500_000, impressions: 1000, clicks: 40 });
    const before = row({
      campaign: 'generic',
      spendMicros: 3_000_000,
      impressions: 300,
      clicks: 9,
      convValueMicros: 1,
    });
    const after = { ...before, spendMicros: 5_000_000, impressions: 320, clicks: 10, convValueMicros: 0 };
    const delta = spendDeltaOf([
      { fact: brand, previous: null },
      { fact: after, previous: before },
    ]);
    // Worked out by hand: the new row whole; the replaced one by 5.0 - 3.0, 320 - 300, 10 - 9, 0 - 1.
    expect(delta).toEqual(
      new Map([
        [SPEND_KEY.of(brand), [12_500_000, 1000, 40, 0]],
        [SPEND_KEY.of(after), [2_000_000, 20, 1, -1]],
      ]),
    );
  });

  it('gives zeros for a row written over itself, which leave no row to write', () => {
    const same = row({ spendMicros: 7, impressions: 1, clicks: 1 });
    const delta = spendDeltaOf([{ fact: same, previous: same }]);
    expect([...delta.values()]).toEqual([[0, 0, 0, 0]]);
    expect(spendRows(delta)).toEqual([]);
  });

  it('names its rows by the columns of ad_spend_daily', () => {
    const rows = spendRows(spendDeltaOf([{ fact: row({ spendMicros: 1 }), previous: null }]));
    expect(Object.keys(rows[0]!).sort()).toEqual(
      [...AD_SPEND_DAILY.keys, ...AD_SPEND_DAILY.values].map((c) => c.name).sort(),
    );
    expect(rows[0]).toMatchObject({ day: '2026-03-01', campaign: 'brand', spend_micros: 1, clicks: 0 });
  });
});
