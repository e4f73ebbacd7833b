import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDotenv, redact, resolveConnection } from './connection-env';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'conn-env-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** A local data dir as make run leaves it, with the server's pid file naming `pid`. */
function localData(dir: string, pid: number): void {
  fs.mkdirSync(path.join(dir, 'pg', 'cluster'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'nats'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'pg', 'cluster', 'postmaster.pid'), `${pid}\n/data\n1700000000\n5433\n`);
  fs.writeFileSync(path.join(dir, 'nats', 'nats.pid'), String(pid));
  fs.writeFileSync(path.join(dir, 'pg.url'), 'postgres://attrib:secret@127.0.0.1:5433/attribution\n');
  fs.writeFileSync(path.join(dir, 'nats.url'), 'nats://127.0.0.1:4222\n');
}

describe('parseDotenv', () => {
  it('reads KEY=value lines, with quotes, export and comments', () => {
    expect(parseDotenv('# c\nA=1\nexport B="two words"\n  C = \'x\'  \n\nnot a line\nD=')).toEqual({
      A: '1',
      B: 'two words',
      C: 'x',
      D: '',
    });
  });
});

describe('resolveConnection', () => {
  it('prefers the environment, then .env, then the running local services', () => {
    localData(path.join(root, '.data'), process.pid);
    expect(resolveConnection('DATABASE_URL', { DATABASE_URL: 'postgres://env' }, root)).toEqual({
      url: 'postgres://env',
      from: 'environment',
    });
    expect(resolveConnection('DATABASE_URL', {}, root)).toEqual({
      url: 'postgres://attrib:secret@127.0.0.1:5433/attribution',
      from: 'local',
    });
    expect(resolveConnection('NATS_URL', {}, root)).toEqual({ url: 'nats://127.0.0.1:4222', from: 'local' });
    fs.writeFileSync(path.join(root, '.env'), 'DATABASE_URL=postgres://dotenv\n');
    expect(resolveConnection('DATABASE_URL', {}, root)).toEqual({ url: 'postgres://dotenv', from: '.env' });
  });

  it('ignores local services that are not running, and honours DATA_DIR', () => {
    // A pid that cannot be alive: stale pid files after a crash or make stop.
    localData(path.join(root, '.data'), 2 ** 22 + 1);
    expect(resolveConnection('DATABASE_URL', {}, root)).toBeNull();
    expect(resolveConnection('NATS_URL', {}, root)).toBeNull();
    localData(path.join(root, 'elsewhere'), process.pid);
    expect(resolveConnection('DATABASE_URL', { DATA_DIR: 'elsewhere' }, root)?.from).toBe('local');
  });
});

it('redacts the password of a URL', () => {
  expect(redact('postgres://attrib:s3cr3t@127.0.0.1:5433/db')).toBe('postgres://attrib:***@127.0.0.1:5433/db');
  expect(redact('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
});
