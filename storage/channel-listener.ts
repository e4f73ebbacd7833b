/**
 * Listens on a PostgreSQL notification channel (LISTEN) on a connection of its own, the one place that holds
 * such a connection. It says when it starts and stops hearing the channel, so that a caller relying on the
 * announcements knows when it cannot: a lost connection (the server restarting, a network fault, or a silent
 * one that the heartbeat finds) is reported at once and retried until `close()`; it never ends the process.
 */
import { Client } from 'pg';

export interface ChannelListenerOptions {
  connectionString: string;
  /** application_name of the connection, as pg_stat_activity shows it. */
  applicationName: string;
  channel: string;
  onNotify: (payload: string) => void;
  /** Called with true once LISTEN is in place, with false as soon as the connection is lost or closed. */
  onListening: (listening: boolean) => void;
  onError?: (err: unknown) => void;
  /** Wait before reconnecting. */
  retryMs?: number;
  /** A `select 1` this often proves the connection alive; one that fails or takes longer ends it. */
  heartbeatMs?: number;
}

export interface ChannelListener {
  close(): Promise<void>;
}

/** A channel name as an SQL identifier: only what needs no quoting is accepted. */
const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/;

export function listenToChannel(opts: ChannelListenerOptions): ChannelListener {
  if (!CHANNEL_NAME.test(opts.channel)) throw new Error(`channel: ${opts.channel} is not a plain identifier`);
  const retryMs = opts.retryMs ?? 1000;
  const heartbeatMs = opts.heartbeatMs ?? 10_000;
  let closed = false;
  let client: Client | null = null;
  let wake: () => void = () => undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, ms).unref();
    });

  /** One connection's life: resolves when it is lost or closed. */
  const listenOnce = async (): Promise<void> => {
    const c = new Client({
      connectionString: opts.connectionString,
      application_name: opts.applicationName,
      connectionTimeoutMillis: 5000,
      query_timeout: heartbeatMs,
      keepAlive: true,
    });
    client = c;
    let heartbeat: NodeJS.Timeout | undefined;
    const lost = new Promise<void>((resolve) => {
      c.on('error', (err) => {
        opts.onError?.(err);
        resolve();
      });
      c.on('end', () => resolve());
    });
    c.on('notification', (msg) => {
      if (msg.channel === opts.channel) opts.onNotify(msg.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`listen ${opts.channel}`);
      if (closed) return;
      opts.onListening(true);
      heartbeat = setInterval(() => {
        c.query('select 1').catch((err: unknown) => {
          opts.onError?.(err);
          // The connection may be alive but unanswered: end it, and listen again on a new one.
          c.end().catch(() => undefined);
        });
      }, heartbeatMs);
      heartbeat.unref();
      await lost;
    } catch (err) {
      if (!closed) opts.onError?.(err);
    } finally {
      clearInterval(heartbeat);
      opts.onListening(false);
      client = null;
      await c.end().catch(() => undefined);
    }
  };

  const running = (async () => {
    while (!closed) {
      await listenOnce();
      if (!closed) await pause(retryMs);
    }
  })();

  return {
    async close() {
      closed = true;
      wake();
      await client?.end().catch(() => undefined);
      await running;
    },
  };
}
