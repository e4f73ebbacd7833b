import { MODELS, modelSumColumn } from '../../../../contracts/src/attribution';
import {
  accumulateAdCredits,
  type AdCreditLike,
  adRollupRows,
  type AdRollupSums,
  adRollupValues,
  ATTRIBUTION_BY_AD,
} from './ad';
import { MODEL_SUM_COLUMNS } from './attribution';

const paid = (model: string, weight: number, over: Partial<AdCreditLike> = {}): AdCreditLike => ({
  day: '2026-03-02',
  goal: 'purchase',
  model,
  channel: 'paid_social',
  platform: 'meta',
  campaign: 'spring',
  campaignId: '120',
  adSetId: '1201',
  adId: '12011',
  weight,
  newWeight: 0,
  valueMicros: weight * 10,
  cogsMicros: 0,
  ...over,
});

const deltaOf = (credits: AdCreditLike[]) => {
  const delta = new Map<string, AdRollupSums>();
  accumulateAdCredits(delta, credits, 1);
  return delta;
};

describe('the ad rollup with the models side by side', () => {
  it('keys its rows by the dimensions alone and holds every model in columns of its own', () => {
    expect(ATTRIBUTION_BY_AD.keys.map((c) => c.name)).not.toContain('model');
    expect(ATTRIBUTION_BY_AD.values).toBe(MODEL_SUM_COLUMNS);
  });

  it("puts a group's first-click and linear credits in one row, each at its model's columns", () => {
    const rows = adRollupRows(deltaOf([paid('first', 1_000_000), paid('linear', 500_000)]));
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toMatchObject({ day: '2026-03-02', platform: 'meta', ad_id: '12011' });
    expect(row[modelSumColumn('weight', 'first')]).toBe(1_000_000);
    expect(row[modelSumColumn('value_micros', 'first')]).toBe(10_000_000);
    expect(row[modelSumColumn('weight', 'linear')]).toBe(500_000);
    for (const m of MODELS.filter((m) => m !== 'first' && m !== 'linear'))
      expect(row[modelSumColumn('weight', m)]).toBe(0);
  });

  it('keeps two ads of one campaign apart and leaves unpaid credits out', () => {
    const values = adRollupValues(
      deltaOf([paid('last', 1_000_000), paid('last', 1_000_000, { adId: '12012' }), paid('last', 1, { platform: '' })]),
    );
    expect(values.size).toBe(2);
  });

  it('names a model that has no columns instead of dropping its credit', () => {
    expect(() => adRollupValues(deltaOf([paid('markov', 3)]))).toThrow(
      'attribution_by_ad: no columns for the model markov',
    );
  });
});
