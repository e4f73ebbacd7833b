/**
 * JSON of the store platforms parsed without losing an id: Shopify ids exceed 2^53, which a JavaScript number
 * cannot hold, so an integer outside the safe range comes out as its digits (a string), never as a number.
 * Other numbers parse as usual. See docs/decisions.md, Store connections.
 */
import { parse } from 'lossless-json';

const INTEGER = /^-?\d+$/;

function parseNumber(text: string): number | string {
  const value = Number(text);
  if (INTEGER.test(text) && !Number.isSafeInteger(value)) return text;
  return value;
}

/** The value of `text`, or an Error naming what is wrong (never throws). */
export function parseExactJson(text: string): unknown {
  try {
    return parse(text, null, parseNumber);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}
