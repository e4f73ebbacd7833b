/**
 * The channel listener (storage/channel-listener.ts) against a real PostgreSQL: it hears notifications, says
 * when it cannot, and listens again by itself, including after a connection that went silent without closing,
 * which only its heartbeat finds.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { listenToChannel } from '../../storage/channel-listener';
import type { Db } from '../../storage/db';
import { testEnv } from '../support/env';
import { testDb, waitFor } from '../support/harness';

let db: Db;
beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

/** A TCP relay to PostgreSQL that can be made to swallow everything, as a dead network path does. */
async function startRelay(target: URL): Promise<{ url: string; silence(on: boolean): void; close(): Promise<void> }> {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (chunk) => {
      if (!silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!silent) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Over TCP through the relay, even where the test's URL names PostgreSQL's Unix socket.
  const url = new URL(target.toString());
  url.searchParams.delete('host');
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    silence: (on) => (silent = on),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

it('hears notifications, and listens again on a new connection once the old one goes silent', async () => {
  const relay = await startRelay(new URL(testEnv.databaseUrl));
  const heard: string[] = [];
  const states: boolean[] = [];
  const listener = listenToChannel({
    connectionString: relay.url,
    applicationName: 'test-channel-listener',
    channel: 'test_channel',
    onNotify: (payload) => heard.push(payload),
    onListening: (listening) => states.push(listening),
    retryMs: 50,
    heartbeatMs: 300,
  });
  try {
    await waitFor(
      () => Promise.resolve(states.at(-1)),
      (s) => s === true,
    );
    await db.query('test.notify', "select pg_notify('test_channel', 'one')");
    await waitFor(
      () => Promise.resolve(heard.length),
      (n) => n === 1,
    );
    expect(heard).toEqual(['one']);

    // Nothing closes: the relay just stops answering. The heartbeat finds out; the listener says so.
    relay.silence(true);
    await waitFor(
      () => Promise.resolve(states.at(-1)),
      (s) => s === false,
    );
    await db.query('test.notify', "select pg_notify('test_channel', 'unheard')");
    // Once the path answers again, the listener is back by itself, on a new connection.
    relay.silence(false);
    await waitFor(
      () => Promise.resolve(states.at(-1)),
      (s) => s === true,
    );
    await db.query('test.notify', "select pg_notify('test_channel', 'two')");
    await waitFor(
      () => Promise.resolve(heard.length),
      (n) => n >= 2,
    );
    expect(heard).toEqual(['one', 'two']);
  } finally {
    await listener.close();
    await relay.close();
  }
  expect(states.at(-1)).toBe(false);
});
