/**
 * `postBytes`: one POST of a body already encoded, over kept-alive connections, for the scripts that push data
 * (the demo loader and the benches). fetch copies every body and runs it through web streams: for the import
 * bench's 80 MB that was 2 s of CPU, which on the machine a bench measures comes out of the servers it measures.
 */
import http from 'node:http';
import https from 'node:https';

export interface PostReply {
  status: number;
  text: string;
  /** The `Retry-After` header, when the answer has one. */
  retryAfter: string | undefined;
}

// Free sockets of a keep-alive agent are unreferenced, so they do not keep a finished script running.
const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/** POSTs `body` to `url`; resolves with the answer whatever its status, rejects only when no answer came. */
export function postBytes(url: string, headers: Record<string, string>, body: Uint8Array): Promise<PostReply> {
  const target = new URL(url);
  const [client, agent] = target.protocol === 'https:' ? [https, agents.https] : [http, agents.http];
  return new Promise((resolve, reject) => {
    const req = client.request(
      target,
      { method: 'POST', agent, headers: { ...headers, 'Content-Length': String(body.byteLength) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), retryAfter });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
