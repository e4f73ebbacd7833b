/** Parses configuration from the environment once at boot; every problem is reported together. */
import { parseSecretsKey } from '../storage/secret-box';
import cron from 'node-cron';
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
): Readonly<z.output<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`));
  }
  return Object.freeze(result.data);
}

/** Parses "all", "3", "0-7" or "0-3,8,10-11" into sorted partition numbers below `count`. */
export function parsePartitionSet(spec: string, count: number): number[] {
  if (spec.trim() === 'all') return Array.from({ length: count }, (_, i) => i);
  const set = new Set<number>();
  for (const part of spec.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!m) throw new Error(`"${part}" is not a partition or range`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from || to >= count) throw new Error(`"${part}" is outside 0-${count - 1}`);
    for (let p = from; p <= to; p++) set.add(p);
  }
  return [...set].sort((a, b) => a - b);
}

/** Shared field schemas of the processes' configurations. */
export const envInt = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

/** A required string; the message shows an example of a valid value. */
export const envRequired = (example: string) => {
  const error = `is required (e.g. ${example})`;
  return z.string({ error }).min(1, error);
};

/** How long a daemon waits for NATS, PostgreSQL and its stream at start-up before it gives up. */
export const envStartupTimeout = () => envInt(300_000, 0);

/**
 * `true`: the daemon drains and exits when the process that started it is gone (make run sets it, so that
 * daemons never outlive a killed `make run`).
 */
export const envExitWithParent = () =>
  z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true');

export const envLogLevel = () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/** A cron expression (node-cron syntax), checked on its own so every problem is reported together. */
export const envCron = (def: string) =>
  z
    .string()
    .default(def)
    .refine((v) => cron.validate(v), { message: 'is not a cron expression (e.g. "17 * * * *")' });

/** A 32-byte secrets key in base64 (`SECRETS_KEY`), or null when unset; a malformed key is a configuration error. */
export const envSecretsKey = () =>
  z
    .string()
    .default('')
    .transform((text, ctx) => {
      if (text.trim() === '') return null;
      try {
        return parseSecretsKey(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    });
