/** Runs the daemons as real child processes (for SIGKILL and SIGTERM tests). */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { baseEnv, TEST_REHEARSAL } from './harness';

const ROOT = path.join(__dirname, '..', '..');

export interface Child {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * A daemon as a child process. It drains and exits by itself once the test process is gone (EXIT_WITH_PARENT), so
 * a test that fails before it kills its child cannot leave a daemon that later attaches to another run's servers.
 */
export function spawnTs(entry: string, env: Record<string, string>): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, EXIT_WITH_PARENT: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { proc, output: () => out, exited };
}

/** What a command-line script printed, and how it exited. */
export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `scripts/<script>` (as `npm run` would, through tsx) to its end with the test services' environment and
 * `env` on top, `input` on its stdin; resolves with its output and exit code, whatever the code.
 */
export function runScript(
  script: string,
  args: readonly string[],
  env: Record<string, string> = {},
  input = '',
): Promise<ScriptRun> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join('scripts', script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...baseEnv(env) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  proc.stdin.end(input);
  return new Promise((resolve) => proc.once('close', (code) => resolve({ code, stdout, stderr })));
}

export function spawnPipeline(extra: Record<string, string> = {}): Child {
  return spawnTs(
    'pipeline/src/app/main.ts',
    baseEnv({ LOG_LEVEL: 'warn', PIPELINE_FLUSH_MS: '20', ...TEST_REHEARSAL, ...extra }),
  );
}

/**
 * Keeps `n` cores busy (each child spins until killed), so that tests prove the daemons ride out a
 * machine whose CPU is taken by someone else. Returns a function that stops the load.
 */
export function burnCpu(n: number): () => Promise<void> {
  const children = Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGKILL');
          }),
      ),
    );
  };
}
