/** Which touchpoints a conversion is credited to (docs/product.md, Attribution). */

export const DAY_MS = 86_400_000;

/** The fields touchpoint selection needs; callers pass their own richer touchpoint type. */
export interface LookbackTouch {
  /** Session start, epoch milliseconds. */
  start: number;
  /** Whether the touchpoint is `(direct)`/`(none)`. */
  direct: boolean;
  /** Stable identifier that breaks ties between equal starts (e.g. the session id). */
  key: string;
}

export interface TouchSelection<T> {
  /** The credited touchpoints in time order (start, then key). */
  touches: T[];
  /** True when nothing is in the window: the caller stands in one direct touchpoint (docs/product.md, Attribution). */
  syntheticDirect: boolean;
}

function compareTouches(a: LookbackTouch, b: LookbackTouch): number {
  if (a.start !== b.start) return a.start - b.start;
  // Code-unit order, not localeCompare: the result must not depend on the runtime's locale.
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * Selects the touchpoints of a conversion at `conversionAt`: session start in
 * [conversionAt - lookbackDays days, conversionAt], both ends inclusive, sorted by (start, key). When at least
 * one selected touchpoint is not direct, the direct ones are dropped. When none is selected, `touches` is
 * empty and `syntheticDirect` is true. The input is not modified.
 *
 * @throws RangeError when `conversionAt` is not finite or `lookbackDays` is not a finite non-negative number
 */
export function selectTouches<T extends LookbackTouch>(
  touches: readonly T[],
  conversionAt: number,
  lookbackDays: number,
): TouchSelection<T> {
  if (!Number.isFinite(conversionAt)) {
    throw new RangeError(`selectTouches: conversionAt must be finite, got ${conversionAt}`);
  }
  if (!Number.isFinite(lookbackDays) || lookbackDays < 0) {
    throw new RangeError(`selectTouches: lookbackDays must be a non-negative number, got ${lookbackDays}`);
  }
  const from = conversionAt - lookbackDays * DAY_MS;
  const inWindow = touches.filter((t) => t.start >= from && t.start <= conversionAt);
  if (inWindow.length === 0) {
    return { touches: [], syntheticDirect: true };
  }
  const hasNonDirect = inWindow.some((t) => !t.direct);
  const selected = hasNonDirect ? inWindow.filter((t) => !t.direct) : inWindow;
  return { touches: selected.sort(compareTouches), syntheticDirect: false };
}
