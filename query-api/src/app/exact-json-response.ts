/**
 * JSON numbers that keep every digit. The spec types the Shopify-style customer ids as numbers, and Shopify ids
 * exceed 2^53, which a JavaScript number cannot hold. An id above 2^53 is carried as a lossless-json
 * `LosslessNumber` (typed as `number` for the response types) and written out as its exact digits by the
 * routes that use `sendExactJson`; a client that parses big integers exactly gets the id exactly. See
 * docs/decisions.md (API conventions, exact ids).
 */
import type { RequestHandler } from 'express';
import { LosslessNumber, stringify } from 'lossless-json';

/** The JSON number of these digits: a plain number when it is a safe integer, else its exact digits. */
export function exactJsonInteger(digits: string): number {
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : (new LosslessNumber(digits) as unknown as number);
}

/** Middleware: `res.json` of the routes behind it writes `exactJsonInteger` values with all their digits. */
export const sendExactJson: RequestHandler = (_req, res, next) => {
  res.json = (body: unknown) => {
    if (!res.get('Content-Type')) res.type('application/json');
    return res.send(stringify(body) ?? 'null');
  };
  next();
};
