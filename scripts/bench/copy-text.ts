/**
 * `npm run bench -- copy-text`: the CPU of making a COPY's input in the daemon, without a database: batches of
 * rows shaped like event facts of the demo store (about 1.1 KB each, their data holding characters beyond
 * Latin-1) and like attribution rollup rows (short, texts and numbers), turned into lines (`copyLine`) and into
 * one buffer (`copyData`). Each batch's lines are made fresh and a collection runs before each timing, so that
 * every round measures the same work; the medians of the rounds are printed.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { copyData, copyLine } from '../../storage/pg-copy-text';
import { planDemo } from '../demo/generate';
import { percentile } from './bench-env';

export interface CopyTextBenchOptions {
  rounds: number;
}

type Row = Array<string | number | null>;

function factRows(): Row[] {
  const demo = planDemo({ events: 2_000, seed: 53, start: new Date(Date.now() - 70 * 86_400_000), days: 70 });
  return [...demo.events()].slice(0, 1_000).map((e) => {
    const { document, navigator } = e.context;
    const data = 'data' in e && e.data !== undefined ? JSON.stringify(e.data) : null;
    const at = e.timestamp;
    return ['store-1', e.id, e.clientId, e.name, at, document.location.href, document.referrer ?? '', null, null, null]
      .concat([null, null, null, null, null, '[]', '[]', at, document.title ?? '', e.clientIp])
      .concat([navigator?.userAgent ?? null, null, data]);
  });
}

const rollupRows = (): Row[] =>
  Array.from({ length: 20_000 }, (_, i) => [
    'store-1',
    `2026-10-${String(1 + (i % 28)).padStart(2, '0')}`,
    'purchase',
    'linear',
    ['paid_social', 'organic', 'email'][i % 3]!,
    `source-${i % 50}`,
    `medium-${i % 7}`,
    `campaign-${i % 200}`,
    `/products/p-${i % 300}`,
    'meta',
    i * 13,
    i % 1000,
    123_456_789 + i,
    0,
  ]);

/** Medians over `rounds` of making each batch's lines and its COPY input, in ms. */
function timeBatch(rows: readonly Row[], rounds: number, gc: () => void) {
  const lineMs: number[] = [];
  const dataMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    gc();
    let t = performance.now();
    const lines = rows.map((row) => copyLine(row));
    lineMs.push(performance.now() - t);
    gc();
    t = performance.now();
    copyData(lines);
    dataMs.push(performance.now() - t);
  }
  const median = (ms: number[]) =>
    Number(
      percentile(
        ms.sort((a, b) => a - b),
        50,
      ).toFixed(2),
    );
  return { rows: rows.length, copy_line_ms: median(lineMs), copy_data_ms: median(dataMs) };
}

export function benchCopyText(opts: CopyTextBenchOptions): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  console.log(
    JSON.stringify(
      {
        bench: 'copy-text',
        rounds: opts.rounds,
        event_facts: timeBatch(factRows(), opts.rounds, gc),
        rollup_rows: timeBatch(rollupRows(), opts.rounds, gc),
      },
      null,
      2,
    ),
  );
}
