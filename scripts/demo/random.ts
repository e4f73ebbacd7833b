/**
 * The demo's only source of randomness: a seeded PRNG (sfc32), fixed distributions sampled with it, and ids
 * drawn from it. Every stream of draws is keyed by the seed and a `SALT` naming its purpose, so that adding draws
 * to one purpose does not shift the others.
 */
import { flat } from './format';

/** Keys that separate the PRNG streams of the planner (one per purpose). */
export const SALT = {
  person: 0x5e0a1,
  session: 0x5e55,
  spend: 0x5bed,
  mask: 0x3a5c,
  order: 0x0d3e,
} as const;

/** Seeds the catalogue's draws: one catalogue for every seed. */
export const CATALOGUE_SEED = 0x0ca7a106;

export const HEX = '0123456789abcdef';
export const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';

/** Final mix of MurmurHash3: a well-spread 32-bit hash of a 32-bit number. */
export function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Splits any integer (or float) seed into two 32-bit keys. */
export function seedKeys(seed: number): [number, number] {
  const n = Number.isFinite(seed) ? Math.trunc(seed) : 0;
  const lo = n >>> 0;
  const hi = Math.floor(n / 4294967296) >>> 0;
  return [lo, hi];
}

/** Small fast PRNG (sfc32) with the helpers the generator needs. State is 128 bits, seeded by hashing keys. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(...keys: number[]) {
    let h1 = 0x243f6a88;
    let h2 = 0x85a308d3;
    for (const k of keys) {
      h1 = fmix32(h1 ^ (k >>> 0));
      h2 = fmix32((h2 + Math.imul(k >>> 0, 0x9e3779b1) + h1) >>> 0);
    }
    this.a = fmix32(h1 ^ 0x13198a2e);
    this.b = fmix32(h2 ^ 0x03707344);
    this.c = fmix32((h1 + h2) ^ 0xa4093822);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** Uniform float in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list');
    return items[this.int(items.length)]!;
  }

  /** Picks by weight; `weights[i]` is the weight of `items[i]`. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i]!;
      if (r < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  }

  /** Exponential with the given mean. */
  exp(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** `len` characters of `alphabet`. */
  chars(len: number, alphabet: string): string {
    const codes = new Array<number>(len);
    for (let i = 0; i < len; i++) codes[i] = alphabet.charCodeAt(this.int(alphabet.length));
    return String.fromCharCode(...codes);
  }

  hex(len: number): string {
    return this.chars(len, HEX);
  }
}

/** A fixed distribution, sampled by binary search over the cumulative weights. */
export class Distribution<T> {
  private readonly cumulative: number[] = [];
  private readonly total: number;

  constructor(
    readonly items: readonly T[],
    weights: readonly number[],
  ) {
    let sum = 0;
    for (const w of weights) this.cumulative.push((sum += w));
    this.total = sum;
  }

  sample(rng: Rng): T {
    const r = rng.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > r) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo]!;
  }
}

const HEX_CODES = Array.from(HEX, (c) => c.charCodeAt(0));

/** Eight lower-case hex digits of a 32-bit number. */
export function hex8(n: number): string {
  const h = HEX_CODES;
  return String.fromCharCode(
    h[(n >>> 28) & 15]!,
    h[(n >>> 24) & 15]!,
    h[(n >>> 20) & 15]!,
    h[(n >>> 16) & 15]!,
    h[(n >>> 12) & 15]!,
    h[(n >>> 8) & 15]!,
    h[(n >>> 4) & 15]!,
    h[n & 15]!,
  );
}

/**
 * A UUID-shaped id that is unique for `counter` (< 2^40) within a seed: the last 48 bits are `counter` XOR a
 * per-seed mask, the rest comes from `rng`.
 */
export function uniqueUuid(rng: Rng, mask: readonly [number, number], counter: number): string {
  const a = rng.u32();
  const b = rng.u32();
  const lo = ((counter % 4294967296) ^ mask[0]) >>> 0;
  const hi = (Math.floor(counter / 4294967296) ^ mask[1]) & 0xffff;
  const bh = hex8(b);
  return flat(
    hex8(a),
    '-',
    bh.slice(0, 4),
    '-4',
    bh.slice(5, 8),
    '-',
    HEX[8 + (b & 3)]!,
    hi.toString(16).padStart(3, '0').slice(-3),
    '-',
    hex8(lo),
    ((a ^ b) & 0xffff).toString(16).padStart(4, '0'),
  );
}
