/**
 * A second implementation of the data-driven model's removal effects (docs/product.md, Attribution,
 * "Data-driven"), for tests only. It imports nothing from `pipeline/src/domain/markov-chain.ts` and solves the
 * chain by a different method, so a property test comparing the two is unlikely to pass through a mistake they
 * share:
 * - the chain is built here from the raw paths (consecutive repeats collapsed, paths without channels or with a
 *   non-positive count dropped), as a dense transition matrix over `start` and the channels;
 * - P(conversion) is found by value iteration (Jacobi: x <- r + Q x from x = 0, every state from the previous
 *   vector) until no entry moves by 1e-15 or more, instead of solving (I - Q) x = r by elimination;
 * - removing channel c redirects every transition into c to the null state (its column of Q is dropped), and
 *   its removal effect is 1 - P_-c / P (unclamped; 0 for every channel when P is 0).
 */

/** One distinct path: channels in time order, whether it ended in a conversion, how many followed it. */
export interface ReferencePath {
  channels: readonly string[];
  converted: boolean;
  count: number;
}

export interface ReferenceFit {
  conversionProbability: number;
  removalEffects: Record<string, number>;
}

/** Value iteration stops when the largest change of an iterate is below this, or throws after MAX_ITERATIONS. */
const TOLERANCE = 1e-15;
const MAX_ITERATIONS = 1_000_000;

/** Index 0 is `start`; channel i is index i + 1. */
interface Chain {
  channels: string[];
  /** q[i][j]: probability of moving from transient state i to transient state j. */
  q: number[][];
  /** r[i]: probability of moving from transient state i straight to `conversion`. */
  r: number[];
}

function buildChain(paths: readonly ReferencePath[]): Chain {
  const collapsed: Array<{ seq: string[]; converted: boolean; count: number }> = [];
  const channelSet = new Set<string>();
  for (const p of paths) {
    if (!(p.count > 0)) continue;
    const seq: string[] = [];
    for (let i = 0; i < p.channels.length; i++) {
      const c = p.channels[i]!;
      if (i === 0 || c !== p.channels[i - 1]) seq.push(c);
    }
    if (seq.length === 0) continue;
    for (const c of seq) channelSet.add(c);
    collapsed.push({ seq, converted: p.converted, count: p.count });
  }
  const channels = [...channelSet].sort();
  const n = channels.length + 1;
  const indexOf = (c: string): number => channels.indexOf(c) + 1;
  const moves = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const conversions = new Array<number>(n).fill(0);
  const totals = new Array<number>(n).fill(0);
  for (const { seq, converted, count } of collapsed) {
    let from = 0;
    for (const c of seq) {
      const to = indexOf(c);
      moves[from]![to]! += count;
      totals[from]! += count;
      from = to;
    }
    if (converted) conversions[from]! += count;
    totals[from]! += count; // to `conversion` or to `null`
  }
  const q = moves.map((row, i) => row.map((k) => (totals[i]! > 0 ? k / totals[i]! : 0)));
  const r = conversions.map((k, i) => (totals[i]! > 0 ? k / totals[i]! : 0));
  return { channels, q, r };
}

/** P(absorption in `conversion` from `start`), transitions into state `removed` (if any) sent to `null`. */
function absorption(chain: Chain, removed: number | null): number {
  const n = chain.r.length;
  let x = new Array<number>(n).fill(0);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    const next = new Array<number>(n).fill(0);
    let change = 0;
    for (let i = 0; i < n; i++) {
      let v = chain.r[i]!;
      const row = chain.q[i]!;
      for (let j = 0; j < n; j++) if (j !== removed) v += row[j]! * x[j]!;
      next[i] = v;
      change = Math.max(change, Math.abs(v - x[i]!));
    }
    x = next;
    if (change < TOLERANCE) return x[0]!;
  }
  throw new Error(`value iteration did not converge in ${MAX_ITERATIONS} iterations`);
}

/** P(conversion) of the chain the paths describe, and each channel's removal effect. */
export function referenceRemovalEffects(paths: readonly ReferencePath[]): ReferenceFit {
  const chain = buildChain(paths);
  const base = absorption(chain, null);
  const removalEffects: Record<string, number> = {};
  chain.channels.forEach((c, i) => {
    removalEffects[c] = base > 0 ? 1 - absorption(chain, i + 1) / base : 0;
  });
  return { conversionProbability: base, removalEffects };
}
