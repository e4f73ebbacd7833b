/**
 * Where the command-line tools find NATS and PostgreSQL, in this order: the environment, the project's `.env`
 * file (as `make run` reads it), then the local services that `make run` started under ./.data (or $DATA_DIR)
 * when they are running. Anything but the environment is said on stderr, so a newcomer knows which database
 * a command changed.
 */
import fs from 'node:fs';
import path from 'node:path';

export type ConnectionVar = 'DATABASE_URL' | 'NATS_URL';

const ROOT = path.join(__dirname, '..');

/** `KEY=value` lines of a dotenv file (quotes stripped, comments and blank lines skipped). */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m) continue;
    let value = m[2]!;
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1);
    out[m[1]!] = value;
  }
  return out;
}

function readIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** True when the process of the pid file lives (EPERM: it lives, under another account). */
function pidFileAlive(file: string): boolean {
  const pid = Number.parseInt(readIfExists(file)?.split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The URL of a local service started by `make run` under `dataDir`, when it is running. */
export function localServiceUrl(name: ConnectionVar, dataDir: string): string | null {
  const running =
    name === 'DATABASE_URL'
      ? pidFileAlive(path.join(dataDir, 'pg', 'cluster', 'postmaster.pid'))
      : pidFileAlive(path.join(dataDir, 'nats', 'nats.pid'));
  if (!running) return null;
  return readIfExists(path.join(dataDir, name === 'DATABASE_URL' ? 'pg.url' : 'nats.url'))?.trim() || null;
}

export interface Resolved {
  url: string;
  from: 'environment' | '.env' | 'local';
}

export function resolveConnection(
  name: ConnectionVar,
  env: Record<string, string | undefined> = process.env,
  root = ROOT,
): Resolved | null {
  const given = env[name];
  if (given) return { url: given, from: 'environment' };
  const dotenv = readIfExists(path.join(root, '.env'));
  const fromFile = dotenv ? parseDotenv(dotenv)[name] : undefined;
  if (fromFile) return { url: fromFile, from: '.env' };
  const local = localServiceUrl(name, path.resolve(root, env.DATA_DIR ?? '.data'));
  return local ? { url: local, from: 'local' } : null;
}

/** The URL, or exit 2 with what to do; says on stderr when it did not come from the environment. */
export function requireConnection(name: ConnectionVar, cli: string): string {
  const found = resolveConnection(name);
  if (!found) {
    const what = name === 'DATABASE_URL' ? 'PostgreSQL' : 'nats-server';
    process.stderr.write(
      `${cli}: ${name} is not set and no local ${what} of make run is running (start it with make run, or export ${name})\n`,
    );
    process.exit(2);
  }
  if (found.from !== 'environment') {
    const where = found.from === '.env' ? 'from .env' : 'of the local services started by make run';
    process.stderr.write(`${cli}: ${name} is not set; using the one ${where} (${redact(found.url)})\n`);
  }
  return found.url;
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}
