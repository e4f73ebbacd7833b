/** The report client against a local HTTP server standing in for the API's answers. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReportClient, ReportApiError } from './report-client';

interface Seen {
  path: string;
  apiKey: string | undefined;
  body: unknown;
}

let server: http.Server;
let baseUrl = '';
const seen: Seen[] = [];
let answers: { status: number; body: string; headers?: Record<string, string> }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', apiKey: req.headers.apikey as string | undefined, body: JSON.parse(text) });
      const a = answers.shift() ?? { status: 500, body: 'no answer left' };
      res.writeHead(a.status, { 'Content-Type': 'application/json', ...a.headers }).end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  seen.length = 0;
  answers = [];
});

const envelope = (data: unknown) => JSON.stringify({ code: 1, message: 'success', data });
const client = () => createReportClient({ baseUrl, apiKey: 'ak_test' });
const body = {
  start_date: '2026-01-01',
  end_date: '2026-01-08',
  dimensions: ['channel' as const],
  model: 'last' as const,
  goal: 'purchase' as const,
};

it('posts the body with the ApiKey header to the versioned path and returns data', async () => {
  answers = [{ status: 200, body: envelope({ total: 0, page_size: 20, records: [] }) }];
  expect(await client().getList({ ...body, page: 1, page_size: 20 })).toEqual({ total: 0, page_size: 20, records: [] });
  expect(seen).toEqual([
    { path: '/v2-4-2/api/all-attribution/get-list', apiKey: 'ak_test', body: { ...body, page: 1, page_size: 20 } },
  ]);
});

it('waits out a 429 for its Retry-After, then answers', async () => {
  answers = [
    {
      status: 429,
      body: JSON.stringify({ code: 429, message: 'ApiKey: rate limit', data: null }),
      headers: { 'Retry-After': '1' },
    },
    { status: 200, body: envelope({ conversions: 1 }) },
  ];
  const started = Date.now();
  expect(await client().getListSum(body)).toEqual({ conversions: 1 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  expect(seen).toHaveLength(2);
});

it("throws the API's message, naming the field, with the status", async () => {
  answers = [
    { status: 400, body: JSON.stringify({ code: 400, message: 'end_date: must be after start_date', data: null }) },
  ];
  const err = await client()
    .getListSum(body)
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ReportApiError);
  expect(err).toMatchObject({ status: 400, message: 'end_date: must be after start_date' });
});

it('says when the key was refused', async () => {
  answers = [
    { status: 401, body: JSON.stringify({ code: 401, message: 'ApiKey: unknown or revoked credential', data: null }) },
  ];
  await expect(client().orderTouchpoints({ order_ids: ['1'] })).rejects.toMatchObject({
    status: 401,
    message: 'the API refused the key (ApiKey: unknown or revoked credential)',
  });
});

it('says when the API cannot be reached', async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const err = await createReportClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k' })
    .trackingLinks({ start_date: '2026-01-01', end_date: '2026-01-02' })
    .catch((e: unknown) => e);
  expect(err).toMatchObject({ status: 0 });
  expect((err as Error).message).toMatch(/^could not reach the API at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
});
