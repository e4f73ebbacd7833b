/**
 * The body of a Tracking API request: JSON, gzip-compressed or not whatever the headers say (RudderStack's node
 * SDK sends gzip with a form content type; body-parser has already inflated what a `Content-Encoding` named).
 * Every failure is a 400 or 413 naming the body, never a throw that would become a 500.
 */
import { gunzipSync } from 'node:zlib';
import { ApiError, badRequest } from '../app/errors';

const isGzip = (b: Buffer): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

/** The decoded text of `raw` (at most `limit` bytes once inflated) parsed as JSON. */
export function readTrackingBody(raw: unknown, limit: number): { value: unknown; bytes: number } {
  let bytes = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
  if (bytes.length === 0) throw badRequest('body', 'is empty; send a JSON object');
  if (isGzip(bytes)) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: limit });
    } catch (err) {
      if (err instanceof RangeError || (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        throw new ApiError(413, `body: larger than the limit of ${limit} bytes once decompressed`);
      throw badRequest('body', 'starts as gzip but does not decompress');
    }
  }
  try {
    return { value: JSON.parse(bytes.toString('utf8')) as unknown, bytes: bytes.length };
  } catch (err) {
    throw badRequest('body', `malformed JSON (${err instanceof Error ? err.message : 'parse error'})`);
  }
}
