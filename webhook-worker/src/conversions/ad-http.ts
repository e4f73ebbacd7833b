/**
 * One POST to an ad platform, its answer read (the platforms put per-event verdicts in a 200's body),
 * with a timeout and the worker's shutdown signal. Network trouble and timeouts come back as values.
 */
import { parseRetryAfter } from '../backoff';
import { postWithDeadline, readBodyText } from '../deliver';
import type { AdAnswer, AdRequest } from './ad-requests';

export type AdPostResult =
  { kind: 'answer'; answer: AdAnswer } | { kind: 'failed'; reason: 'timeout' | 'network' | 'aborted'; error: string };

/** Answers are read up to this size: the platforms' are small, a proxy's error page need not be read whole. */
const MAX_ANSWER_BYTES = 1 << 20;

export async function postAdRequest(
  request: AdRequest,
  opts: { timeoutMs: number; signal?: AbortSignal; fetchImpl?: typeof fetch; now?: () => number },
): Promise<AdPostResult> {
  const result = await postWithDeadline({ ...request, ...opts }, async (res): Promise<AdAnswer> => {
    const text = await readBodyText(res, MAX_ANSWER_BYTES);
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), (opts.now ?? Date.now)());
    return { status: res.status, body, text, retryAfterMs };
  });
  return result.kind === 'answer' ? { kind: 'answer', answer: result.value } : result;
}
