/**
 * For tests of query plans: a schema of a test's own holding empty copies of some tables, autovacuum off, so that
 * the planner's statistics there are only what the test analyzes, whatever other tests stored in the shared tables;
 * and the nodes of an EXPLAIN (FORMAT JSON) plan.
 */
import type { Db } from '../../storage/db';

/** Creates `schema` afresh with empty copies of `tables` (their columns, keys and indexes). */
export async function createStatisticsSchema(db: Db, schema: string, tables: readonly string[]): Promise<void> {
  await dropStatisticsSchema(db, schema);
  await db.query('test.schema', `create schema ${schema}`);
  for (const t of tables) {
    await db.query('test.table', `create table ${schema}.${t} (like public.${t} including all)`);
    await db.query('test.autovacuum_off', `alter table ${schema}.${t} set (autovacuum_enabled = false)`);
  }
}

export async function dropStatisticsSchema(db: Db, schema: string): Promise<void> {
  await db.query('test.schema', `drop schema if exists ${schema} cascade`);
}

/** A node of an EXPLAIN (FORMAT JSON) plan, with the fields plan tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Shared Hit Blocks'?: number;
  Plans?: PlanNode[];
}

/** The plan's nodes, the root first. */
export const planNodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(planNodes)];
