/**
 * Starts throwaway nats-server and PostgreSQL instances for tests through the same infra/local scripts
 * that `make run` uses, on free ports under a temporary directory.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { freePort } from './free-port';

const LOCAL = path.join(__dirname, '..', '..', 'infra', 'local');

export interface LocalServices {
  dataDir: string;
  natsUrl: string;
  databaseUrl: string;
  natsPort: number;
  pgPort: number;
}

function run(script: string, env: Record<string, string>): string {
  return execFileSync('bash', [path.join(LOCAL, script)], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}

export async function startLocalServices(
  dataDir: string,
  opts: { dbName?: string; fsync?: boolean } = {},
): Promise<LocalServices> {
  const natsPort = await freePort();
  const pgPort = await freePort();
  const env = {
    DATA_DIR: dataDir,
    NATS_PORT: String(natsPort),
    PG_PORT: String(pgPort),
    PG_FAST: opts.fsync ? '0' : '1',
    PG_DB: opts.dbName ?? 'attribution_test',
  };
  const natsUrl = run('start-nats.sh', env);
  const databaseUrl = run('start-postgres.sh', env);
  return { dataDir, natsUrl, databaseUrl, natsPort, pgPort };
}

export function startNatsOnly(dataDir: string, natsPort: number): string {
  return run('start-nats.sh', { DATA_DIR: dataDir, NATS_PORT: String(natsPort) });
}

export function startPostgresOnly(dataDir: string, pgPort: number): string {
  return run('start-postgres.sh', {
    DATA_DIR: dataDir,
    PG_PORT: String(pgPort),
    PG_FAST: '1',
    PG_DB: 'attribution_test',
  });
}

/** Stops only the PostgreSQL of `dataDir` (fast shutdown), as an outage would. */
export function stopPostgresOnly(dataDir: string): void {
  const cluster = path.join(dataDir, 'pg', 'cluster');
  execFileSync(
    'bash',
    ['-c', `. "${LOCAL}/lib.sh"; as_pg_user "$(pg_bindir)/pg_ctl" -D "${cluster}" -m fast -w stop`],
    { stdio: 'ignore' },
  );
}

export function stopLocalServices(dataDir: string): void {
  run('stop-all.sh', { DATA_DIR: dataDir });
}

/** Stops the services of `dataDir` and deletes it, with a PostgreSQL cluster kept outside it (make clean). */
export function removeLocalServices(dataDir: string): void {
  run('clean.sh', { DATA_DIR: dataDir, FORCE: '1' });
}
