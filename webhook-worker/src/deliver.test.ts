import { classifyResponse, describeNetworkError, postWebhook, statusClass, type AttemptResult } from './deliver';

const NOW = Date.parse('2025-03-01T12:00:00Z');
const headers = (h: Record<string, string> = {}) => new Headers(h);

describe('classifyResponse', () => {
  it.each([200, 201, 204, 299])('%d is delivered', (status) => {
    expect(classifyResponse(status, headers(), NOW)).toEqual({ kind: 'delivered', status });
  });

  it('410 is gone', () => {
    expect(classifyResponse(410, headers(), NOW, 'bye')).toEqual({ kind: 'gone', status: 410, error: 'HTTP 410: bye' });
  });

  it.each([500, 502, 503, 504, 400, 401, 404, 409, 418, 429])('%d is a failure to retry', (status) => {
    const r = classifyResponse(status, headers(), NOW);
    expect(r).toMatchObject({ kind: 'failed', status, reason: 'status', retryAfterMs: null });
  });

  it('reads Retry-After in seconds or as a date', () => {
    expect(classifyResponse(429, headers({ 'retry-after': '7' }), NOW)).toMatchObject({ retryAfterMs: 7000 });
    expect(classifyResponse(503, headers({ 'retry-after': 'Sat, 01 Mar 2025 12:01:00 GMT' }), NOW)).toMatchObject({
      retryAfterMs: 60_000,
    });
  });

  it('treats a redirect as a failure and says it was not followed', () => {
    const r = classifyResponse(302, headers({ location: 'https://elsewhere.example/x' }), NOW);
    expect(r).toMatchObject({ kind: 'failed', status: 302 });
    expect(r.kind === 'failed' && r.error).toBe('HTTP 302 (redirect to https://elsewhere.example/x not followed)');
  });
});

describe('statusClass', () => {
  const failed = (status: number | null, reason: 'status' | 'timeout' | 'network' | 'aborted'): AttemptResult => ({
    kind: 'failed',
    status,
    reason,
    error: '',
    retryAfterMs: null,
  });
  const cases: Array<[AttemptResult, string]> = [
    [{ kind: 'delivered', status: 204 }, '2xx'],
    [failed(301, 'status'), '3xx'],
    [{ kind: 'gone', status: 410, error: '' }, '4xx'],
    [failed(503, 'status'), '5xx'],
    [failed(100, 'status'), 'other'],
    [failed(null, 'timeout'), 'timeout'],
    [failed(null, 'network'), 'network_error'],
    [failed(null, 'aborted'), 'aborted'],
  ];
  it.each(cases)('%j -> %s', (result, cls) => {
    expect(statusClass(result)).toBe(cls);
  });
});

describe('postWebhook (fake fetch)', () => {
  const base = { url: 'https://hooks.example/in', body: '{"a":1}', headers: { 'webhook-id': 'msg_1' }, timeoutMs: 50 };

  it('POSTs the body and headers without following redirects', async () => {
    const fetchImpl = jest.fn((_url: string | URL | Request, _init?: RequestInit) =>
      Promise.resolve(new Response(null, { status: 204 })),
    );
    await expect(postWebhook({ ...base, fetchImpl: fetchImpl as typeof fetch })).resolves.toEqual({
      kind: 'delivered',
      status: 204,
    });
    const [url, init] = fetchImpl.mock.calls[0]!;
    expect(url).toBe(base.url);
    expect(init).toMatchObject({ method: 'POST', body: base.body, headers: base.headers, redirect: 'manual' });
    expect(init?.signal).toBeInstanceOf(AbortSignal);
  });

  it('keeps the first bytes of a failure body, on one line', async () => {
    const fetchImpl = () => Promise.resolve(new Response(`oops\n${'x'.repeat(5000)}`, { status: 500 }));
    const r = await postWebhook({ ...base, fetchImpl: fetchImpl });
    expect(r).toMatchObject({ kind: 'failed', status: 500, reason: 'status' });
    expect(r.kind === 'failed' && r.error.startsWith('HTTP 500: oops xxx')).toBe(true);
    expect(r.kind === 'failed' && r.error.length).toBeLessThan(320);
  });

  const hanging = (_url: string | URL | Request, init?: RequestInit): Promise<Response> =>
    new Promise((_resolve, reject) =>
      init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
    );

  it('times out', async () => {
    const r = await postWebhook({ ...base, fetchImpl: hanging });
    expect(r).toEqual({
      kind: 'failed',
      status: null,
      reason: 'timeout',
      error: 'timed out after 50 ms',
      retryAfterMs: null,
    });
  });

  it('is aborted from outside (shutdown)', async () => {
    const outer = new AbortController();
    const p = postWebhook({ ...base, timeoutMs: 10_000, signal: outer.signal, fetchImpl: hanging });
    outer.abort();
    await expect(p).resolves.toMatchObject({ kind: 'failed', reason: 'aborted', status: null });
  });

  it('reports connection errors with their cause', async () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const fetchImpl = () => Promise.reject(new TypeError('fetch failed', { cause }));
    await expect(postWebhook({ ...base, fetchImpl: fetchImpl })).resolves.toEqual({
      kind: 'failed',
      status: null,
      reason: 'network',
      error: 'fetch failed: ECONNREFUSED connect ECONNREFUSED 127.0.0.1:9',
      retryAfterMs: null,
    });
  });

  it('describes odd errors', () => {
    expect(describeNetworkError('boom')).toBe('boom');
    expect(describeNetworkError(new Error('plain'))).toBe('plain');
  });
});
