/**
 * Report metrics (docs/product.md, Views and metrics), shared by the pipeline and the query API so both derive them identically.
 * Pure functions, no imports.
 *
 * Inputs are display units: money in store currency (not micro-units) and conversions as (possibly
 * fractional) counts; callers divide the stored fixed-point sums by MONEY_SCALE / WEIGHT_SCALE first.
 *
 * Rounding: docs/product.md, Views and metrics says "money to 2 decimals" and is silent on ratios. Money results (cpa, cpm, cpc,
 * net_profit) are rounded to 2 decimals; ratios (roas, ad_roas, net_margin, a fraction, not a percentage)
 * to 4 decimals, so that a small ratio such as a 0.37 % margin is not flattened to 0. Both round half away
 * from zero. Metrics are computed from the unrounded inputs.
 */

/** Summed view columns of one report row (display units). */
export interface MetricInputs {
  conversions: number;
  conversion_value: number;
  spend: number;
  impressions: number;
  clicks: number;
  ad_conversion_value: number;
  cost_of_goods: number;
}

/** Derived metrics of one report row. */
export interface Metrics {
  roas: number;
  ad_roas: number;
  cpa: number;
  cpm: number;
  cpc: number;
  net_profit: number;
  net_margin: number;
}

/** Decimals kept for money results. */
const MONEY_DECIMALS = 2;
/** Decimals kept for ratio results (docs/product.md, Views and metrics is silent; see the module comment). */
export const RATIO_DECIMALS = 4;

/** Significant digits kept before decimal rounding, to absorb binary floating-point artifacts. */
const SIGNIFICANT_DIGITS = 15;

/**
 * Rounds `x` to `digits` decimals, half away from zero, as if `x` were the decimal it is meant to be:
 * `roundTo(1.005, 2) === 1.01` and `roundTo(0.05 * 0.7, 2) === 0.04` (the product is 0.034999999999999996).
 * The value is first read as its 15-significant-digit decimal (below a double's precision, so `1.005`,
 * stored as 1.00499999999999989..., reads as 1.005), then rounded in decimal.
 * Non-finite values are returned unchanged; -0 becomes 0.
 *
 * @throws RangeError when `digits` is not an integer in [0, 15]
 */
export function roundTo(x: number, digits: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15) {
    throw new RangeError(`roundTo: digits must be an integer in [0, 15], got ${digits}`);
  }
  if (!Number.isFinite(x)) return x;
  if (x === 0) return 0;

  const sign = x < 0 ? -1 : 1;
  // Fast path (reports format thousands of numbers per request): when the rounding position lies well
  // inside the 15 significant digits the exact path reads, and the scaled value is not within the
  // representation error of a half, Math.round gives the same answer; an integer divided by a power of
  // ten is the double nearest to the decimal, as the exact path returns.
  const factor = 10 ** digits;
  const scaledAbs = Math.abs(x) * factor;
  if (scaledAbs < 1e12) {
    const frac = scaledAbs - Math.floor(scaledAbs);
    if (Math.abs(frac - 0.5) > scaledAbs * 1e-14 + 1e-9) {
      const rounded = Math.round(scaledAbs);
      return rounded === 0 ? 0 : (sign * rounded) / factor;
    }
  }
  // Shortest round-trip exponential form of the 15-significant-digit value, e.g. "1.005e+0", "2e-7".
  const exp = Number(Math.abs(x).toPrecision(SIGNIFICANT_DIGITS)).toExponential();
  const match = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(exp);
  if (match === null) return x; // unreachable for finite non-zero numbers
  const mantissa = (match[1] ?? '') + (match[2] ?? '');
  const exponent = Number(match[3]);

  // The value is 0.<mantissa> * 10^(exponent + 1); keep `kept` leading mantissa digits.
  const kept = exponent + 1 + digits;
  if (kept < 0) return 0;
  const head = kept === 0 ? '0' : mantissa.slice(0, kept).padEnd(kept, '0');
  const next = mantissa.charAt(kept);
  let scaled = BigInt(head);
  if (next !== '' && next >= '5') scaled += 1n;
  if (scaled === 0n) return 0;
  return sign * Number(`${scaled}e-${digits}`);
}

/** Rounds a money amount to 2 decimals, half away from zero (see {@link roundTo}). */
export function roundMoney(x: number): number {
  return roundTo(x, MONEY_DECIMALS);
}

function ratio(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : numerator / denominator;
}

/**
 * docs/product.md, Views and metrics metrics; any division by zero gives 0. For inputs from the views (multiples of 1e-6, integer
 * counts) every result is finite; a result can only overflow for denominators far below one micro-unit.
 */
export function computeMetrics(t: MetricInputs): Metrics {
  const netProfit = t.conversion_value - t.cost_of_goods - t.spend;
  return {
    roas: roundTo(ratio(t.conversion_value, t.spend), RATIO_DECIMALS),
    ad_roas: roundTo(ratio(t.ad_conversion_value, t.spend), RATIO_DECIMALS),
    cpa: roundMoney(ratio(t.spend, t.conversions)),
    cpm: roundMoney(ratio(1000 * t.spend, t.impressions)),
    cpc: roundMoney(ratio(t.spend, t.clicks)),
    net_profit: roundMoney(netProfit),
    net_margin: roundTo(ratio(netProfit, t.conversion_value), RATIO_DECIMALS),
  };
}
