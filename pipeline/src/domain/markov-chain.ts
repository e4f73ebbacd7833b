/**
 * The data-driven model's fit (docs/product.md, Attribution, "Data-driven"): a first-order Markov chain over
 * channel paths, solved exactly, and each channel's removal effect.
 *
 * - A path is the time-ordered channels of one conversion's touchpoints (ending in `conversion`) or of one
 *   person's touchpoints in the window without a conversion (ending in `null`). Consecutive repeats are
 *   collapsed; a path without channels carries nothing to credit and is left out (it would scale every
 *   removal effect by the same factor, so the weights would not change).
 * - States: `start`, the channels, and the two absorbing states. Transition probabilities are the observed
 *   transition counts normalised per state.
 * - P(conversion) is the absorption probability into `conversion` from `start`: the solution of the linear
 *   system (I - Q) x = r, by Gaussian elimination with partial pivoting (no simulation, no step limit).
 * - Removing channel c sends every transition into c to `null`: P_-c is the same system with x_c = 0.
 *   The removal effect is 1 - P_-c / P, and a channel's weight its removal effect over their sum.
 */
import { FIT_WEIGHT_SCALE } from '../../../contracts/src/attribution';

/** One distinct path and how many conversions or persons followed it. */
export interface PathCount {
  /** Channels in time order (repeats are collapsed here, so callers may pass them as they come). */
  channels: readonly string[];
  converted: boolean;
  count: number;
}

/** Outgoing transition counts of one transient state (`start` or a channel). */
interface StateRow {
  to: Map<string, number>;
  conversion: number;
  dropout: number;
  total: number;
}

/** The observed chain: transition counts per transient state, the `start` state first. */
export interface TransitionCounts {
  /** Channels in first-seen order (deterministic for a given input order; sorted by `fitMarkov`). */
  channels: string[];
  start: StateRow;
  rows: Map<string, StateRow>;
}

export interface MarkovFit {
  /** Channels seen in converting or non-converting paths, sorted. */
  channels: string[];
  /** P(conversion) of the whole chain. */
  conversionProbability: number;
  /** Removal effect of each channel, in [0, 1]. */
  removalEffects: Record<string, number>;
  /** Removal effects normalised to sum to 1 (all 0 when no channel has an effect). */
  weights: Record<string, number>;
  /** Distinct non-empty paths, and the conversions and paths (with multiplicity) behind them. */
  distinctPaths: number;
  paths: number;
  conversions: number;
}

const emptyRow = (): StateRow => ({ to: new Map(), conversion: 0, dropout: 0, total: 0 });

/** Removes consecutive repeats: [a, a, b, a] -> [a, b, a]. */
export function collapseRepeats(channels: readonly string[]): string[] {
  const out: string[] = [];
  for (const c of channels) if (out[out.length - 1] !== c) out.push(c);
  return out;
}

/** The transition counts of the paths (empty paths and non-positive counts left out). */
export function transitionCounts(paths: readonly PathCount[]): TransitionCounts {
  const counts: TransitionCounts = { channels: [], start: emptyRow(), rows: new Map() };
  const rowOf = (c: string): StateRow => {
    let row = counts.rows.get(c);
    if (!row) {
      row = emptyRow();
      counts.rows.set(c, row);
      counts.channels.push(c);
    }
    return row;
  };
  for (const p of paths) {
    if (!(p.count > 0)) continue;
    const path = collapseRepeats(p.channels);
    if (path.length === 0) continue;
    let from = counts.start;
    for (const c of path) {
      rowOf(c);
      from.to.set(c, (from.to.get(c) ?? 0) + p.count);
      from.total += p.count;
      from = rowOf(c);
    }
    if (p.converted) from.conversion += p.count;
    else from.dropout += p.count;
    from.total += p.count;
  }
  return counts;
}

/**
 * P(absorption in `conversion` from `start`), with the channels in `removed` sent to `null`. Gaussian
 * elimination over the transient states (start and the channels); every transient state reaches an absorbing
 * one (each path ends in one), so I - Q is nonsingular.
 */
export function conversionProbability(counts: TransitionCounts, removed: ReadonlySet<string> = new Set()): number {
  const states = ['', ...counts.channels.filter((c) => !removed.has(c))];
  if (counts.start.total === 0) return 0;
  const index = new Map(states.map((s, i) => [s, i]));
  const n = states.length;
  // Row i of the augmented matrix [I - Q | r]: x_i - sum_j p_ij x_j = p_i,conversion.
  const a: number[][] = states.map((s, i) => {
    const row = s === '' ? counts.start : counts.rows.get(s)!;
    const line = new Array<number>(n + 1).fill(0);
    line[i] = 1;
    if (row.total > 0) {
      for (const [to, k] of row.to) {
        const j = index.get(to);
        if (j !== undefined) line[j]! -= k / row.total; // a removed channel's share goes to null: x = 0
      }
      line[n] = row.conversion / row.total;
    }
    return line;
  });
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    const p = a[col]!;
    const d = p[col]!;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const row = a[r]!;
      const f = row[col]! / d;
      if (f === 0) continue;
      for (let k = col; k <= n; k++) row[k]! -= f * p[k]!;
    }
  }
  return a[0]![n]! / a[0]![0]!;
}

