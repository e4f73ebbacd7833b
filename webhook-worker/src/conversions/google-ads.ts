/**
 * The Google Ads API request of purchases (`POST {base}/{version}/customers/{id}:uploadClickConversions`): one
 * click conversion per purchase under the destination's conversion action, with the click id of the journey
 * (`gclid`, else `gbraid` or `wbraid`) or, without one, as an enhanced conversion identified by the hashed email
 * and phone alone; the order id, so that Google counts a purchase once; `partialFailure`, so that one bad
 * conversion does not fail the others. Pure, with the reading of Google's per-conversion failures.
 */
import type { QueuedPurchase } from '../../../contracts/src/ad-conversions';
import { hashed, normaliseEmail, normalisePhone } from './user-data';

/** Conversions per request: Google takes up to 2,000. */
export const GOOGLE_MAX_CONVERSIONS = 2000;

export interface GoogleClickConversion {
  gclid?: string;
  gbraid?: string;
  wbraid?: string;
  conversionAction: string;
  conversionDateTime: string;
  conversionValue: number;
  currencyCode: string;
  orderId: string;
  userIdentifiers?: Array<{ hashedEmail: string } | { hashedPhoneNumber: string }>;
}

/** `yyyy-mm-dd hh:mm:ss+00:00`, the time format the API takes. */
export function googleDateTime(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')}+00:00`;
}

/** One purchase as a click conversion of `conversionAction` (`customers/<id>/conversionActions/<id>`). */
export function googleClickConversion(p: QueuedPurchase, conversionAction: string): GoogleClickConversion {
  const email = hashed(normaliseEmail('google', p.email));
  const phone = hashed(normalisePhone('google', p.phone));
  const identifiers = [...(email ? [{ hashedEmail: email }] : []), ...(phone ? [{ hashedPhoneNumber: phone }] : [])];
  const click = p.clickIds.google;
  return {
    ...(click ? { [click.kind]: click.value } : {}),
    conversionAction,
    conversionDateTime: googleDateTime(p.occurredAt),
    conversionValue: Number(p.value),
    currencyCode: p.currency,
    orderId: p.orderId,
    ...(identifiers.length ? { userIdentifiers: identifiers } : {}),
  };
}

/** Whether Google can take the purchase at all: it needs a click id or something to identify the buyer by. */
export const googleCanTake = (c: GoogleClickConversion): boolean =>
  Boolean(c.gclid || c.gbraid || c.wbraid || c.userIdentifiers?.length);

export function googleUploadBody(conversions: readonly GoogleClickConversion[]): string {
  if (conversions.length === 0 || conversions.length > GOOGLE_MAX_CONVERSIONS) {
    throw new RangeError(
      `a Google request carries 1 to ${GOOGLE_MAX_CONVERSIONS} conversions, not ${conversions.length}`,
    );
  }
  return JSON.stringify({ conversions, partialFailure: true });
}

interface FieldPathElement {
  fieldName?: string;
  index?: number;
}
interface GoogleAdsError {
  message?: string;
  errorCode?: Record<string, string>;
  location?: { fieldPathElements?: FieldPathElement[] };
}

/**
 * The conversions of a 200 answer that Google refused, by their index in the request, with its message: the
 * errors of `partialFailureError.details[].errors[]` located at `conversions[i]`. An answer without
 * `partialFailureError` refused none.
 */
export function googleRefusedConversions(answer: unknown): Map<number, string> {
  const refused = new Map<number, string>();
  const details = (answer as { partialFailureError?: { details?: unknown } } | null)?.partialFailureError?.details;
  if (!Array.isArray(details)) return refused;
  for (const detail of details) {
    const errors = (detail as { errors?: unknown }).errors;
    if (!Array.isArray(errors)) continue;
    for (const e of errors as GoogleAdsError[]) {
      const at = e.location?.fieldPathElements?.find((f) => f.fieldName === 'conversions');
      if (typeof at?.index !== 'number') continue;
      const code = e.errorCode ? Object.values(e.errorCode)[0] : undefined;
      const message = [code, e.message].filter(Boolean).join(': ') || 'refused';
      refused.set(at.index, refused.has(at.index) ? `${refused.get(at.index)}; ${message}` : message);
    }
  }
  return refused;
}
