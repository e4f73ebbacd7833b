/**
 * One POST to an ad platform, its answer read whole (the platforms put per-event verdicts in a 200's body),
 * with a timeout and the worker's shutdown signal. Network trouble and timeouts come back as values.
 */
import { parseRetryAfter } from '../backoff';
import { describeNetworkError } from '../deliver';
import type { AdAnswer, AdRequest } from './ad-requests';

export type AdPostResult =
  { kind: 'answer'; answer: AdAnswer } | { kind: 'failed'; reason: 'timeout' | 'network' | 'aborted'; error: string };

/** Answers larger than this are cut: the platforms' answers are small, a proxy's error page need not be read whole. */
const MAX_ANSWER_BYTES = 1 << 20;

export async function postAdRequest(
  request: AdRequest,
  opts: { timeoutMs: number; signal?: AbortSignal; fetchImpl?: typeof fetch; now?: () => number },
): Promise<AdPostResult> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, opts.timeoutMs);
  const onOuterAbort = (): void => controller.abort();
  if (opts.signal?.aborted) controller.abort();
  opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
  try {
    const res = await (opts.fetchImpl ?? fetch)(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: controller.signal,
    });
    const text = (await res.text()).slice(0, MAX_ANSWER_BYTES);
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), (opts.now ?? Date.now)());
    return { kind: 'answer', answer: { status: res.status, body, text, retryAfterMs } };
  } catch (err) {
    if (timedOut) return { kind: 'failed', reason: 'timeout', error: `timed out after ${opts.timeoutMs} ms` };
    if (controller.signal.aborted) return { kind: 'failed', reason: 'aborted', error: 'aborted (shutdown)' };
    return { kind: 'failed', reason: 'network', error: describeNetworkError(err) };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
}
