/**
 * Replay from scripts.
 *   npm run replay -- --store <id> [--from <time|seq>] [--to <time|seq>] [--rebuild [--bulk-max <messages>]]
 *       re-consumes the store's messages from the stream into the views (idempotent beside the live
 *       daemon); --rebuild empties the store's stream-derived facts and views first and recomputes them, loading
 *       the facts in memory unless the store's stream holds more than --bulk-max messages (10 million).
 *   npm run replay -- --store <id> --file events.ndjson
 *       publishes a file of event envelopes into the stream (one per line), de-duplicated by event id, to the
 *       partitions' overflow twins: a file is a backlog, served after the live events of every store.
 * A progress bar with rate and ETA on a terminal, a log line every 5 s otherwise; a JSON summary on
 * stdout at the end. Exit codes: 0 done, 1 done with rejected lines or dead letters, 2 bad arguments,
 * 3 failure.
 */
import fs from 'node:fs';
import readline from 'node:readline';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import { connect } from '@nats-io/transport-node';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { jetstream } from '@nats-io/jetstream';
import {
  DEFAULT_PARTITIONS,
  eventMsgId,
  eventSubject,
  partitionOf,
  RECEIVED_AT_HEADER,
} from '../contracts/src/subjects';
import { formatFieldError, validateEvent } from '../contracts/src/validation';
import { createDb } from '../storage/db';
import { createLogger } from '../runtime/logger';
import { getStore } from '../storage/store-registry';
import {
  REBUILD_BULK_LIMIT,
  REBUILD_BULK_MAX_MESSAGES,
  replayStore,
  type ReplayRange,
} from '../pipeline/src/operations/replay';
import { positiveInteger } from './cli-numbers';
import { requireConnection } from './connection-env';

interface Point {
  seq?: number;
  time?: number;
}

function parsePoint(value: string): Point {
  if (/^\d+$/.test(value)) return { seq: Number(value) };
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new InvalidArgumentError('must be a stream sequence (digits) or an ISO 8601 time');
  return { time: t };
}

/** A progress reporter: a bar on a terminal, periodic log lines otherwise. */
function progressReporter(label: string) {
  const tty = process.stderr.isTTY;
  const bar = tty
    ? new SingleBar(
        {
          format: `${label} [{bar}] {percentage}% | {value}/{total} | {rate}/s | ETA {eta_formatted}`,
          stream: process.stderr,
        },
        Presets.shades_classic,
      )
    : null;
  let lastLog = 0;
  let started = false;
  const t0 = Date.now();
  return {
    update(done: number, total: number) {
      const rate = Math.round(done / Math.max(0.001, (Date.now() - t0) / 1000));
      if (bar) {
        if (!started) bar.start(Math.max(total, 1), 0, { rate });
        started = true;
        bar.setTotal(Math.max(total, done, 1));
        bar.update(done, { rate });
      } else if (Date.now() - lastLog > 5000) {
        lastLog = Date.now();
        const eta = rate > 0 ? Math.round((total - done) / rate) : null;
        console.error(JSON.stringify({ progress: label, done, total, rate_per_s: rate, eta_s: eta }));
      }
    },
    stop() {
      bar?.stop();
    },
  };
}

async function publishFile(natsUrl: string, storeId: string, file: string, partitions: number): Promise<number> {
  const nc = await connect({ servers: natsUrl.split(','), name: 'replay-file' });
  const js = jetstream(nc);
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  const progress = progressReporter('publish');
  const totalBytes = fs.statSync(file).size;
  let bytes = 0;
  let published = 0;
  let duplicates = 0;
  const rejected: Array<{ line: number; error: string }> = [];
  const inFlight = new Set<Promise<void>>();
  const started = Date.now();
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    bytes += Buffer.byteLength(line) + 1;
    if (!line.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      rejected.push({ line: lineNo, error: 'malformed JSON' });
      continue;
    }
    const receivedAt = Date.now();
    const r = validateEvent(parsed, { now: new Date(receivedAt) });
    if (!r.ok) {
      rejected.push({ line: lineNo, error: r.errors.slice(0, 3).map(formatFieldError).join('; ') });
      continue;
    }
    const e = r.value;
    const h = natsHeaders();
    h.set(RECEIVED_AT_HEADER, String(receivedAt));
    // A file is a backlog: it goes where a store over its live rate goes (docs/decisions.md, Ingestion).
    const subject = eventSubject(partitionOf(storeId, e.clientId, partitions), storeId, e.name, true);
    const p = js.publish(subject, JSON.stringify(e), { msgID: eventMsgId(storeId, e.id), headers: h }).then((ack) => {
      published++;
      if (ack.duplicate) duplicates++;
    });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
    if (inFlight.size >= 1000) await Promise.race(inFlight);
    progress.update(bytes, totalBytes);
  }
  await Promise.all(inFlight);
  progress.stop();
  await nc.close();
  const seconds = (Date.now() - started) / 1000;
  console.log(
    JSON.stringify({
      mode: 'file',
      store: storeId,
      published,
      duplicates,
      rejected: rejected.length,
      seconds,
      events_per_s: Math.round(published / Math.max(seconds, 0.001)),
    }),
  );
  for (const r of rejected.slice(0, 20)) console.error(JSON.stringify({ rejected_line: r.line, error: r.error }));
  return rejected.length ? 1 : 0;
}

