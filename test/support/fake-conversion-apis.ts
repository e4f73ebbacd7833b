/**
 * A local stand-in for the ad platforms' conversion APIs (node:http on 127.0.0.1, port 0): Meta's
 * `/{version}/{pixel id}/events`, Google Ads' `/{version}/customers/{id}:uploadClickConversions` with its OAuth token
 * endpoint, and TikTok's `/open_api/v1.3/event/track/`. It answers with the recorded answers of
 * test/fixtures/{meta,google-ads,tiktok} (their sources in each folder's README.md). Hooks: `refuse` (order ids
 * the platform refuses: Meta and TikTok refuse the whole request holding one, Google only that conversion, as
 * their APIs do), `next` (answers to give first, e.g. a 429 with Retry-After), `delayMs` (a slow platform), `hold`
 * (answers wait until a promise settles: requests in flight for as long as a test needs).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export type ConversionPlatform = 'meta' | 'google' | 'tiktok';

const FIXTURES = path.join(__dirname, '..', 'fixtures');
export const conversionFixture = (p: string): unknown =>
  JSON.parse(readFileSync(path.join(FIXTURES, p), 'utf8')) as unknown;

export interface ConversionRequest {
  platform: ConversionPlatform | 'oauth';
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
  /** The answer's status. */
  status: number;
  /** The order ids (event ids) the request carried. */
  eventIds: string[];
}

export interface ScriptedAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface FakeConversionApis {
  url: string;
  tokenUrl: string;
  requests: ConversionRequest[];
  refuse: Set<string>;
  next: Record<ConversionPlatform, ScriptedAnswer[]>;
  delayMs: number;
  /** While set, the platforms' answers wait for it (the OAuth token endpoint's do not). */
  hold: Promise<void> | null;
  /** Requests to one platform that carried `eventId`. */
  carrying(platform: ConversionPlatform, eventId: string): ConversionRequest[];
  close(): Promise<void>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function eventIdsOf(platform: ConversionPlatform, body: unknown): string[] {
  if (!isObj(body)) return [];
  const list = platform === 'google' ? body.conversions : body.data;
  if (!Array.isArray(list)) return [];
  return list.map((e) => (isObj(e) ? String(platform === 'google' ? e.orderId : e.event_id) : ''));
}

export async function startFakeConversionApis(): Promise<FakeConversionApis> {
  const state = {
    requests: [] as ConversionRequest[],
    refuse: new Set<string>(),
    next: { meta: [], google: [], tiktok: [] } as Record<ConversionPlatform, ScriptedAnswer[]>,
    delayMs: 0,
    hold: null as Promise<void> | null,
  };

  function answer(platform: ConversionPlatform, body: unknown): ScriptedAnswer {
    const scripted = state.next[platform].shift();
    if (scripted) return scripted;
    const ids = eventIdsOf(platform, body);
    const refused = ids.map((id) => state.refuse.has(id));
    switch (platform) {
      case 'meta': {
        if (refused.some(Boolean))
          return { status: 400, body: conversionFixture('meta/capi-error-invalid-parameter.json') };
        const ok = conversionFixture('meta/capi-events-received.json') as Record<string, unknown>;
        return { status: 200, body: { ...ok, events_received: ids.length } };
      }
      case 'tiktok':
        return refused.some(Boolean)
          ? { status: 200, body: conversionFixture('tiktok/events-track-invalid-param.json') }
          : { status: 200, body: conversionFixture('tiktok/events-track-ok.json') };
      case 'google': {
        const conversions = isObj(body) && Array.isArray(body.conversions) ? (body.conversions as unknown[]) : [];
        const results = conversions.map((c, i) =>
          refused[i] || !isObj(c)
            ? {}
            : { gclid: c.gclid, conversionAction: c.conversionAction, conversionDateTime: c.conversionDateTime },
        );
        if (!refused.some(Boolean)) return { status: 200, body: { results, jobId: '8431095423' } };
        // Google's recorded partial failure, once per refused conversion at its index.
        const recorded = conversionFixture('google-ads/upload-click-conversions-partial-failure.json') as {
          partialFailureError: {
            details: Array<{ errors: Array<{ location: { fieldPathElements: Array<{ index?: number }> } }> }>;
          };
        };
        const template = recorded.partialFailureError.details[0]!.errors[0]!;
        const errors = refused.flatMap((r, i) =>
          r
            ? [
                {
                  ...template,
                  location: { fieldPathElements: [{ fieldName: 'conversions', index: i }, { fieldName: 'gclid' }] },
                },
              ]
            : [],
        );
        return {
          status: 200,
          body: {
            ...recorded,
            partialFailureError: {
              ...recorded.partialFailureError,
              details: [{ ...recorded.partialFailureError.details[0], errors }],
            },
            results,
          },
        };
      }
    }
  }

  let base = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const p = new URL(req.url ?? '/', base).pathname;
      const send = (platform: ConversionRequest['platform'], a: ScriptedAnswer, eventIds: string[] = []): void => {
        state.requests.push({
          platform,
          url: req.url ?? '',
          headers: req.headers,
          body: text,
          at: Date.now(),
          status: a.status,
          eventIds,
        });
        const reply = (): void => {
          res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
          res.end(JSON.stringify(a.body));
        };
        if (platform !== 'oauth' && state.hold) void state.hold.then(reply);
        else if (state.delayMs > 0) setTimeout(reply, state.delayMs);
        else reply();
      };
      let platform: ConversionPlatform | null = null;
      if (p === '/token' && req.method === 'POST')
        return send('oauth', { status: 200, body: conversionFixture('google-ads/oauth-token.json') });
      if (/^\/v[\d.]+\/\d+\/events$/.test(p)) platform = 'meta';
      else if (/^\/v\d+\/customers\/\d+:uploadClickConversions$/.test(p)) platform = 'google';
      else if (p === '/open_api/v1.3/event/track/') platform = 'tiktok';
      if (platform === null || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"not found"}');
        return;
      }
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        return send(platform, { status: 400, body: { error: 'not JSON' } });
      }
      send(platform, answer(platform, body), eventIdsOf(platform, body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url: base,
    tokenUrl: `${base}/token`,
    carrying: (platform: ConversionPlatform, eventId: string) =>
      state.requests.filter((r) => r.platform === platform && r.eventIds.includes(eventId)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
