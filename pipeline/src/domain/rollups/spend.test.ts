import fc from 'fast-check';
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

  it('sums the rows in less the rows they replace, by day, platform and touchpoint', () => {
    const factArb = fc
      .record({
        day: fc.constantFrom('2026-03-01', '2026-03-02'),
        campaign: fc.constantFrom('brand', 'generic'),
        // Ad ids and accounts are not in the rollup's key: rows of two ads of one campaign share a group.
        adId: fc.constantFrom('3', '4'),
        spendMicros: fc.integer({ min: 0, max: 1e9 }),
        impressions: fc.nat({ max: 10_000 }),
        clicks: fc.nat({ max: 1000 }),
        convValueMicros: fc.integer({ min: 0, max: 1e9 }),
      })
      .map(row);
    fc.assert(
      fc.property(fc.array(fc.tuple(factArb, fc.option(factArb)), { maxLength: 20 }), (pairs) => {
        const delta = spendDeltaOf(pairs.map(([fact, previous]) => ({ fact, previous })));
        // Summed apart by day and campaign, the key fields that vary here (the ad is not in the key).
        const expected = new Map<string, number[]>();
        const add = (f: AdSpendFact, sign: number) => {
          const k = `${f.day}|${f.campaign}`;
          const cur = expected.get(k) ?? [0, 0, 0, 0];
          const values = [f.spendMicros, f.impressions, f.clicks, f.convValueMicros];
          expected.set(
            k,
            cur.map((v, i) => v + sign * values[i]!),
          );
        };
        for (const [fact, previous] of pairs) {
          add(fact, 1);
          if (previous) add(previous, -1);
        }
        const byDayAndCampaign = [...delta].map(([k, v]): [string, number[]] => [
          `${SPEND_KEY.get(k, 'day')}|${SPEND_KEY.get(k, 'campaign')}`,
          v,
        ]);
        expect(new Map(byDayAndCampaign)).toEqual(expected);
        expect(delta.size).toBe(expected.size);
        // The rows are the non-zero groups, each group's sums under its column names.
        const rows = spendRows(delta);
        const nonZero = [...delta].filter(([, v]) => v.some((x) => x !== 0));
        expect(rows).toHaveLength(nonZero.length);
        for (const r of rows) {
          const sums = delta.get(SPEND_KEY.ofColumns(r))!;
          expect([r.spend_micros, r.impressions, r.clicks, r.conv_value_micros]).toEqual(sums);
        }
      }),
    );
  });
});
