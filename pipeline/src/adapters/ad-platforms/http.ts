/**
 * The HTTP loop the three clients share: a timeout per request, retries with the delay the platform asks for
 * (or exponential back-off), and the platform's own message in the error. Each client says what a response
 * means (`judge`), since each signals rate limits and expired tokens its own way.
 */
import { setTimeout as wait } from 'node:timers/promises';
import { AdPlatformError, type AdPlatformConfig, type AdPlatformKind } from './types';

export type Verdict =
  | { kind: 'ok'; body: unknown }
  | { kind: 'retry'; message: string; delayMs?: number }
  | { kind: 'auth'; message: string }
  | { kind: 'fail'; message: string };

export interface RawResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export type Judge = (r: RawResponse) => Verdict;

export interface HttpOptions {
  sleep?: (ms: number) => Promise<void>;
}

export async function requestJson(
  platform: AdPlatformKind,
  config: AdPlatformConfig,
  url: string,
  init: RequestInit,
  judge: Judge,
  options: HttpOptions = {},
): Promise<unknown> {
  const sleep = options.sleep ?? wait;
  let last = '';
  for (let attempt = 0; attempt <= config.maxRetries; attempt++) {
    let verdict: Verdict;
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(config.timeoutMs) });
      const text = await res.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = null;
      }
      verdict = judge({ status: res.status, headers: res.headers, body, text });
    } catch (err) {
      verdict = { kind: 'retry', message: `request failed: ${(err as Error).message}` };
    }
    if (verdict.kind === 'ok') return verdict.body;
    if (verdict.kind === 'auth') throw new AdPlatformError(platform, verdict.message, true);
    if (verdict.kind === 'fail') throw new AdPlatformError(platform, verdict.message);
    last = verdict.message;
    if (attempt === config.maxRetries) break;
    const delay = verdict.delayMs ?? Math.min(config.maxRetryDelayMs, 500 * 2 ** attempt);
    if (delay > config.maxRetryDelayMs) {
      throw new AdPlatformError(platform, `${last} (asked to wait ${Math.ceil(delay / 1000)} s)`);
    }
    await sleep(delay);
  }
  throw new AdPlatformError(platform, `${last} (after ${config.maxRetries + 1} attempts)`);
}

/** `Retry-After` in seconds, as milliseconds; undefined when absent or not a number. */
export function retryAfterMs(headers: Headers): number | undefined {
  const v = headers.get('retry-after');
  const s = v === null ? NaN : Number(v);
  return Number.isFinite(s) && s >= 0 ? s * 1000 : undefined;
}

/** A short excerpt of a body that is not the platform's JSON (an HTML error page from a proxy, say). */
export function excerpt(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

export const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
