/**
 * The analytics views in PostgreSQL (what they hold: `domain/rollups/analytics.ts`): the per-person rows of
 * the persons a batch recomputed replaced by their fresh contributions, and the difference applied to the
 * rollups in the same transaction, their touchpoint texts stored once in touch_groups.
 */
import type { Model } from '../../../contracts/src/attribution';
import type { Query } from '../../../storage/db';
import { type KeyProbe, keyProbeSql, probeKeysOfStores, type StoreKeys } from '../../../storage/key-probe';
import {
  accumulatePart,
  accumulateSpanChange,
  type AnalyticsDelta,
  analyticsRollupRows,
  CONTRIBUTION_PARTS,
  type ContributionPart,
  diffPart,
  emptyDelta,
  type OwnedRow,
  type PersonContribution,
  PERSON_TABLES,
  type PersonTableShape,
} from '../domain/rollups/analytics';
import type { RollupRow, RollupTable } from '../domain/rollups/table';
import { eventLoopTurns } from './beside-statements';
import { applyCounterDelta, type CounterWriteOptions, selectedAs } from './pg-counter-rollup';
import type { BatchRollups } from './pg-batch-rollups';
import { type TouchGroupMemory, TOUCH_GROUP_DIMENSIONS, touchGroupId } from './touch-groups';

// ---------------------------------------------------------------------------------------------------------
// Per-person tables
// ---------------------------------------------------------------------------------------------------------

type PersonColumnShape = PersonTableShape['keys'][number];
/** A per-person row as the statements read it: its fields by name. */
type Owned = OwnedRow<object>;

const allColumns = (t: PersonTableShape): readonly PersonColumnShape[] => [...t.keys, ...t.values];
const fieldOf = (r: Owned, c: PersonColumnShape): unknown => (r.row as Record<string, unknown>)[c.field];

/** A column's value as PostgreSQL returns it, as the domain row holds it (days as YYYY-MM-DD). */
function cellOf(c: PersonColumnShape, v: unknown): string | number | number[] {
  if (c.type === 'integer[]') return (v as Array<number | string>).map(Number);
  if (c.type === 'text' || c.type === 'date') return v as string;
  return Number(v);
}

/**
 * How much of the persons' contributions a plan covers: all of them, or only the product credits of one model
 * (a new data-driven fit changes nothing else, docs/decisions.md, Attribution, "A new fit re-credits").
 */
export interface ContributionScope {
  creditsOf?: Model;
}

const partsOf = (scope: ContributionScope): readonly ContributionPart[] =>
  scope.creditsOf ? ['credits'] : CONTRIBUTION_PARTS;

/** The stored contributions of the given persons (within `scope`), read back by column name. */
export async function loadContributions(
  q: Query,
  storeId: string,
  personIds: readonly string[],
  scope: ContributionScope = {},
): Promise<PersonContribution[]> {
  return (await loadContributionsOfStores(q, [{ storeId, keys: personIds }], scope)).get(storeId)!;
}

/**
 * `loadContributions` for the persons (`keys`) of several stores, one statement per table for all of them
 * (docs/decisions.md, Storage, "A batch's stores written together"); every store given has an entry.
 */
export async function loadContributionsOfStores(
  q: Query,
  persons: readonly StoreKeys[],
  scope: ContributionScope = {},
): Promise<Map<string, PersonContribution[]>> {
  const byStore = new Map(
    persons.map(({ storeId, keys }) => [
      storeId,
      new Map<string, PersonContribution>(keys.map((p) => [p, { personId: p, web: [], products: [], credits: [] }])),
    ]),
  );
  for (const part of partsOf(scope)) {
    const t: PersonTableShape = PERSON_TABLES[part];
    const cols = allColumns(t);
    const probe = {
      select: ['person_id', ...cols.map((c) => selectedAs(c))].join(', '),
      from: t.table,
      key: 'person_id',
    };
    const rows = scope.creditsOf
      ? await modelRowsOf(q, `views.${t.table}_load_model`, probe, persons, scope.creditsOf)
      : await probeKeysOfStores<Record<string, unknown>>(q, `views.${t.table}_load`, probe, persons);
    for (const [storeId, storeRows] of rows) {
      const contributions = byStore.get(storeId)!;
      for (const r of storeRows) {
        const row: Record<string, unknown> = {};
        for (const c of cols) row[c.field] = cellOf(c, r[c.name]);
        (contributions.get(r.person_id as string)?.[part] as object[] | undefined)?.push(row);
      }
    }
  }
  return new Map([...byStore].map(([storeId, contributions]) => [storeId, [...contributions.values()]]));
}

