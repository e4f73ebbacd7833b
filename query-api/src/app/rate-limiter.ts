/**
 * Per-key rate limits (docs/product.md, API conventions): a fixed one-second window per (key, class). In memory, so each API
 * instance enforces the limit on its own; behind a load balancer, divide or use sticky routing (see README).
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until the caller may try again (for Retry-After). */
  retryAfterS: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { windowStart: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  take(key: string, perSecond: number): RateDecision {
    const t = this.now();
    const windowStart = Math.floor(t / 1000) * 1000;
    const w = this.windows.get(key);
    if (!w || w.windowStart !== windowStart) {
      this.windows.set(key, { windowStart, count: 1 });
      if (this.windows.size > 50_000) this.prune(windowStart);
      return { allowed: true, retryAfterS: 0 };
    }
    if (w.count < perSecond) {
      w.count++;
      return { allowed: true, retryAfterS: 0 };
    }
    return { allowed: false, retryAfterS: Math.max(1, Math.ceil((windowStart + 1000 - t) / 1000)) };
  }

  private prune(current: number): void {
    for (const [k, w] of this.windows) if (w.windowStart !== current) this.windows.delete(k);
  }
}
