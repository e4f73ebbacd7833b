/**
 * What the `store connection ...` commands share (scripts/connection-cli.ts for store platforms,
 * scripts/ad-connection-cli.ts for ad platforms): exit codes, the database, and the secret box their
 * credentials are sealed with.
 */
import { createDb, type Db } from '../storage/db';
import { createSecretBox, parseSecretsKey, type SecretBox } from '../storage/secret-box';
import { getStore } from '../storage/store-registry';
import { requireConnection } from './connection-env';

/** A failure with its exit code: 1 usage, 2 environment, 3 unknown store or connection. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Wraps a command's action: a failure is one line on stderr and an exit code, never a stack trace. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await fn(...args);
    } catch (err) {
      console.error(`store connection: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = err instanceof CliError ? err.exitCode : 1;
    }
  };
}

export async function withDb<T>(fn: (db: Db) => Promise<T>): Promise<T> {
  const db = createDb({
    connectionString: requireConnection('DATABASE_URL', 'store connection'),
    service: 'store-cli',
    max: 2,
  });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

export async function requireStore(db: Db, storeId: string): Promise<void> {
  if (!(await getStore(db, storeId))) throw new CliError(`no store with id ${storeId}`, 3);
}

/** The box of SECRETS_KEY; `user` names the daemon that must be given the same key. */
export function requireSecretBox(user: string): SecretBox {
  const text = process.env.SECRETS_KEY ?? '';
  if (text.trim() === '') {
    throw new CliError(
      `SECRETS_KEY is not set: it encrypts connection secrets at rest and ${user} needs the same value ` +
        '(32 random bytes, base64: openssl rand -base64 32; see docs/operations.md)',
      2,
    );
  }
  try {
    return createSecretBox(parseSecretsKey(text));
  } catch (err) {
    throw new CliError(`SECRETS_KEY ${(err as Error).message}`, 2);
  }
}
