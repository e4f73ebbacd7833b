import { IMPORT_RATIO_TARGET, summarizeRatios } from './import-ratio';

describe("the import's share of the ingest bench over alternated rounds", () => {
  it('gives each round its ratio, their mean and spread, and the ratio of the summed rates', () => {
    const s = summarizeRatios([
      { imported: 2_400, ingested: 4_000 }, // 0.6
      { imported: 2_000, ingested: 4_000 }, // 0.5
      { imported: 3_500, ingested: 5_000 }, // 0.7
    ]);
    expect(s.rounds.map((r) => r.ratio)).toEqual([0.6, 0.5, 0.7]);
    expect(s.rounds[1]).toEqual({ import_events_per_s: 2_000, ingest_events_per_s: 4_000, ratio: 0.5 });
    expect(s.ratio).toEqual({ mean: 0.6, min: 0.5, max: 0.7 });
    // 7,900 / 13,000: the faster round weighs more than in the mean.
    expect(s.ratio_of_sums).toBe(0.608);
    expect(s.target).toBe(IMPORT_RATIO_TARGET);
    expect(s.rounds_at_target).toBe(2);
  });

  it('rounds the ratios to three places and counts a round just under the target as under it', () => {
    const s = summarizeRatios([{ imported: 2_599, ingested: 4_333 }], 0.6);
    expect(s.rounds[0]!.ratio).toBe(0.6); // 0.59982 shown rounded
    expect(s.rounds_at_target).toBe(0); // but compared unrounded
  });

  it('refuses to summarize no rounds', () => {
    expect(() => summarizeRatios([])).toThrow('no rounds');
  });
});
