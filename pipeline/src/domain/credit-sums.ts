/**
 * How a rollup's per-group sums are added, the same way for the maintainer's deltas, the reconciliation's
 * expectations and the repair: `addSums` for the attribution and ad rollups (credited weight, weight of new
 * customers, value and cost of goods, by name, which drift reports show), `addValues` for the rollups whose sums
 * are a row of values in column order (analytics, ad spend).
 */
export interface CreditSums {
  weight: number;
  newWeight: number;
  valueMicros: number;
  cogsMicros: number;
}

/** Adds `sign` times `s` to the group `key` of `into` (exact integer arithmetic). */
export function addSums(into: Map<string, CreditSums>, key: string, s: CreditSums, sign: 1 | -1 = 1): void {
  let cur = into.get(key);
  if (!cur) {
    // Starting from zeros keeps a retracted zero a plain 0, not -0.
    cur = { weight: 0, newWeight: 0, valueMicros: 0, cogsMicros: 0 };
    into.set(key, cur);
  }
  cur.weight += sign * s.weight;
  cur.newWeight += sign * s.newWeight;
  cur.valueMicros += sign * s.valueMicros;
  cur.cogsMicros += sign * s.cogsMicros;
}

/** Whether every sum of a group is zero (such a group is not stored). */
export const isZeroSums = (d: CreditSums): boolean =>
  d.weight === 0 && d.newWeight === 0 && d.valueMicros === 0 && d.cogsMicros === 0;

/** Adds `sign` times `values` to the group `key` of `into`, position by position (exact integer arithmetic). */
export function addValues(into: Map<string, number[]>, key: string, values: readonly number[], sign: 1 | -1 = 1): void {
  let cur = into.get(key);
  if (!cur) {
    cur = new Array<number>(values.length).fill(0);
    into.set(key, cur);
  }
  for (let i = 0; i < values.length; i++) cur[i]! += sign * values[i]!;
}
