/** Money in integer micro-units of the store currency (contracts MONEY_SCALE), converted at a given rate. */
import { MONEY_SCALE } from '../../../contracts/src/attribution';

/** Rate of one unit of `currency` in store-currency units; undefined when the store has none. */
export type RateOf = (currency: string) => number | undefined;

export interface Converted {
  micros: number;
  /** True when no rate was known and 1:1 was assumed (a data-quality warning). */
  rateMissing: boolean;
}

/** Micro-units per cent. */
export const MICROS_PER_CENT = MONEY_SCALE / 100;

/**
 * The largest amount a fact or a conversion carries, in micro-units: a billion store-currency units (the
 * API's bound on any one amount). A product of bounded inputs (a converted amount, unit cost times
 * quantity) is capped here, so that every sum stays exact in a JavaScript number and fits a bigint.
 */
export const MAX_MICROS = 1_000_000_000 * MONEY_SCALE;

/** Caps micro-units to [-MAX_MICROS, MAX_MICROS]. */
export function capMicros(micros: number): number {
  return Math.max(-MAX_MICROS, Math.min(MAX_MICROS, micros));
}

/**
 * Micro-units of an amount, rounded to whole cents: every stored amount and every credit is a whole number
 * of cents, so report rows rounded to 2 decimals add up exactly to their total.
 */
export function toMicros(amount: number): number {
  return capMicros(Math.round(amount * 100) * MICROS_PER_CENT);
}

export function convertToStore(amount: number, currency: string, storeCurrency: string, rateOf: RateOf): Converted {
  if (currency.toUpperCase() === storeCurrency.toUpperCase()) return { micros: toMicros(amount), rateMissing: false };
  const rate = rateOf(currency.toUpperCase());
  return rate === undefined
    ? { micros: toMicros(amount), rateMissing: true }
    : { micros: toMicros(amount * rate), rateMissing: false };
}

/** Parses a decimal string such as "19.99"; NaN-safe (0 for anything unparsable). */
export function decimal(text: string | null | undefined): number {
  const n = Number(text);
  return Number.isFinite(n) ? n : 0;
}
