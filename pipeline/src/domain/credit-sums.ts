/**
 * The integer sums every attribution rollup keeps per group (credited weight, weight of new customers, value and
 * cost of goods), and the one way they are added: the maintainer's deltas, the reconciliation's expectations
 * and the repair all go through `addSums`.
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