/** The rows of one model (a re-credit's, which covers one store) of the probed persons. */
async function modelRowsOf(
  q: Query,
  tag: string,
  probe: KeyProbe,
  persons: readonly StoreKeys[],
  model: Model,
): Promise<Map<string, Array<Record<string, unknown>>>> {
  const rows = new Map<string, Array<Record<string, unknown>>>();
  for (const { storeId, keys } of persons)
    rows.set(
      storeId,
      keys.length
        ? await q(tag, `select * from (${keyProbeSql(probe)}) p where p.model = $3`, [storeId, keys, model])
        : [],
    );
  return rows;
}

const sqlType = (c: PersonColumnShape): string => (c.type === 'integer[]' ? 'text' : c.type);

/** `unnest` of store_id, person_id and one array parameter per column, from `$3` on. */
const unnestOf = (cols: readonly PersonColumnShape[]): string =>
  `unnest($1::text[], $2::text[], ${cols.map((c, i) => `$${i + 3}::${sqlType(c)}[]`).join(', ')})
   as t(store_id, person_id, ${cols.map((c) => c.name).join(', ')})`;

/** One store's rows of a per-person table. */
interface StoreOwnedRows {
  storeId: string;
  rows: readonly Owned[];
}

/** The parameters of `unnestOf`: the rows' stores and persons, then each column's cells (arrays as PostgreSQL text). */
function paramsOf(cols: readonly PersonColumnShape[], stores: readonly StoreOwnedRows[]): unknown[] {
  const rows = stores.flatMap((s) => s.rows);
  return [
    stores.flatMap((s) => s.rows.map(() => s.storeId)),
    rows.map((r) => r.personId),
    ...cols.map((c) =>
      rows.map((r) => (c.type === 'integer[]' ? `{${(fieldOf(r, c) as number[]).join(',')}}` : fieldOf(r, c))),
    ),
  ];
}

const rowCount = (stores: readonly StoreOwnedRows[]): number => stores.reduce((n, s) => n + s.rows.length, 0);

async function deleteRows(q: Query, t: PersonTableShape, stores: readonly StoreOwnedRows[]): Promise<void> {
  if (rowCount(stores) === 0) return;
  await q(
    `views.${t.table}_delete`,
    `delete from ${t.table} a using ${unnestOf(t.keys)}
     where a.store_id = t.store_id and a.person_id = t.person_id and ${t.keys.map((c) => `a.${c.name} = t.${c.name}`).join(' and ')}`,
    paramsOf(t.keys, stores),
  );
}

