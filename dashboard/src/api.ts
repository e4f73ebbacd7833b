/**
 * The dashboard's only way to the data: the public API operations, with the key the user signed in with in the
 * `ApiKey` header (an API key or the read-only dashboard key). Calls of one operation are paced to stay within
 * its per-key rate limit, and a 429 is retried after the `Retry-After` it names.
 */
export const API_VERSION = 'v2-4-2';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Requests per second per key and operation that the API allows the report and journey classes. */
const PER_SECOND: Record<string, number> = { default: 5, 'order/event': 20, 'order/attribution-touch': 20 };

const lastStarts = new Map<string, number[]>();

/** Waits until one more call of `op` fits in its rate limit (a sliding window of one second). */
async function pace(op: string): Promise<void> {
  const limit = PER_SECOND[op] ?? PER_SECOND.default!;
  for (;;) {
    const now = performance.now();
    const starts = (lastStarts.get(op) ?? []).filter((t) => now - t < 1000);
    if (starts.length < limit) {
      starts.push(now);
      lastStarts.set(op, starts);
      return;
    }
    await new Promise((r) => setTimeout(r, 1000 - (now - starts[0]!) + 5));
  }
}

export interface Client {
  post<T>(op: string, body?: unknown): Promise<T>;
}

export function createClient(key: string, base = ''): Client {
  async function post<T>(op: string, body: unknown = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      await pace(op);
      const res = await fetch(`${base}/${API_VERSION}/api/${op}`, {
        method: 'POST',
        headers: { ApiKey: key, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status === 429 && attempt < 5) {
        const wait = Number(res.headers.get('Retry-After') ?? '1');
        await new Promise((r) => setTimeout(r, Math.max(0.2, wait) * 1000));
        continue;
      }
      const json = (await res.json().catch(() => null)) as { code?: number; message?: string; data?: T } | null;
      if (!res.ok || !json || json.code !== 1) {
        throw new ApiError(res.status, json?.message ?? `HTTP ${res.status}`);
      }
      return json.data as T;
    }
  }
  return { post };
}
