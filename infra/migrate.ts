import path from 'node:path';
import { runner } from 'node-pg-migrate';

export const MIGRATIONS_DIR = path.join(__dirname, 'migrations');

/**
 * Applies pending migrations (at most `count`, for tests of a migration's data conversion); returns the names
 * applied. Serialised by node-pg-migrate's advisory lock.
 */
export async function migrate(databaseUrl: string, count = Infinity): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'schema_migrations',
    count,
    checkOrder: true,
    log: () => undefined,
  });
  return applied.map((m) => m.name);
}