async function insertRows(q: Query, t: PersonTableShape, stores: readonly StoreOwnedRows[]): Promise<void> {
  if (rowCount(stores) === 0) return;
  const cols = allColumns(t);
  const selected = cols.map((c) => (c.type === 'integer[]' ? `t.${c.name}::integer[]` : `t.${c.name}`));
  await q(
    `views.${t.table}_insert`,
    `insert into ${t.table} (store_id, person_id, ${cols.map((c) => c.name).join(', ')})
     select t.store_id, t.person_id, ${selected.join(', ')} from ${unnestOf(cols)}`,
    paramsOf(cols, stores),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Rollups
// ---------------------------------------------------------------------------------------------------------

/** A delta as the statements write it: the touch groups it names, and each rollup's rows in stored form. */
interface RollupWrite {
  groups: Map<string, readonly string[]>;
  rollups: Array<{ table: RollupTable; rows: RollupRow[] }>;
}

/** The stored form of `delta` (touchpoint texts as group ids); groups `memory` knows to be there are left out. */
function rollupWriteOf(storeId: string, delta: AnalyticsDelta, memory?: TouchGroupMemory): RollupWrite {
  const groups = new Map<string, readonly string[]>();
  const rollups = analyticsRollupRows(delta, (touch) => {
    const id = touchGroupId(touch);
    if (!memory?.committed.has(storeId, id)) groups.set(id, touch);
    return id;
  });
  return { groups, rollups };
}

/**
 * Writes a delta to the rollups. The touch groups it names are recorded first, in id order and before any
 * rollup row is written, so two batches naming the same new group wait for each other only there.
 */
async function writeRollups(q: Query, storeId: string, w: RollupWrite, opts: CounterWriteOptions = {}): Promise<void> {
  await recordTouchGroups(q, [{ storeId, groups: w.groups }]);
  for (const { table, rows } of w.rollups) await applyCounterDelta(q, storeId, table, rows, opts);
}

/**
 * Applies a delta summed outside a batch (a repair's) to the rollups, recording every touch group it names;
 * `cleared` when the store has no rollup rows.
 */
export async function applyAnalyticsDelta(
  q: Query,
  storeId: string,
  delta: AnalyticsDelta,
  opts: CounterWriteOptions = {},
): Promise<void> {
  await writeRollups(q, storeId, rollupWriteOf(storeId, delta), opts);
}

/** Touch groups of one store to record. */
export interface StoreTouchGroups {
  storeId: string;
  groups: ReadonlyMap<string, readonly string[]>;
}

/** Records the touch groups of one or more stores in one statement, in (store, id) order. */
export async function recordTouchGroups(q: Query, entries: readonly StoreTouchGroups[]): Promise<void> {
  const stores: string[] = [];
  const ids: string[] = [];
  const values: Array<readonly string[]> = [];
  for (const { storeId, groups } of [...entries].sort((a, b) => (a.storeId < b.storeId ? -1 : 1))) {
    for (const id of [...groups.keys()].sort()) {
      stores.push(storeId);
      ids.push(id);
      values.push(groups.get(id)!);
    }
  }
  if (ids.length === 0) return;
  await q(
    'views.touch_groups_insert',
    `insert into touch_groups (store_id, group_id, ${TOUCH_GROUP_DIMENSIONS.join(', ')})
     select * from unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
     on conflict (store_id, group_id) do nothing`,
    [stores, ids, ...TOUCH_GROUP_DIMENSIONS.map((_, i) => values.map((v) => v[i]))],
  );
}

// ---------------------------------------------------------------------------------------------------------
// A batch's analytics
// ---------------------------------------------------------------------------------------------------------

type PartChange<P extends ContributionPart> = { part: P } & ReturnType<typeof diffPart<P>>;

/** What writing a batch's analytics does, worked out before any of it is written. */
export interface AnalyticsPlan {
  /** Per per-person table: the stored rows that go and the fresh rows that are added. */
  rows: Array<PartChange<ContributionPart>>;
  /** The rollup rows to write; none when the difference went into the caller's delta. */
  rollups?: RollupWrite;
}

/**
 * Plans making the stored contributions of `personIds` (the recomputed persons and any merged into them)
 * equal to `fresh`: the per-person rows that differ, and the difference to the rollups (added to `into` when
 * given, for the caller to apply once; `memory` spares the touch groups already recorded). The rollups that sum
 * the per-person rows change by exactly the added rows less the gone ones, so the rows a batch leaves alone
 * (most of a returning person's history) cost nothing more. It only reads: it loads the stored contributions at
 * once and may run beside the batch's writes, computing `fresh` lazily and giving the event loop a turn every
 * `sliceMs` (0: never) so that their statements proceed meanwhile.
 */
export async function planAnalytics(
  q: Query,
  storeId: string,
  personIds: readonly string[],
  fresh: Iterable<PersonContribution>,
  {
    into,
    memory,
    sliceMs = 0,
    scope = {},
  }: { into?: AnalyticsDelta; memory?: TouchGroupMemory; sliceMs?: number; scope?: ContributionScope } = {},
): Promise<AnalyticsPlan> {
  const stored = loadContributions(q, storeId, personIds, scope);
  // Settled below; until then a failure must not count as unhandled (the transaction fails on it anyway).
  stored.catch(() => undefined);
  const turn = eventLoopTurns(sliceMs);
  const freshOf = await collectFresh(fresh, scope, turn);
  return diffContributions(storeId, await stored, freshOf, { into, memory, scope, turn });
}

/** The recomputed persons of one store and their fresh contributions (see `planAnalytics`). */
export interface StoreContributions {
  storeId: string;
  personIds: readonly string[];
  fresh: Iterable<PersonContribution>;
}

/**
 * `planAnalytics` for several stores (a batch's), the stored contributions of all of them loaded at once; each
 * store's plan holds its own rollup rows.
 */
export async function planAnalyticsOfStores(
  q: Query,
  entries: readonly StoreContributions[],
  { memory, sliceMs = 0 }: { memory?: TouchGroupMemory; sliceMs?: number } = {},
): Promise<Map<string, AnalyticsPlan>> {
  const stored = loadContributionsOfStores(
    q,
    entries.map((e) => ({ storeId: e.storeId, keys: e.personIds })),
  );
  stored.catch(() => undefined);
  const turn = eventLoopTurns(sliceMs);
  const fresh: Array<Map<string, PersonContribution>> = [];
  for (const e of entries) fresh.push(await collectFresh(e.fresh, {}, turn));
  const old = await stored;
  const plans = new Map<string, AnalyticsPlan>();
  for (const [i, { storeId }] of entries.entries())
    plans.set(storeId, await diffContributions(storeId, old.get(storeId)!, fresh[i]!, { memory, scope: {}, turn }));
  return plans;
}

/** The fresh contributions by person (within `scope`), giving the event loop its turns. */
async function collectFresh(
  fresh: Iterable<PersonContribution>,
  scope: ContributionScope,
  turn: () => Promise<void>,
): Promise<Map<string, PersonContribution>> {
  const freshOf = new Map<string, PersonContribution>();
  for (const c of fresh) {
    freshOf.set(c.personId, scope.creditsOf ? creditsOfModel(c, scope.creditsOf) : c);
    await turn();
  }
  return freshOf;
}

/** The plan that makes one store's `old` contributions equal to `freshOf`. */
async function diffContributions(
  storeId: string,
  old: readonly PersonContribution[],
  freshOf: ReadonlyMap<string, PersonContribution>,
  {
    into,
    memory,
    scope,
    turn,
  }: { into?: AnalyticsDelta; memory?: TouchGroupMemory; scope: ContributionScope; turn: () => Promise<void> },
): Promise<AnalyticsPlan> {
  const delta = into ?? emptyDelta();
  const rows: AnalyticsPlan['rows'] = [];
  for (const part of partsOf(scope)) {
    const { gone, added } = diffPart(part, old, freshOf.values());
    accumulatePart(
      delta,
      part,
      gone.map((r) => r.row),
      -1,
    );
    accumulatePart(
      delta,
      part,
      added.map((r) => r.row),
      1,
    );
    rows.push({ part, gone, added });
    await turn();
  }
  // With one model's credits, the persons' web and product rows, and so their spans, are not in the plan.
  if (!scope.creditsOf) {
    const oldOf = new Map(old.map((o) => [o.personId, o]));
    for (const p of new Set([...oldOf.keys(), ...freshOf.keys()])) {
      accumulateSpanChange(delta, oldOf.get(p), freshOf.get(p));
      await turn();
    }
  }
  return { rows, rollups: into ? undefined : rollupWriteOf(storeId, delta, memory) };
}

/** A contribution with only the product credits of `model`. */
const creditsOfModel = (c: PersonContribution, model: Model): PersonContribution => ({
  personId: c.personId,
  web: [],
  products: [],
  credits: c.credits.filter((r) => r.model === model),
});

/** Writes a plan's per-person rows. */
export async function writeAnalyticsRows(q: Query, storeId: string, plan: AnalyticsPlan): Promise<void> {
  await writeAnalyticsRowsOfStores(q, [{ storeId, plan }]);
}

/**
 * Writes the per-person rows of several stores' plans: per table, one delete and one insert for all of them
 * (docs/decisions.md, Storage, "A batch's stores written together").
 */
export async function writeAnalyticsRowsOfStores(
  q: Query,
  plans: ReadonlyArray<{ storeId: string; plan: AnalyticsPlan }>,
): Promise<void> {
  for (const part of CONTRIBUTION_PARTS) {
    const changes = plans.flatMap(({ storeId, plan }) =>
      plan.rows.filter((r) => r.part === part).map((r) => ({ storeId, gone: r.gone, added: r.added })),
    );
    if (changes.length === 0) continue;
    const t: PersonTableShape = PERSON_TABLES[part];
    await deleteRows(
      q,
      t,
      changes.map((c) => ({ storeId: c.storeId, rows: c.gone })),
    );
    await insertRows(
      q,
      t,
      changes.map((c) => ({ storeId: c.storeId, rows: c.added })),
    );
  }
}

/** Writes a plan's rollup rows. */
export async function writeAnalyticsRollups(q: Query, storeId: string, plan: AnalyticsPlan): Promise<void> {
  if (plan.rollups) await writeRollups(q, storeId, plan.rollups);
}

/**
 * Queues a plan's rollup rows with the batch's (`memory` as given to the plan: the touch groups are remembered
 * once the batch commits).
 */
export function queueAnalyticsRollups(
  into: BatchRollups,
  storeId: string,
  plan: AnalyticsPlan,
  memory: TouchGroupMemory,
): void {
  if (!plan.rollups) return;
  const { groups, rollups } = plan.rollups;
  into.addTouchGroups(storeId, groups);
  if (groups.size) memory.afterCommit(() => memory.committed.add(storeId, [...groups.keys()]));
  into.add(storeId, rollups);
}

/**
 * Makes the stored contributions of `personIds` equal to `fresh`, touching only rows that differ, and applies
 * the difference to the rollups (or adds it to `into`, for the caller to apply once).
 */
export async function writeAnalytics(
  q: Query,
  storeId: string,
  personIds: readonly string[],
  fresh: readonly PersonContribution[],
  { into }: { into?: AnalyticsDelta } = {},
): Promise<void> {
  const plan = await planAnalytics(q, storeId, personIds, fresh, { into });
  await writeAnalyticsRows(q, storeId, plan);
  await writeAnalyticsRollups(q, storeId, plan);
}
