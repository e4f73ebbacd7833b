/**
 * One HTTP attempt of a webhook delivery: POST with a timeout, never following redirects, and the answer
 * classified (docs/product.md, Identity events and destinations, Standard Webhooks): 2xx delivered; 410 gone (disable the destination); anything else,
 * a timeout or a connection error is a failure to retry, with the receiver's `Retry-After` when it sent one.
 */
import { parseRetryAfter } from './backoff';

export type AttemptResult =
  | { kind: 'delivered'; status: number }
  | { kind: 'gone'; status: number; error: string }
  | {
      kind: 'failed';
      /** HTTP status, null when no answer came (timeout, connection error). */
      status: number | null;
      reason: 'status' | 'timeout' | 'network' | 'aborted';
      error: string;
      retryAfterMs: number | null;
    };

/** The `status` label of `webhook_attempts_total`. */
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'other' | 'timeout' | 'network_error' | 'aborted';

export function statusClass(result: AttemptResult): StatusClass {
  if (result.kind === 'failed' && result.status === null) {
    return result.reason === 'timeout' ? 'timeout' : result.reason === 'aborted' ? 'aborted' : 'network_error';
  }
  const s = result.status ?? 0;
  if (s >= 200 && s < 300) return '2xx';
  if (s >= 300 && s < 400) return '3xx';
  if (s >= 400 && s < 500) return '4xx';
  if (s >= 500 && s < 600) return '5xx';
  return 'other';
}

/** Classifies an HTTP answer (pure). */
export function classifyResponse(
  status: number,
  headers: { get(name: string): string | null },
  nowMs: number,
  bodySnippet = '',
): AttemptResult {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  const error = `HTTP ${status}${bodySnippet ? `: ${bodySnippet}` : ''}`;
  if (status === 410) return { kind: 'gone', status, error };
  const location = status >= 300 && status < 400 ? headers.get('location') : null;
  return {
    kind: 'failed',
    status,
    reason: 'status',
    error: location !== null ? `${error} (redirect to ${oneLine(location, 200)} not followed)` : error,
    retryAfterMs: parseRetryAfter(headers.get('retry-after'), nowMs),
  };
}

export interface PostWebhookOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Aborts the attempt from outside (shutdown). */
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
  now?: () => number;
}

const SNIPPET_BYTES = 512;

export async function postWebhook(opts: PostWebhookOptions): Promise<AttemptResult> {
  const fetchImpl = opts.fetchImpl ?? fetch;
  const now = opts.now ?? Date.now;
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
    const res = await fetchImpl(opts.url, {
      method: 'POST',
      headers: opts.headers,
      body: opts.body,
      redirect: 'manual',
      signal: controller.signal,
    });
    const ok = res.status >= 200 && res.status < 300;
    // Read (a little of) the answer so the connection can be reused; the body of a failure helps operators.
    const snippet = ok ? (await res.body?.cancel(), '') : await readSnippet(res);
    return classifyResponse(res.status, res.headers, now(), snippet);
  } catch (err) {
    if (timedOut) {
      return {
        kind: 'failed',
        status: null,
        reason: 'timeout',
        error: `timed out after ${opts.timeoutMs} ms`,
        retryAfterMs: null,
      };
    }
    if (controller.signal.aborted) {
      return { kind: 'failed', status: null, reason: 'aborted', error: 'aborted (shutdown)', retryAfterMs: null };
    }
    return { kind: 'failed', status: null, reason: 'network', error: describeNetworkError(err), retryAfterMs: null };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
}

async function readSnippet(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < SNIPPET_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A body cut short is not the failure being reported.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return oneLine(Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString('utf8'), 300);
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** `fetch failed` is all undici says at the top; the cause names the real trouble (ECONNREFUSED, ...). */
export function describeNetworkError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return `${err.message}: ${typeof code === 'string' ? `${code} ` : ''}${cause.message}`;
  }
  return err.message;
}
