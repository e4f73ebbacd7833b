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
  return result.kind === 'failed' && result.status === null
    ? statusClassOf(null, result.reason === 'status' ? 'network' : result.reason)
    : statusClassOf(result.status);
}

/** The class of an HTTP status, or of the reason no answer came. */
export function statusClassOf(status: number | null, noAnswer?: 'timeout' | 'network' | 'aborted'): StatusClass {
  if (status === null) return noAnswer === 'timeout' ? 'timeout' : noAnswer === 'aborted' ? 'aborted' : 'network_error';
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 300 && status < 400) return '3xx';
  if (status >= 400 && status < 500) return '4xx';
  if (status >= 500 && status < 600) return '5xx';
  return 'other';
}

/** The host of a destination's URL, for the log and the metrics (`""` when it does not parse). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
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
  const now = opts.now ?? Date.now;
  const result = await postWithDeadline(opts, async (res) => {
    const ok = res.status >= 200 && res.status < 300;
    // Read (a little of) the answer so the connection can be reused; the body of a failure helps operators.
    const snippet = ok ? (await res.body?.cancel(), '') : await readSnippet(res);
    return classifyResponse(res.status, res.headers, now(), snippet);
  });
  return result.kind === 'answer'
    ? result.value
    : { kind: 'failed', status: null, reason: result.reason, error: result.error, retryAfterMs: null };
}

/** An answer read by the caller, or why none came. */
export type DeadlineResult<T> =
  { kind: 'answer'; value: T } | { kind: 'failed'; reason: 'timeout' | 'network' | 'aborted'; error: string };

/**
 * One POST with a timeout and the worker's shutdown signal, never following redirects; `read` takes the answer
 * within the same deadline. Network trouble, timeouts and aborts come back as values (webhooks and the ad platforms).
 */
export async function postWithDeadline<T>(
  opts: Omit<PostWebhookOptions, 'now'>,
  read: (res: Response) => Promise<T>,
): Promise<DeadlineResult<T>> {
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
    const res = await (opts.fetchImpl ?? fetch)(opts.url, {
      method: 'POST',
      headers: opts.headers,
      body: opts.body,
      redirect: 'manual',
      signal: controller.signal,
    });
    return { kind: 'answer', value: await read(res) };
  } catch (err) {
    if (timedOut) return { kind: 'failed', reason: 'timeout', error: `timed out after ${opts.timeoutMs} ms` };
    if (controller.signal.aborted) return { kind: 'failed', reason: 'aborted', error: 'aborted (shutdown)' };
    return { kind: 'failed', reason: 'network', error: describeNetworkError(err) };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
}

/** At most `maxBytes` of an answer's body as text, the rest left unread. */
export async function readBodyText(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

async function readSnippet(res: Response): Promise<string> {
  // A body cut short is not the failure being reported.
  const text = await readBodyText(res, SNIPPET_BYTES).catch(() => '');
  return oneLine(text, 300);
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
