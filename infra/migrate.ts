import path from 'node:path';
import { runner } from 'node-pg-migrate';
import pg from 'pg';

export const MIGRATIONS_DIR = path.join(__dirname, 'migrations');

/**
 * Applies pending migrations (at most `count`, for tests of a migration's data conversion); returns the names
 * applied. Serialised by node-pg-migrate's advisory lock.
 */
export async function migrate(databaseUrl: string, count = Infinity): Promise<string[]> {
  // Our own connection, ended before this returns: node-pg-migrate ends the one it opens without waiting, and a
  // database dropped right after (a test's fresh database) then broke that connection with an unhandled error.
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const applied = await runner({
      dbClient: client,
      dir: MIGRATIONS_DIR,
      direction: 'up',
      migrationsTable: 'schema_migrations',
      count,
      checkOrder: true,
      log: () => undefined,
    });
    return applied.map((m) => m.name);
  } finally {
    await client.end();
  }
}
