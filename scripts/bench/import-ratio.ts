/**
 * `npm run bench -- import-ratio`: the history import against the ingest bench, each in a fresh environment, in
 * alternated rounds, and the import's rate end to end as a share of the ingest bench's. On a shared two-core machine
 * the rate of either moves by a fifth from one hour to the next, so a ratio is only read from runs taken side by
 * side; the order alternates (import first, then ingest first) so that a machine slowing or speeding up during the
 * rounds does not favour one side. Each run prints its own figures as it ends; the rounds and their ratios last.
 */
import { benchImport, type ImportBenchOptions } from './import';
import { benchIngest, type IngestBenchOptions } from './ingest';

export interface ImportRatioBenchOptions {
  rounds: number;
  import: ImportBenchOptions;
  ingest: IngestBenchOptions;
}

/** The import's target: no less than this share of the ingest bench's rate end to end (docs/operations.md). */
export const IMPORT_RATIO_TARGET = 0.6;

export interface RatioRound {
  import_events_per_s: number;
  ingest_events_per_s: number;
  ratio: number;
}

export interface RatioSummary {
  rounds: RatioRound[];
  ratio: { mean: number; min: number; max: number };
  /** The ratio of the summed rates, where a round of faster runs weighs more than in the mean. */
  ratio_of_sums: number;
  target: number;
  rounds_at_target: number;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** The rounds' ratios and their spread. */
export function summarizeRatios(
  pairs: ReadonlyArray<{ imported: number; ingested: number }>,
  target = IMPORT_RATIO_TARGET,
): RatioSummary {
  if (pairs.length === 0) throw new Error('no rounds to summarize');
  const ratios = pairs.map((p) => p.imported / p.ingested);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    rounds: pairs.map((p, i) => ({
      import_events_per_s: p.imported,
      ingest_events_per_s: p.ingested,
      ratio: round3(ratios[i]!),
    })),
    ratio: {
      mean: round3(sum(ratios) / ratios.length),
      min: round3(Math.min(...ratios)),
      max: round3(Math.max(...ratios)),
    },
    ratio_of_sums: round3(sum(pairs.map((p) => p.imported)) / sum(pairs.map((p) => p.ingested))),
    target,
    rounds_at_target: ratios.filter((r) => r >= target).length,
  };
}

export async function benchImportRatio(opts: ImportRatioBenchOptions): Promise<void> {
  const pairs: Array<{ imported: number; ingested: number }> = [];
  for (let i = 0; i < opts.rounds; i++) {
    let imported: number;
    let ingested: number;
    if (i % 2 === 0) {
      imported = (await benchImport(opts.import)).end_to_end_events_per_s;
      ingested = (await benchIngest(opts.ingest)).end_to_end_events_per_s;
    } else {
      ingested = (await benchIngest(opts.ingest)).end_to_end_events_per_s;
      imported = (await benchImport(opts.import)).end_to_end_events_per_s;
    }
    pairs.push({ imported, ingested });
  }
  console.log(JSON.stringify({ bench: 'import-ratio', ...summarizeRatios(pairs) }, null, 2));
}
