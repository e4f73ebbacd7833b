/**
 * Per-request timing in a `Server-Timing` header (opt-in, `API_SERVER_TIMING`; docs/operations.md, Metrics):
 * `app` is the time from when the API starts handling the request to its answer, `db` the part of it spent in
 * statements. With the client's own latency, one request's three figures say where a slow answer waited: before
 * the API read it (client minus app), in the database (db), or in the API itself (app minus db). The metrics
 * give the same split only as averages.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestHandler } from 'express';

interface RequestClock {
  startedAt: bigint;
  dbSeconds: number;
}

export interface RequestTiming {
  /** Express middleware: times the request and sets the header on its JSON answer. */
  middleware: RequestHandler;
  /** Counts a statement's time against the request it ran for, if any. */
  noteQuery(seconds: number): void;
}

/** The header's value: durations in milliseconds, as the Server-Timing syntax has them. */
export function serverTimingHeader(appMs: number, dbMs: number): string {
  return `app;dur=${appMs.toFixed(2)}, db;dur=${dbMs.toFixed(2)}`;
}

/** The durations of a Server-Timing header by name, in milliseconds; an absent or malformed one is left out. */
export function parseServerTiming(header: string | null | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const metric of (header ?? '').split(',')) {
    const [name, ...params] = metric.trim().split(';');
    const dur = params.map((p) => /^\s*dur=([\d.]+)\s*$/.exec(p)?.[1]).find((d) => d !== undefined);
    if (name && dur !== undefined) out[name.trim()] = Number(dur);
  }
  return out;
}

export function createRequestTiming(): RequestTiming {
  const clocks = new AsyncLocalStorage<RequestClock>();
  return {
    middleware: (_req, res, next) => {
      const clock: RequestClock = { startedAt: process.hrtime.bigint(), dbSeconds: 0 };
      // Every answer of the API is JSON, sent through res.json, before its headers are written.
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        const appMs = Number(process.hrtime.bigint() - clock.startedAt) / 1e6;
        if (!res.headersSent) res.setHeader('Server-Timing', serverTimingHeader(appMs, clock.dbSeconds * 1000));
        return json(body);
      };
      clocks.run(clock, next);
    },
    noteQuery: (seconds) => {
      const clock = clocks.getStore();
      if (clock) clock.dbSeconds += seconds;
    },
  };
}
