import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postBytes } from './post-bytes';

describe('postBytes', () => {
  const received: Array<{ headers: http.IncomingHttpHeaders; body: Buffer }> = [];
  let answer: { status: number; headers: Record<string, string>; text: string };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(answer.status, answer.headers).end(answer.text);
    });
  });
  let url: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2-4-2/api/events`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the bytes as they are, with their length and the headers given', async () => {
    answer = { status: 200, headers: { 'Content-Type': 'application/json' }, text: '{"data":{"accepted":1}}' };
    const body = Buffer.from('[{"title":"Fleece – Cream ✓"}]');
    const reply = await postBytes(url, { 'X-Ingest-Key': 'k1' }, body);
    expect(reply).toEqual({ status: 200, text: '{"data":{"accepted":1}}', retryAfter: undefined });
    const [sent] = received.splice(0);
    expect(sent!.body.equals(body)).toBe(true);
    expect(sent!.headers['content-length']).toBe(String(body.byteLength));
    expect(sent!.headers['x-ingest-key']).toBe('k1');
  });

  it('answers a refusal with its status, text and Retry-After, for the caller to retry', async () => {
    answer = { status: 429, headers: { 'Retry-After': '2' }, text: 'slow down' };
    expect(await postBytes(url, {}, Buffer.from('[]'))).toEqual({ status: 429, text: 'slow down', retryAfter: '2' });
  });

  it('rejects when no answer comes', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(postBytes(`http://127.0.0.1:${port}/`, {}, Buffer.from('[]'))).rejects.toThrow(/ECONNREFUSED/);
  });
});
