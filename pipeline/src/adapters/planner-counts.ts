/**
 * The planner's counts of tables that fill faster than autovacuum counts them (docs/decisions.md, Operations,
 * "planner counts of filling tables"). The batch's keyed lookups run with generic plans. When ANALYZE or VACUUM
 * counted a table while it was empty (a rebuild had just emptied it, or a new installation's daemon had not
 * committed yet), the planner believes it holds no row and looks each key up through another index on `store_id`
 * alone, reading the store's whole range once per key. Autovacuum corrects the count only at a later visit, and
 * meanwhile each batch is slower than the last (a 100k-event rebuild took 86 to 105 s instead of 20; a new
 * installation's daemon fell from about 4,400 to 540-920 events/s).
 *
 * So a rebuild vacuums the tables it emptied where the store held most of the rows (no dead entries left to read,
 * and autovacuum has nothing left to do), and a watcher, in the rebuild and in the daemon, analyzes each table
 * whose live rows outgrow the planner's count tenfold (the daemon's only while that count is under a thousand
 * rows): a few ANALYZEs of small tables while they fill, none where the count holds.
 */
import type { Db } from '../../../storage/db';
import type { Logger } from '../../../runtime/logger';

export interface PlannerCountWatch {
  /** One check now (and the ANALYZE it calls for). */
  check(): Promise<void>;
  /** Stops the interval and waits for a check in progress. */
  stop(): Promise<void>;
}

/**
 * Tables whose live rows (at least $2) exceed ten times what the planner counts, where that count is under $3 (if
 * given), of those this role may analyze (their owner's; PostgreSQL would only warn and skip the others, every
 * check).
 */
const STALE_COUNTS_SQL = `select s.relname as table
  from pg_stat_user_tables s join pg_class c on c.oid = s.relid
  where s.relname = any($1::text[]) and s.schemaname = current_schema()
    and s.n_live_tup >= $2 and s.n_live_tup > 10 * greatest(c.reltuples, 0)
    and ($3::float8 is null or c.reltuples < $3)
    and pg_has_role(c.relowner, 'USAGE')`;

/**
 * VACUUM (ANALYZE) of the tables where the rows just deleted (`deleted`, by table) were at least half of what the
 * planner counted: those whose emptied state a later count could see.
 */
export async function vacuumEmptiedTables(db: Db, deleted: ReadonlyMap<string, number>, logger: Logger): Promise<void> {
  const counts = await db.query<{ table: string; reltuples: number }>(
    'statistics.counts',
    `select c.relname as table, c.reltuples from pg_class c
     where c.relname = any($1::text[]) and c.relnamespace = current_schema()::regnamespace`,
    [[...deleted.keys()]],
  );
  const emptied = counts
    .filter((r) => (deleted.get(r.table) ?? 0) > 0 && 2 * (deleted.get(r.table) ?? 0) >= Number(r.reltuples))
    .map((r) => r.table);
  if (emptied.length === 0) return;
  // Only logged when it fails (a statement timeout on a large table, say): the rebuild's results do not depend
  // on it, and the watcher still keeps the counts from reading zero.
  try {
    await db.query('statistics.vacuum', `vacuum (analyze) ${emptied.map((n) => `"${n}"`).join(', ')}`);
    logger.info({ tables: emptied }, 'vacuumed emptied tables');
  } catch (err) {
    logger.warn({ err, tables: emptied }, 'vacuum of emptied tables failed');
  }
}

export function watchPlannerCounts(
  db: Db,
  tables: readonly string[],
  logger: Logger,
  opts: {
    everyMs: number;
    /** Live rows below which a table is left alone. */
    minRows?: number;
    /** Only tables the planner counts below this (any count when absent). */
    countsBelow?: number;
    onAnalyzed?: (tables: readonly string[]) => void;
  },
): PlannerCountWatch {
  const minRows = opts.minRows ?? 100;
  let running: Promise<void> | null = null;
  const check = async (): Promise<void> => {
    const stale = await db.query<{ table: string }>('statistics.stale_counts', STALE_COUNTS_SQL, [
      tables,
      minRows,
      opts.countsBelow ?? null,
    ]);
    if (stale.length === 0) return;
    const names = stale.map((r) => r.table);
    await db.query('statistics.analyze', `analyze ${names.map((n) => `"${n}"`).join(', ')}`);
    logger.info({ tables: names }, 'analyzed tables that outgrew their planner counts');
    opts.onAnalyzed?.(names);
  };
  // One check at a time; a failed one is only logged: no result depends on it, and the next interval tries again.
  const guarded = (): Promise<void> =>
    (running ??= check()
      .catch((err: unknown) => logger.warn({ err }, 'statistics check failed'))
      .finally(() => (running = null)));
  const timer = setInterval(() => void guarded(), opts.everyMs);
  timer.unref();
  return {
    check: guarded,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