/** The fit: P(conversion), each channel's removal effect and weight, and the counts behind them. */
export function fitMarkov(paths: readonly PathCount[]): MarkovFit {
  const counts = transitionCounts(paths);
  counts.channels.sort();
  const base = conversionProbability(counts);
  const removalEffects: Record<string, number> = {};
  for (const c of counts.channels) {
    const without = conversionProbability(counts, new Set([c]));
    // Clamp rounding noise: removing a channel can only lower P(conversion).
    removalEffects[c] = base > 0 ? Math.min(1, Math.max(0, 1 - without / base)) : 0;
  }
  const sum = counts.channels.reduce((s, c) => s + removalEffects[c]!, 0);
  const weights: Record<string, number> = {};
  for (const c of counts.channels) weights[c] = sum > 0 ? removalEffects[c]! / sum : 0;
  let distinctPaths = 0;
  let total = 0;
  let conversions = 0;
  for (const p of paths) {
    if (!(p.count > 0) || p.channels.length === 0) continue;
    distinctPaths += 1;
    total += p.count;
    if (p.converted) conversions += p.count;
  }
  return {
    channels: counts.channels,
    conversionProbability: base,
    removalEffects,
    weights,
    distinctPaths,
    paths: total,
    conversions,
  };
}

export { FIT_WEIGHT_SCALE } from '../../../contracts/src/attribution';

/**
 * The fit's weights as integers summing to exactly FIT_WEIGHT_SCALE (largest remainder, ties by channel name),
 * so that credits computed from the stored fit are exact and the same in every recomputation. All 0 when no
 * channel has a removal effect.
 */
export function integerWeights(weights: Readonly<Record<string, number>>): Record<string, number> {
  const channels = Object.keys(weights).sort();
  const out: Record<string, number> = {};
  const sum = channels.reduce((s, c) => s + weights[c]!, 0);
  if (!(sum > 0)) {
    for (const c of channels) out[c] = 0;
    return out;
  }
  const exact = channels.map((c) => (weights[c]! / sum) * FIT_WEIGHT_SCALE);
  const floors = exact.map(Math.floor);
  let left = FIT_WEIGHT_SCALE - floors.reduce((a, b) => a + b, 0);
  const order = channels.map((c, i) => ({ i, rem: exact[i]! - floors[i]! })).sort((a, b) => b.rem - a.rem || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    floors[i]! += 1;
    left -= 1;
  }
  channels.forEach((c, i) => (out[c] = floors[i]!));
  return out;
}

/**
 * The data-driven share of each of a conversion's time-ordered touchpoints, from the channel of each and the
 * fit's integer weights: the distinct channels share the conversion by weight (normalised within the path;
 * equally when all are 0 or unknown to the fit), then each channel's share is split equally between its
 * touchpoints. Exact fractions summing to 1, for `apportion`.
 */
export function dataDrivenFractions(
  touchChannels: readonly string[],
  weights: Readonly<Record<string, number>>,
): Array<{ num: number; den: number }> {
  const touchesOf = new Map<string, number>();
  for (const c of touchChannels) touchesOf.set(c, (touchesOf.get(c) ?? 0) + 1);
  const weightOf = (c: string): number => (Object.prototype.hasOwnProperty.call(weights, c) ? weights[c]! : 0);
  let total = 0;
  for (const c of touchesOf.keys()) total += weightOf(c);
  return touchChannels.map((c) => {
    const n = touchesOf.get(c)!;
    return total > 0 ? { num: weightOf(c), den: total * n } : { num: 1, den: touchesOf.size * n };
  });
}

/**
 * Whether integer weights `next` differ from `stored` by more than `tolerance` (a share of 1) for some channel, or
 * name other channels; a goal fitted or unfitted since (one side null) always differs.
 */
export function weightsMoved(
  stored: Readonly<Record<string, number>> | null,
  next: Readonly<Record<string, number>> | null,
  tolerance: number,
): boolean {
  if (stored === null || next === null) return stored !== next;
  const channels = new Set([...Object.keys(stored), ...Object.keys(next)]);
  if (channels.size !== Object.keys(stored).length || channels.size !== Object.keys(next).length) return true;
  return [...channels].some((c) => Math.abs(stored[c]! - next[c]!) > tolerance * FIT_WEIGHT_SCALE);
}