const program = new Command('replay')
  .description('Re-consume a store from the stream into the views, or publish an NDJSON file into the stream')
  .requiredOption('--store <id>', 'store id')
  .option('--from <time|seq>', 'start: stream sequence or ISO 8601 time (default: the beginning)', parsePoint)
  .option('--to <time|seq>', 'end, inclusive (default: the last message when the replay starts)', parsePoint)
  .option('--rebuild', "empty the store's stream-derived facts and views first, then recompute them from the stream")
  .option('--batch <n>', 'messages per transaction', positiveInteger('--batch'), 5000)
  .option(
    '--bulk-max <messages>',
    'with --rebuild: load the facts in memory when the store has at most this many messages, else batch by batch',
    positiveInteger('--bulk-max', REBUILD_BULK_LIMIT),
    REBUILD_BULK_MAX_MESSAGES,
  )
  .option('--file <path>', 'publish this NDJSON file of event envelopes instead (de-duplicated by event id)')
  .showHelpAfterError()
  .exitOverride()
  .action(
    async (opts: {
      store: string;
      from?: Point;
      to?: Point;
      rebuild?: boolean;
      batch: number;
      bulkMax: number;
      file?: string;
    }) => {
      const natsUrl = requireConnection('NATS_URL', 'replay');
      const databaseUrl = requireConnection('DATABASE_URL', 'replay');
      const db = createDb({ connectionString: databaseUrl, service: 'replay', max: 4 });
      try {
        if (!(await getStore(db, opts.store))) {
          console.error(`replay: no store with id ${opts.store}`);
          process.exit(2);
        }
        if (opts.file) {
          if (!fs.existsSync(opts.file)) {
            console.error(`replay: no file ${opts.file}`);
            process.exit(2);
          }
          process.exitCode = await publishFile(
            natsUrl,
            opts.store,
            opts.file,
            Number(process.env.EVENT_PARTITIONS ?? DEFAULT_PARTITIONS),
          );
          return;
        }
        const nc = await connect({ servers: natsUrl.split(','), name: 'replay' });
        const progress = progressReporter('replay');
        const range: ReplayRange = {
          storeId: opts.store,
          fromSeq: opts.from?.seq,
          fromTime: opts.from?.time,
          toSeq: opts.to?.seq,
          toTime: opts.to?.time,
          rebuild: opts.rebuild,
          batchSize: opts.batch,
          bulkMaxMessages: opts.bulkMax,
        };
        const result = await replayStore(nc, db, range, createLogger('replay', process.env.LOG_LEVEL ?? 'warn'), (p) =>
          progress.update(p.processed, p.total),
        );
        progress.stop();
        await nc.close();
        console.log(
          JSON.stringify({
            mode: opts.rebuild ? 'rebuild' : 'replay',
            store: opts.store,
            ...result,
            events_per_s: Math.round(result.processed / Math.max(result.seconds, 0.001)),
          }),
        );
        process.exitCode = result.deadLettered > 0 ? 1 : 0;
      } finally {
        await db.close();
      }
    },
  );

program.parseAsync().catch((err: unknown) => {
  // Commander printed the message (or the help) already.
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  console.error('replay: failed:', err instanceof Error ? err.message : err);
  process.exit(3);
});
