/**
 * A real HTTP receiver on loopback for webhook tests: records every request (headers and raw body), answers each
 * attempt as programmed per path (status, headers, body, optional delay), and tells which answers really reached
 * the client (a delayed answer to a client that gave up is not "accepted").
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProgrammedResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (a timeout when longer than the sender's). */
  delayMs?: number;
  /** Answer only once this settles: the attempt stays in flight until the test says so. */
  hold?: Promise<void>;
}

export interface ReceivedRequest {
  /** 1-based index of this request among those of its path. */
  n: number;
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
  response: ProgrammedResponse;
  /** The answer was written in full while the client was still there. */
  answered: boolean;
  /** The client went away before the answer (timeout, abort, crash). */
  clientGone: boolean;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  urlFor(path: string): string;
  /** Answers for the next requests of a path, in order; `fallback` (default 200) after them. */
  program(path: string, responses: ProgrammedResponse[], fallback?: ProgrammedResponse): void;
  /** Changes the answer once the programmed list is used up (e.g. "the receiver is back"). */
  setFallback(path: string, fallback: ProgrammedResponse): void;
  requests(path: string): ReceivedRequest[];
  /** Requests answered 2xx that reached the client. */
  accepted(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

interface PathProgram {
  queue: ProgrammedResponse[];
  fallback: ProgrammedResponse;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const programs = new Map<string, PathProgram>();
  const log: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const programOf = (path: string): PathProgram => {
    let p = programs.get(path);
    if (!p) {
      p = { queue: [], fallback: { status: 200 } };
      programs.set(path, p);
    }
    return p;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const program = programOf(path);
      const response = program.queue.shift() ?? program.fallback;
      const record: ReceivedRequest = {
        n: log.filter((r) => r.path === path).length + 1,
        path,
        method: req.method ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
        response,
        answered: false,
        clientGone: false,
      };
      log.push(record);
      res.on('close', () => {
        if (!res.writableFinished) record.clientGone = true;
      });
      const answer = (): void => {
        if (res.destroyed || record.clientGone) {
          record.clientGone = true;
          return;
        }
        res.writeHead(response.status, { 'content-type': 'text/plain', ...response.headers });
        res.end(response.body ?? '', () => {
          record.answered = !record.clientGone;
        });
      };
      if (response.hold) {
        void response.hold.then(answer, answer);
      } else if (response.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          answer();
        }, response.delayMs);
        timers.add(t);
      } else {
        answer();
      }
    });
  });
  // Node's default keep-alive timeout (5 s) is fine; the sender may reuse connections.
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    baseUrl,
    urlFor: (path) => `${baseUrl}${path}`,
    program(path, responses, fallback) {
      const p = programOf(path);
      p.queue = [...responses];
      if (fallback) p.fallback = fallback;
    },
    setFallback(path, fallback) {
      programOf(path).fallback = fallback;
    },
    requests: (path) => log.filter((r) => r.path === path),
    accepted: (path) =>
      log.filter((r) => r.path === path && r.answered && r.response.status >= 200 && r.response.status < 300),
    close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
