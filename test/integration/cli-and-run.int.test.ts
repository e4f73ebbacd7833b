/**
 * The newcomer's path: `make run`'s script starts the pipeline and the API, the store CLI creates a store,
 * and one page_viewed event sent over HTTP is stored (how soon is the pipeline bench's visibility figure, not a
 * test's). On a fresh data directory, the CLI finds the local database by itself; a killed `make run` leaves
 * no daemon behind, two quick signals stop everything, and `make clean` deletes what it started. Plus the rest
 * of the store CLI.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { connect } from '@nats-io/transport-node';
import { sampleEvent } from '../support/samples';
import type { Db } from '../../storage/db';
import { baseEnv, createTestStore, testDb, waitFor } from '../support/harness';
import { testEnv } from '../support/env';
import { freePort } from '../support/free-port';
import { startNatsOnly, stopLocalServices } from '../support/local-services';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
let db: Db;

beforeAll(() => {
  db = testDb();
});
afterAll(() => db.close());

async function storeCli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', 'scripts/store.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...baseEnv() },
  });
}

describe('store CLI', () => {
  it('creates a store and prints its id and four credentials once', async () => {
    const { stdout } = await storeCli([
      'create',
      '--name',
      'CLI shop',
      '--timezone',
      'Europe/Paris',
      '--currency',
      'eur',
      '--lookback-days',
      '7',
    ]);
    const created = JSON.parse(stdout) as Record<string, string>;
    expect(Object.keys(created).sort()).toEqual(['access_token', 'api_key', 'dashboard_key', 'ingest_key', 'store_id']);
    expect(created.api_key).toMatch(/^ak_[\w-]{43}$/);
    expect(created.dashboard_key).toMatch(/^dk_[\w-]{43}$/);
    const rows = await db.query<{ digest: Buffer; kind: string }>(
      'test.creds',
      'select kind, digest from credentials where store_id = $1',
      [created.store_id],
    );
    expect(rows).toHaveLength(4);
    // Only digests are stored, never the secrets.
    const all = JSON.stringify(
      await db.query('test.all', 'select * from credentials where store_id = $1', [created.store_id]),
    );
    expect(all).not.toContain(created.api_key);
    const [store] = await db.query(
      'test.store',
      'select timezone, currency, lookback_days from stores where store_id = $1',
      [created.store_id],
    );
    expect(store).toEqual({ timezone: 'Europe/Paris', currency: 'EUR', lookback_days: 7 });
  });

  it('rotates and revokes credentials and lists stores without secrets', async () => {
    const created = JSON.parse(
      (await storeCli(['create', '--name', 'Rot', '--timezone', 'UTC', '--currency', 'USD'])).stdout,
    ) as Record<string, string>;
    const rotated = JSON.parse((await storeCli(['rotate', 'api_key', '--store', created.store_id!])).stdout) as Record<
      string,
      string
    >;
    expect(rotated.api_key).toMatch(/^ak_/);
    expect(rotated.api_key).not.toBe(created.api_key);
    const revoked = JSON.parse(
      (await storeCli(['revoke', 'ingest_key', '--store', created.store_id!])).stdout,
    ) as Record<string, unknown>;
    expect(revoked).toEqual({ store_id: created.store_id, kind: 'ingest_key', revoked: 1 });
    // The read-only dashboard key has the same commands.
    const dashboard = JSON.parse(
      (await storeCli(['rotate', 'dashboard_key', '--store', created.store_id!])).stdout,
    ) as Record<string, string>;
    expect(dashboard.dashboard_key).toMatch(/^dk_/);
    expect(dashboard.dashboard_key).not.toBe(created.dashboard_key);
    expect(JSON.parse((await storeCli(['revoke', 'dashboard_key', '--store', created.store_id!])).stdout)).toEqual({
      store_id: created.store_id,
      kind: 'dashboard_key',
      revoked: 1,
    });
    const list = JSON.parse((await storeCli(['list'])).stdout) as Array<{
      store_id: string;
      active_credentials: string[];
    }>;
    const mine = list.find((s) => s.store_id === created.store_id)!;
    expect(mine.active_credentials.sort()).toEqual(['access_token', 'api_key']);
    expect(JSON.stringify(list)).not.toContain(rotated.api_key);
  });

  it('sets and lists conversion rates', async () => {
    const created = JSON.parse(
      (await storeCli(['create', '--name', 'FX', '--timezone', 'UTC', '--currency', 'USD'])).stdout,
    ) as Record<string, string>;
    await storeCli(['rates', 'set', '--store', created.store_id!, '--currency', 'eur', '--rate', '1.0825']);
    await storeCli(['rates', 'set', '--store', created.store_id!, '--currency', 'EUR', '--rate', '1.09']);
    const list = JSON.parse((await storeCli(['rates', 'list', '--store', created.store_id!])).stdout) as Array<{
      currency: string;
      rate: number;
    }>;
    expect(list.map(({ currency, rate }) => ({ currency, rate }))).toEqual([{ currency: 'EUR', rate: 1.09 }]);
    await expect(
      storeCli(['rates', 'set', '--store', created.store_id!, '--currency', 'EUR', '--rate', '-1']),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('must be a positive number'),
    });
  });

  it('creates a store with the default half-life and changes its lookback and half-life', async () => {
    const created = JSON.parse(
      (await storeCli(['create', '--name', 'Decay', '--timezone', 'UTC', '--currency', 'USD'])).stdout,
    ) as Record<string, string>;
    const settings = async () =>
      (
        await db.query<{ lookback_days: number; half_life_days: string }>(
          'test.settings',
          'select lookback_days, half_life_days::text as half_life_days from stores where store_id = $1',
          [created.store_id],
        )
      )[0];
    expect(await settings()).toEqual({ lookback_days: 30, half_life_days: '7' });
    const set = JSON.parse(
      (await storeCli(['set', '--store', created.store_id!, '--half-life-days', '2.5'])).stdout,
    ) as Record<string, unknown>;
    expect(set).toEqual({ store_id: created.store_id, lookback_days: 30, half_life_days: 2.5 });
    await storeCli(['set', '--store', created.store_id!, '--lookback-days', '14']);
    expect(await settings()).toEqual({ lookback_days: 14, half_life_days: '2.5' });
    await expect(storeCli(['set', '--store', created.store_id!, '--half-life-days', '0'])).rejects.toMatchObject({
      stderr: expect.stringContaining('must be a number of days from 0.1 to 365'),
    });
    await expect(storeCli(['set', '--store', created.store_id!])).rejects.toMatchObject({
      stderr: expect.stringContaining('give --lookback-days and/or --half-life-days'),
    });
    await expect(storeCli(['set', '--store', 'st_nope', '--half-life-days', '3'])).rejects.toMatchObject({
      stderr: expect.stringContaining('st_nope'),
    });
    expect(await settings()).toEqual({ lookback_days: 14, half_life_days: '2.5' });
  });

  it('explains bad arguments and has --help on every command', async () => {
    await expect(
      storeCli(['create', '--name', 'x', '--timezone', 'Mars/Base', '--currency', 'USD']),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('is not an IANA time zone'),
    });
    await expect(
      storeCli(['create', '--name', 'x', '--timezone', 'UTC', '--currency', 'USD', '--lookback-days', '5']),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('must be one of 1, 7, 14, 30, 60, 90, 180'),
    });
    for (const cmd of [
      [],
      ['create'],
      ['set'],
      ['list'],
      ['rotate'],
      ['revoke'],
      ['rates', 'set'],
      ['rates', 'list'],
    ]) {
      const { stdout } = await storeCli([...cmd, '--help']);
      expect(stdout).toMatch(/Usage: store/);
    }
  });
});

describe('replay CLI', () => {
  it('names a bad argument and exits 2, as documented', async () => {
    const replay = (args: string[]) =>
      run(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', '--store', 'st_none', ...args], {
        cwd: ROOT,
        env: { ...process.env, ...baseEnv() },
      });
    for (const [args, message] of [
      [['--batch', 'abc'], '--batch must be a positive integer'],
      [['--rebuild', '--bulk-max', '0'], '--bulk-max must be a positive integer'],
      [['--rebuild', '--bulk-max', '16777217'], '--bulk-max must be between 1 and 16777216'],
      [['--from', 'yesterday'], 'must be a stream sequence (digits) or an ISO 8601 time'],
    ] as const) {
      await expect(replay([...args])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining(message) });
    }
    const { stdout } = await replay(['--help']);
    expect(stdout).toMatch(/--bulk-max <messages>/);
  });
});

describe('the operator’s build', () => {
  it('is plain JavaScript whose stack traces name the TypeScript lines', async () => {
    // global-setup built dist/ as `npm run build` does; make run's tests below start the daemons from it.
    const entries = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'build.json'), 'utf8')) as {
      entries: Record<string, string>;
    };
    for (const entry of Object.values(entries.entries)) expect(fs.existsSync(path.join(ROOT, entry))).toBe(true);
    const thrown = await run(
      process.execPath,
      [
        '--enable-source-maps',
        '-e',
        "require('./dist/pipeline/src/domain/apportion.js').apportion(0.5, [{ num: 1, den: 1 }])",
      ],
      { cwd: ROOT, env: process.env },
    ).then(
      () => null,
      (err: { stderr: string }) => err.stderr,
    );
    expect(thrown).toMatch(/RangeError: apportion: total must be a safe integer/);
    expect(thrown).toMatch(/pipeline\/src\/domain\/apportion\.ts:\d+/);
  });
});

describe('make run', () => {
  it('serves the API and runs the pipeline: one curl-ed page_viewed is stored', async () => {
    // The database has a store, so that make run loads no demo data.
    await createTestStore(db);
    // Its own broker: make run applies the stream and consumer definitions of infra/nats, whose one-minute
    // ack wait would otherwise replace the shared test broker's short one for every later test.
    const natsPort = await freePort();
    const natsDir = path.join(testEnv.dataDir, `run-nats-${natsPort}`);
    const natsUrl = startNatsOnly(natsDir, natsPort);
    const port = await freePort();
    const child = spawn('bash', ['infra/local/run.sh'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...baseEnv({
          NATS_URL: natsUrl,
          PORT: String(port),
          PIPELINE_HEALTH_PORT: String(await freePort()),
          LOG_LEVEL: 'warn',
        }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor(
        () =>
          fetch(`http://127.0.0.1:${port}/readyz`).then(
            (r) => r.status,
            () => 0,
          ),
        (s) => s === 200,
        60_000,
        200,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${out}`);
      });
      const created = JSON.parse(
        (await storeCli(['create', '--name', 'Run', '--timezone', 'UTC', '--currency', 'USD'])).stdout,
      ) as Record<string, string>;
      const ev = sampleEvent('page_viewed', { id: `run-${Date.now()}`, timestamp: new Date().toISOString() });
      const res = await fetch(`http://127.0.0.1:${port}/v2-4-2/api/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Ingest-Key': created.ingest_key! },
        body: JSON.stringify(ev),
      });
      expect(res.status).toBe(200);
      await waitFor(
        () =>
          db
            .query('test.run', 'select 1 from raw_events where store_id = $1 and event_id = $2', [
              created.store_id,
              ev.id,
            ])
            .then((r) => r.length),
        (n) => n === 1,
        30_000,
      );
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      expect(await exited).toBe(0);
      stopLocalServices(natsDir);
    }
    // The database has stores: no demo store.
    expect(out).not.toContain('[first run]');
  });
});

/** `make run`'s script in the background, with its output kept. */
function startRun(env: Record<string, string | undefined>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn('bash', ['infra/local/run.sh'], {
    cwd: ROOT,
    env: env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

const answers = (url: string) =>
  fetch(url).then(
    (r) => r.status,
    () => 0,
  );

/** Resolves once every URL answers 200 within `timeoutMs`; otherwise fails with the run's output. */
function allAnswer200(urls: string[], run: { output: () => string }, timeoutMs = 120_000): Promise<number[]> {
  return waitFor(
    () => Promise.all(urls.map(answers)),
    (s) => s.every((x) => x === 200),
    timeoutMs,
    250,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${run.output()}`);
  });
}

/** The environment of a newcomer's shell: nothing exported about the services. */
function freshShellEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const { DATABASE_URL: _d, NATS_URL: _n, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'warn', ...extra };
}

/** make run's environment on a data directory of its own: its own local servers and daemons on free ports. */
async function freshDataDirRun(name: string, extra: Record<string, string>) {
  const dataDir = path.join(testEnv.dataDir, `${name}-${Date.now()}`);
  const [port, healthPort, webhookPort, natsPort, pgPort] = await Promise.all(
    Array.from({ length: 5 }, () => freePort()),
  );
  const env = freshShellEnv({
    DATA_DIR: dataDir,
    NATS_PORT: String(natsPort),
    PG_PORT: String(pgPort),
    PG_FAST: '1',
    PORT: String(port),
    PIPELINE_HEALTH_PORT: String(healthPort),
    WEBHOOK_HEALTH_PORT: String(webhookPort),
    EVENT_PARTITIONS: '4',
    ...extra,
  });
  return { dataDir, port, healthPort, webhookPort, natsPort, env };
}

describe('make run on a fresh data directory', () => {
  it('the store CLI finds the local database without an export; a killed make run leaves no daemon; make clean deletes it', async () => {
    const { dataDir, port, healthPort, webhookPort, env } = await freshDataDirRun('fresh', {
      DEMO_EVENTS: '1000',
    });
    const run1 = startRun(env);
    const healthUrls = [
      `http://127.0.0.1:${port}/healthz`,
      `http://127.0.0.1:${healthPort}/healthz`,
      `http://127.0.0.1:${webhookPort}/healthz`,
    ];
    try {
      await allAnswer200(healthUrls, run1);
      // An empty database: a demo store is loaded, and the dashboard's URL and key printed.
      const printed = await waitFor(
        () => Promise.resolve(/Dashboard: +(http:\S+\/dashboard)\n +dashboard key: +(dk_[\w-]+)/.exec(run1.output())),
        (m) => m !== null,
        120_000,
        250,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${run1.output()}`);
      });
      expect(printed![1]).toBe(`http://127.0.0.1:${port}/dashboard`);
      expect((await fetch(printed![1]!)).status).toBe(200);
      const today = new Date().toISOString().slice(0, 10);
      const sum = await fetch(`http://127.0.0.1:${port}/v2-4-2/api/all-attribution/get-list-sum`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ApiKey: printed![2]! },
        body: JSON.stringify({
          start_date: new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10),
          end_date: new Date(Date.parse(today) + 86_400_000).toISOString().slice(0, 10),
          dimensions: ['channel'],
          model: 'last',
          goal: 'purchase',
        }),
      });
      expect(((await sum.json()) as { data: { conversions: number } }).data.conversions).toBeGreaterThan(0);

      // Another shell, nothing exported: the CLI uses the running local PostgreSQL and says so.
      const created = await run(
        process.execPath,
        ['--import', 'tsx', 'scripts/store.ts', 'create', '--name', 'Fresh', '--timezone', 'UTC', '--currency', 'USD'],
        { cwd: ROOT, env: freshShellEnv({ DATA_DIR: dataDir }) },
      );
      expect(JSON.parse(created.stdout)).toMatchObject({ store_id: expect.stringMatching(/^st_/) });
      expect(created.stderr).toMatch(
        /DATABASE_URL is not set; using the one of the local services started by make run/,
      );
      expect(created.stderr).not.toContain(fs.readFileSync(path.join(dataDir, 'pg', 'password'), 'utf8'));

      // The daemons and the CLIs reach the local database by its Unix socket (no server address), which costs
      // less CPU per statement than loopback TCP.
      const local = new pg.Client({ connectionString: fs.readFileSync(path.join(dataDir, 'pg.url'), 'utf8').trim() });
      await local.connect();
      try {
        const { rows } = await local.query<{ addr: string | null }>('select inet_server_addr()::text as addr');
        expect(rows).toEqual([{ addr: null }]);
      } finally {
        await local.end();
      }

      // make run killed outright (a closed terminal, kill -9): its daemons notice and go.
      process.kill(run1.child.pid!, 'SIGKILL');
      await waitFor(
        () => Promise.all(healthUrls.map(answers)),
        (s) => s.every((x) => x === 0),
        60_000,
        250,
      );
    } finally {
      try {
        process.kill(-run1.child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    execFileSync('bash', [path.join(ROOT, 'infra/local/clean.sh')], {
      env: { ...process.env, DATA_DIR: dataDir, FORCE: '1' },
    });
    expect(fs.existsSync(dataDir)).toBe(false);
  }, 240_000);

  it('a Ctrl-C stops and drains every daemon and leaves nats-server and PostgreSQL running', async () => {
    const { dataDir, port, healthPort, webhookPort, natsPort, env } = await freshDataDirRun('ctrl-c', {
      DEMO_ON_FIRST_RUN: 'false',
      LOG_LEVEL: 'info',
    });
    const run1 = startRun(env);
    const readyUrls = [port, healthPort, webhookPort].map((p) => `http://127.0.0.1:${p}/readyz`);
    try {
      await allAnswer200(readyUrls, run1);
      // A terminal's Ctrl-C: SIGINT to the whole foreground process group, make run's script and whatever it
      // started in that group.
      process.kill(-run1.child.pid!, 'SIGINT');
      // The bound the stop must keep (a drain against a live broker takes a second or two; against a dead one,
      // tens of seconds of reconnect attempts).
      let bound: NodeJS.Timeout | undefined;
      const code = await Promise.race([
        run1.exited,
        new Promise<'not stopped'>((r) => (bound = setTimeout(() => r('not stopped'), 10_000))),
      ]);
      clearTimeout(bound);
      // Every daemon drained and exited 0 (the script exits with the worst of their codes), none logged an error.
      const errors = run1.output().match(/.*"level":"(error|fatal)".*/g) ?? [];
      expect({ code, errors }).toEqual({ code: 0, errors: [] });
      expect(run1.output().match(/"msg":"shutting down"/g)).toHaveLength(3);
      expect(await Promise.all(readyUrls.map(answers))).toEqual([0, 0, 0]);
      // The local servers are still there for the next make run.
      const natsPid = Number(fs.readFileSync(path.join(dataDir, 'nats', 'nats.pid'), 'utf8'));
      expect(() => process.kill(natsPid, 0)).not.toThrow();
      const nc = await connect({ servers: `nats://127.0.0.1:${natsPort}` });
      await nc.close();
      const local = new pg.Client({ connectionString: fs.readFileSync(path.join(dataDir, 'pg.url'), 'utf8').trim() });
      await local.connect();
      await local.end();
    } finally {
      try {
        process.kill(-run1.child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      execFileSync('bash', [path.join(ROOT, 'infra/local/clean.sh')], {
        env: { ...process.env, DATA_DIR: dataDir, FORCE: '1' },
      });
    }
  }, 240_000);

  it('two signals in quick succession stop every daemon', async () => {
    const [port, healthPort, webhookPort, natsPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    // Its own broker, as above: on the shared one, make run's stream setup would give every later test file the
    // one-minute ack wait, and a killed daemon's messages would then wait a minute for redelivery.
    const natsDir = path.join(testEnv.dataDir, `signals-nats-${natsPort}`);
    const natsUrl = startNatsOnly(natsDir, natsPort);
    const r = startRun({
      ...process.env,
      ...baseEnv({
        NATS_URL: natsUrl,
        PORT: String(port),
        PIPELINE_HEALTH_PORT: String(healthPort),
        WEBHOOK_HEALTH_PORT: String(webhookPort),
        LOG_LEVEL: 'warn',
      }),
    });
    try {
      const healthUrls = [port, healthPort, webhookPort].map((p) => `http://127.0.0.1:${p}/healthz`);
      await allAnswer200(healthUrls, r, 60_000);
      process.kill(r.child.pid!, 'SIGTERM');
      process.kill(r.child.pid!, 'SIGTERM');
      await r.exited;
      expect(await Promise.all(healthUrls.map(answers))).toEqual([0, 0, 0]);
    } finally {
      stopLocalServices(natsDir);
    }
  });
});
