import path from 'node:path';
import { runner } from 'node-pg-migrate';

export const MIGRATIONS_DIR = path.join(__dirname, 'migrations');

/** Applies pending migrations; returns the names applied. Serialised by node-pg-migrate's advisory lock. */
export async function migrate(databaseUrl: string): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'schema_migrations',
    count: Infinity,
    checkOrder: true,
    log: () => undefined,
  });
  return applied.map((m) => m.name);
}
