/**
 * Exact decimal money from the ad platforms: a decimal string ("14.35", "0.290", "1061") becomes integer
 * micro-units (millionths) by string arithmetic, never through a binary float, so sums of many rows stay exact.
 * Digits past the sixth decimal are rounded half up. Null for anything that is not a plain non-negative
 * decimal (the caller names the field in its error).
 */
export function decimalToMicros(text: string | number | null | undefined): number | null {
  if (text === null || text === undefined) return null;
  const s = typeof text === 'number' ? numberText(text) : text.trim();
  if (s === null) return null;
  const m = /^(\d+)(?:\.(\d*))?$/.exec(s);
  if (!m) return null;
  const whole = m[1] ?? '0';
  const frac = (m[2] ?? '').padEnd(7, '0');
  let micros = BigInt(whole) * 1_000_000n + BigInt(frac.slice(0, 6));
  if (frac.charCodeAt(6) - 48 >= 5) micros += 1n;
  return micros > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(micros);
}

/** A JSON number's own shortest decimal text (TikTok sends some metrics as numbers); null if negative or not finite. */
function numberText(n: number): string | null {
  if (!Number.isFinite(n) || n < 0) return null;
  const s = String(n);
  if (!s.includes('e')) return s;
  return n.toFixed(7);
}

/** Integer micros of an int64 string such as Google's `cost_micros`; null when not a non-negative integer. */
export function int64Micros(text: string | number | null | undefined): number | null {
  if (typeof text === 'number') return Number.isSafeInteger(text) && text >= 0 ? text : null;
  if (typeof text !== 'string' || !/^\d+$/.test(text.trim())) return null;
  const v = BigInt(text.trim());
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(v);
}

/** Micros as a decimal string with six places trimmed of trailing zeros ("14.35"), exact. */
export function microsToDecimal(micros: number): string {
  const whole = Math.trunc(micros / 1_000_000);
  const frac = String(micros % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}

/** A non-negative integer count sent as a string or a number ("185", 185); null otherwise. */
export function countOf(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : null;
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) {
    const n = Number(v.trim());
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}
