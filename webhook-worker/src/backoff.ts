/**
 * Retry timing of webhook deliveries (docs/product.md, Identity events and destinations): a jittered schedule indexed by the attempt that just failed,
 * `Retry-After` honoured when it asks for longer. Pure: randomness and the clock come in as arguments.
 */

/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h: seven retries after the first attempt, eight attempts in all. */
export const DEFAULT_BACKOFF_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  24 * 3_600_000,
];

/** Longest `Retry-After` honoured; a receiver asking for more is retried after this. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

export interface BackoffPolicy {
  /** Delay before retry n+1 after attempt n failed, for n = 1..length. */
  scheduleMs: readonly number[];
  /** Relative jitter: each delay is multiplied by a uniform factor in [1 - jitter, 1 + jitter]. */
  jitter: number;
  /** Cap of an honoured `Retry-After`. */
  maxRetryAfterMs: number;
}

export const DEFAULT_BACKOFF_POLICY: BackoffPolicy = {
  scheduleMs: DEFAULT_BACKOFF_MS,
  jitter: 0.2,
  maxRetryAfterMs: MAX_RETRY_AFTER_MS,
};

/** Parses a comma-separated list of non-negative integers of milliseconds (`WEBHOOK_BACKOFF_MS`). */
export function parseBackoffList(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p))) {
    throw new Error(`"${text}" is not a comma-separated list of milliseconds (e.g. 5000,300000)`);
  }
  return parts.map(Number);
}

/**
 * What to do after attempt `attempt` (1-based) failed: retry after the returned delay, or `null` when the
 * schedule is exhausted (attempt > schedule length). `random` returns a number in [0, 1).
 */
export function retryDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number,
  retryAfterMs: number | null = null,
): number | null {
  if (!Number.isInteger(attempt) || attempt < 1 || attempt > policy.scheduleMs.length) return null;
  const base = policy.scheduleMs[attempt - 1] ?? 0;
  const factor = 1 + policy.jitter * (2 * random() - 1);
  const jittered = Math.max(0, Math.round(base * factor));
  if (retryAfterMs === null) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, policy.maxRetryAfterMs));
}

/**
 * `Retry-After` in milliseconds from now: delay-seconds (`120`) or an HTTP date; `null` when absent or not
 * understood; 0 for a date in the past.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value == null) return null;
  const text = value.trim();
  if (text === '') return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}
