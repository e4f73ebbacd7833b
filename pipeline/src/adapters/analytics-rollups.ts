/**
 * The analytics views (docs/product.md, Analytics; storage in docs/decisions.md, Analytics): what each person
 * adds (web_person_days, product_person_days, product_person_credits) and the rollups derived from it
 * (web_daily, web_users, product_daily, product_users, product_credits_daily). The maintainer replaces the
 * contributions of the persons it recomputed and applies the difference to the rollups in the same
 * transaction; the reconciliation sums the recomputed contributions the same way and compares.
 */
import type { Query } from '../../../storage/db';
import { keyProbeSql } from '../../../storage/key-probe';
import { eventLoopTurns } from './beside-statements';
import { compositeKey } from '../domain/composite-key';
import { addValues } from '../domain/credit-sums';
import {
  analyticsOfPerson,
  type PersonAnalytics,
  type ProductCreditRow,
  type ProductRow,
  productSpanInput,
  productUserSpans,
  type WebRow,
} from '../domain/analytics';
import { webSpanInput, type WebUserGroup, WebUserSums } from '../domain/web-user-spans';
import type { PersonFacts, PersonView } from '../domain/recompute-person';
import { type ProductSighting, productInfoOfEvent, supersedes } from '../domain/facts';
import type { StorefrontEvent } from '../../../contracts/src/events';
import { TOUCH_GROUP_DIMENSIONS, touchGroupId } from './touch-group-id';
import {
  applyCounterDelta,
  type CounterWriteOptions,
  type CounterColumn,
  type CounterRow,
  type CounterTable,
  selectedAs,
} from './pg-counter-rollup';

type SqlType = 'date' | 'text' | 'smallint' | 'integer' | 'bigint' | 'integer[]';

interface Column {
  name: string;
  type: SqlType;
}

interface TableShape {
  table: string;
  keys: readonly Column[];
  values: readonly Column[];
}

const text = (name: string) => ({ name, type: 'text' }) as const;
const date = (name: string) => ({ name, type: 'date' }) as const;
const big = (name: string) => ({ name, type: 'bigint' }) as const;
const int = (name: string) => ({ name, type: 'integer' }) as const;
const TOUCH = TOUCH_GROUP_DIMENSIONS.map(text);
const TOUCH_NAMES = new Set<string>(TOUCH_GROUP_DIMENSIONS);

export type AnalyticsRollup = 'web_daily' | 'web_users' | 'product_daily' | 'product_users' | 'product_credits_daily';

interface RollupShape extends TableShape, CounterTable {
  table: AnalyticsRollup;
  /** The key cells of a delta and of the reconciliation: with the five touchpoint texts where grouped. */
  keys: readonly CounterColumn[];
  values: readonly CounterColumn[];
  /**
   * Where the five touchpoint texts start in `keys`, for the tables that store them as one touch group id
   * (`group_id`, with the texts in touch_groups).
   */
  touchAt?: number;
}

const WEB_DAILY: RollupShape = {
  table: 'web_daily',
  keys: [date('day'), ...TOUCH],
  values: ['sessions', 'events', 'engaged_sessions', 'new_users'].map(big),
  touchAt: 1,
};
const WEB_USERS: RollupShape = {
  table: 'web_users',
  keys: [{ name: 'dims', type: 'smallint' } as const, date('day'), ...TOUCH, date('prev_day')],
  values: ['users', 'product_view_users', 'atc_users', 'checkout_users', 'payment_info_users', 'purchase_users'].map(
    int,
  ),
  touchAt: 2,
};

/** The columns a rollup stores: its keys with the touchpoint texts replaced by `group_id`. */
function storedShape(shape: RollupShape): CounterTable {
  const at = shape.touchAt;
  if (at === undefined) return shape;
  const keys = [...shape.keys];
  keys.splice(at, TOUCH.length, big('group_id'));
  return { table: shape.table, keys, values: shape.values };
}

const PRODUCT_DAILY: RollupShape = {
  table: 'product_daily',
  keys: [date('day'), text('product_id')],
  values: [
    'views',
    'add_to_cart',
    'checkouts',
    'purchases',
    'units',
    'revenue_micros',
    'cogs_micros',
    'new_customer_purchases',
  ].map(big),
};
const PRODUCT_USERS: RollupShape = {
  table: 'product_users',
  keys: [date('day'), text('product_id'), date('prev_day')],
  values: ['view_users', 'add_to_cart_users'].map(int),
};
const PRODUCT_CREDITS: RollupShape = {
  table: 'product_credits_daily',
  keys: [date('day'), text('model'), text('product_id'), ...TOUCH],
  values: ['weight', 'value_micros', 'units'].map(big),
};

/** The rollup tables, in the order a batch updates them (one order for every worker). */
export const ANALYTICS_ROLLUPS: readonly RollupShape[] = [
  WEB_DAILY,
  WEB_USERS,
  PRODUCT_DAILY,
  PRODUCT_USERS,
  PRODUCT_CREDITS,
];

const WEB_PERSON: TableShape = {
  table: 'web_person_days',
  keys: [text('person_id'), date('day'), ...TOUCH],
  values: [
    int('sessions'),
    int('events'),
    int('engaged_sessions'),
    int('new_users'),
    { name: 'level', type: 'smallint' },
    { name: 'event_counts', type: 'integer[]' },
  ],
};
const PRODUCT_PERSON: TableShape = {
  table: 'product_person_days',
  keys: [text('person_id'), date('day'), text('product_id')],
  values: [
    int('views'),
    int('add_to_cart'),
    int('checkouts'),
    int('purchases'),
    big('units'),
    big('revenue_micros'),
    big('cogs_micros'),
    int('new_customer_purchases'),
  ],
};
const PRODUCT_PERSON_CREDITS: TableShape = {
  table: 'product_person_credits',
  keys: [text('person_id'), date('day'), text('model'), text('product_id'), ...TOUCH],
  values: ['weight', 'value_micros', 'units'].map(big),
};

/** The per-person tables, by the part of a contribution each holds. */
const PERSON_TABLES = [
  { shape: WEB_PERSON, part: 'web' },
  { shape: PRODUCT_PERSON, part: 'products' },
  { shape: PRODUCT_PERSON_CREDITS, part: 'credits' },
] as const;
type ContributionPart = (typeof PERSON_TABLES)[number]['part'];

type Cell = string | number | number[];

// ---------------------------------------------------------------------------------------------------------
// Rows of the per-person tables
// ---------------------------------------------------------------------------------------------------------

const webCells = (p: string, r: WebRow): Cell[] => [
  p,
  r.day,
  r.channel,
  r.source,
  r.medium,
  r.campaign,
  r.landing_page,
  r.sessions,
  r.events,
  r.engagedSessions,
  r.newUsers,
  r.level,
  r.eventCounts,
];
const productCells = (p: string, r: ProductRow): Cell[] => [
  p,
  r.day,
  r.productId,
  r.views,
  r.addToCart,
  r.checkouts,
  r.purchases,
  r.units,
  r.revenueMicros,
  r.cogsMicros,
  r.newCustomerPurchases,
];
const creditCells = (p: string, r: ProductCreditRow): Cell[] => [
  p,
  r.day,
  r.model,
  r.productId,
  r.channel,
  r.source,
  r.medium,
  r.campaign,
  r.landingPage,
  r.weight,
  r.valueMicros,
  r.units,
];

function webRowOf(c: readonly Cell[]): WebRow {
  return {
    day: c[1] as string,
    channel: c[2] as string,
    source: c[3] as string,
    medium: c[4] as string,
    campaign: c[5] as string,
    landing_page: c[6] as string,
    sessions: c[7] as number,
    events: c[8] as number,
    engagedSessions: c[9] as number,
    newUsers: c[10] as number,
    level: c[11] as number,
    eventCounts: c[12] as number[],
  };
}

function productRowOf(c: readonly Cell[]): ProductRow {
  return {
    day: c[1] as string,
    productId: c[2] as string,
    views: c[3] as number,
    addToCart: c[4] as number,
    checkouts: c[5] as number,
    purchases: c[6] as number,
    units: c[7] as number,
    revenueMicros: c[8] as number,
    cogsMicros: c[9] as number,
    newCustomerPurchases: c[10] as number,
  };
}

/**
 * A contribution's web and product rows as the domain reads them, converted once: a batch reads them for the
 * span inputs, the spans and the span delta. A fresh contribution keeps the rows it was made from.
 */
const domainRows = new WeakMap<PersonContribution, { web: WebRow[]; products: ProductRow[] }>();

function rowsOf(c: PersonContribution): { web: WebRow[]; products: ProductRow[] } {
  let rows = domainRows.get(c);
  if (!rows) {
    rows = { web: c.web.map(webRowOf), products: c.products.map(productRowOf) };
    domainRows.set(c, rows);
  }
  return rows;
}

/** The contribution of one person, as rows of the three per-person tables. */
export interface PersonContribution {
  personId: string;
  web: Cell[][];
  products: Cell[][];
  credits: Cell[][];
}

export function contributionOf(facts: PersonFacts, view: PersonView, timezone: string): PersonContribution {
  const a: PersonAnalytics = analyticsOfPerson(facts, view, timezone);
  const p = view.personId;
  const c = {
    personId: p,
    web: a.web.map((r) => webCells(p, r)),
    products: a.products.map((r) => productCells(p, r)),
    credits: a.productCredits.map((r) => creditCells(p, r)),
  };
  domainRows.set(c, { web: a.web, products: a.products });
  return c;
}

/** The contributions of recomputed persons (`facts[i]` with `views[i]`), computed as they are read. */
export function* contributionsOf(
  facts: readonly PersonFacts[],
  views: readonly PersonView[],
  timezone: string,
): Generator<PersonContribution> {
  for (let i = 0; i < facts.length; i++) yield contributionOf(facts[i]!, views[i]!, timezone);
}

// ---------------------------------------------------------------------------------------------------------
// Rollup deltas
// ---------------------------------------------------------------------------------------------------------

/** The rollups summed by text key: all but web_users. */
type KeyedRollup = Exclude<AnalyticsRollup, 'web_users'>;

/** Differences to the rollups: per table, key cells joined by NUL -> value deltas; web_users as span sums. */
export interface AnalyticsDelta {
  keyed: Map<KeyedRollup, Map<string, number[]>>;
  webUsers: WebUserSums;
}

export function emptyDelta(): AnalyticsDelta {
  return {
    keyed: new Map(
      ANALYTICS_ROLLUPS.filter((t) => t.table !== 'web_users').map((t) => [
        t.table as KeyedRollup,
        new Map<string, number[]>(),
      ]),
    ),
    webUsers: new WebUserSums(),
  };
}

/** A table's entries of a delta, by text key (the reconciliation's form). */
function entriesOf(delta: AnalyticsDelta, table: AnalyticsRollup): Map<string, number[]> {
  return table === 'web_users' ? delta.webUsers.entries() : delta.keyed.get(table)!;
}

/** The text key of each rollup's delta rows: its key columns, touchpoint texts included where grouped. */
const DELTA_KEYS = new Map(
  ANALYTICS_ROLLUPS.map((shape) => [shape.table, compositeKey(shape.keys.map((c) => c.name))]),
);
const WEB_DAILY_KEY = DELTA_KEYS.get('web_daily')!;
const PRODUCT_DAILY_KEY = DELTA_KEYS.get('product_daily')!;
const PRODUCT_CREDITS_KEY = DELTA_KEYS.get('product_credits_daily')!;

/** Adds `sign` times what rows of one per-person table add to the rollups that sum them. */
function accumulateRows(into: AnalyticsDelta, part: ContributionPart, rows: readonly Cell[][], sign: 1 | -1): void {
  if (part === 'web') {
    const webDaily = into.keyed.get('web_daily')!;
    for (const r of rows) addValues(webDaily, WEB_DAILY_KEY.ofParts(r.slice(1, 7)), r.slice(7, 11) as number[], sign);
  } else if (part === 'products') {
    const productDaily = into.keyed.get('product_daily')!;
    for (const r of rows)
      addValues(productDaily, PRODUCT_DAILY_KEY.ofParts(r.slice(1, 3)), r.slice(3) as number[], sign);
  } else {
    const productCredits = into.keyed.get('product_credits_daily')!;
    for (const r of rows)
      addValues(productCredits, PRODUCT_CREDITS_KEY.ofParts(r.slice(1, 9)), r.slice(9) as number[], sign);
  }
}

/** Adds `sign` times a person's product_users span rows. */
function accumulateProductSpans(into: AnalyticsDelta, rows: readonly ProductRow[], sign: 1 | -1): void {
  const productUsers = into.keyed.get('product_users')!;
  for (const [k, counts] of productUserSpans(rows)) addValues(productUsers, k, counts, sign);
}

/** Adds `sign` times everything one person's contribution puts into the rollups. */
export function accumulateContribution(into: AnalyticsDelta, c: PersonContribution, sign: 1 | -1): void {
  for (const { part } of PERSON_TABLES) accumulateRows(into, part, c[part], sign);
  into.webUsers.addSpans(rowsOf(c).web, sign);
  accumulateProductSpans(into, rowsOf(c).products, sign);
}

/** A delta's non-zero entries, by sorted key (concurrent workers lock rollup rows in one order). */
function nonZero(delta: Map<string, number[]>): Array<[string, number[]]> {
  return [...delta].filter(([, v]) => v.some((x) => x !== 0)).sort(([a], [b]) => (a < b ? -1 : 1));
}

/** `unnest` of one array parameter per column, from `$first` on. */
function unnestOf(cols: readonly Column[], first: number): string {
  const params = cols.map((c, i) => `$${first + i}::${c.type === 'integer[]' ? 'text' : c.type}[]`);
  return `unnest(${params.join(', ')}) as t(${cols.map((c) => c.name).join(', ')})`;
}

const selectOf = (cols: readonly Column[]): string =>
  cols.map((c) => (c.type === 'integer[]' ? `t.${c.name}::integer[]` : `t.${c.name}`)).join(', ');

/** Column-wise arrays of rows, as the parameters of `unnestOf`. */
function columnsOf(cols: readonly Column[], rows: readonly (readonly Cell[])[]): unknown[] {
  return cols.map((c, i) => rows.map((r) => (c.type === 'integer[]' ? `{${(r[i] as number[]).join(',')}}` : r[i])));
}

/**
 * Touch groups a worker knows to be in touch_groups: committed by one of its own batches (rows of that table
 * are never deleted). A batch names hundreds of groups, nearly all of them old; inserting them again would
 * cost a statement as large as the web_users update. Only committed groups count: one inserted by a batch
 * that then rolled back is not there.
 */
export class CommittedTouchGroups {
  private readonly ids = new Map<string, Set<string>>();
  private size = 0;

  constructor(private readonly limit = 200_000) {}

  has(storeId: string, id: string): boolean {
    return this.ids.get(storeId)?.has(id) ?? false;
  }

  add(storeId: string, ids: readonly string[]): void {
    if (this.size + ids.length > this.limit) {
      this.ids.clear();
      this.size = 0;
    }
    let known = this.ids.get(storeId);
    if (!known) {
      known = new Set();
      this.ids.set(storeId, known);
    }
    for (const id of ids) {
      if (known.has(id)) continue;
      known.add(id);
      this.size++;
    }
  }
}

/** A batch's view of the committed groups: which it may skip, and how to learn its own once committed. */
export interface TouchGroupMemory {
  committed: CommittedTouchGroups;
  afterCommit: (fn: () => void) => void;
}

/** A delta as the statements write it: the touch groups it names, and each rollup's rows in stored form. */
interface RollupWrite {
  groups: Map<string, readonly string[]>;
  rollups: Array<{ shape: CounterTable; rows: CounterRow[] }>;
}

/** The stored form of `delta` (touchpoint texts as group ids); groups `memory` knows to be there are left out. */
function rollupWriteOf(storeId: string, delta: AnalyticsDelta, memory?: TouchGroupMemory): RollupWrite {
  const groups = new Map<string, readonly string[]>();
  const groupIdOf = (touch: readonly string[]): string => {
    const id = touchGroupId(touch);
    if (!memory?.committed.has(storeId, id)) groups.set(id, touch);
    return id;
  };
  const rollups = ANALYTICS_ROLLUPS.map((shape) => {
    const rows: CounterRow[] = [];
    if (shape.table === 'web_users') {
      // A group's id once, for all its rows.
      const ids = new Map<WebUserGroup, string>();
      delta.webUsers.forEachRow((g, day, prevDay, values) => {
        let id = ids.get(g);
        if (id === undefined) {
          id = groupIdOf(g.values);
          ids.set(g, id);
        }
        rows.push({ key: [g.dims, day, id, prevDay], values });
      });
      return { shape: storedShape(shape), rows };
    }
    const at = shape.touchAt;
    const keyOf = DELTA_KEYS.get(shape.table)!;
    for (const [k, values] of delta.keyed.get(shape.table)!) {
      if (values.every((v) => v === 0)) continue;
      const key = keyOf.parts(k);
      if (at !== undefined) key.splice(at, TOUCH.length, groupIdOf(key.slice(at, at + TOUCH.length)));
      rows.push({ key, values });
    }
    return { shape: storedShape(shape), rows };
  });
  return { groups, rollups };
}

/**
 * Writes a delta to the rollups. The touch groups it names are recorded first, in id order and before any
 * rollup row is written, so two batches naming the same new group wait for each other only there.
 */
async function writeRollups(
  q: Query,
  storeId: string,
  w: RollupWrite,
  opts: CounterWriteOptions & { memory?: TouchGroupMemory } = {},
): Promise<void> {
  const { memory, ...counterOpts } = opts;
  await recordTouchGroups(q, storeId, w.groups);
  if (memory && w.groups.size) memory.afterCommit(() => memory.committed.add(storeId, [...w.groups.keys()]));
  for (const { shape, rows } of w.rollups) await applyCounterDelta(q, storeId, shape, rows, counterOpts);
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

async function recordTouchGroups(q: Query, storeId: string, groups: Map<string, readonly string[]>): Promise<void> {
  if (groups.size === 0) return;
  const ids = [...groups.keys()].sort();
  await q(
    'views.touch_groups_insert',
    `insert into touch_groups (store_id, group_id, ${TOUCH_GROUP_DIMENSIONS.join(', ')})
     select $1, * from unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
     on conflict (store_id, group_id) do nothing`,
    [storeId, ids, ...TOUCH_GROUP_DIMENSIONS.map((_, i) => ids.map((id) => groups.get(id)![i]))],
  );
}

// ---------------------------------------------------------------------------------------------------------
// Per-person tables
// ---------------------------------------------------------------------------------------------------------

/** Text of a cell as PostgreSQL returns it (days as YYYY-MM-DD, numbers as numbers). */
function cellsOfRow(shape: TableShape, r: Record<string, unknown>): Cell[] {
  return [...shape.keys, ...shape.values].map((c) => {
    const v = r[c.name];
    if (c.type === 'integer[]') return (v as Array<number | string>).map(Number);
    if (c.type === 'text' || c.type === 'date') return v as string;
    return Number(v);
  });
}

/** The stored contributions of the given persons. */
export async function loadContributions(
  q: Query,
  storeId: string,
  personIds: readonly string[],
): Promise<PersonContribution[]> {
  const byPerson = new Map<string, PersonContribution>(
    personIds.map((p) => [p, { personId: p, web: [], products: [], credits: [] }]),
  );
  if (personIds.length === 0) return [];
  for (const { shape, part } of PERSON_TABLES) {
    const cols = [...shape.keys, ...shape.values].map((c) => selectedAs(c));
    const rows = await q<Record<string, unknown>>(
      `views.${shape.table}_load`,
      keyProbeSql({ select: cols.join(', '), from: shape.table, key: 'person_id' }),
      [storeId, personIds],
    );
    for (const r of rows) byPerson.get(r.person_id as string)?.[part].push(cellsOfRow(shape, r));
  }
  return [...byPerson.values()];
}

async function deleteRows(q: Query, storeId: string, shape: TableShape, rows: readonly Cell[][]): Promise<void> {
  if (rows.length === 0) return;
  const keys = shape.keys;
  await q(
    `views.${shape.table}_delete`,
    `delete from ${shape.table} a using ${unnestOf(keys, 2)}
     where a.store_id = $1 and ${keys.map((c) => `a.${c.name} = t.${c.name}`).join(' and ')}`,
    [storeId, ...columnsOf(keys, rows)],
  );
}

async function insertRows(q: Query, storeId: string, shape: TableShape, rows: readonly Cell[][]): Promise<void> {
  if (rows.length === 0) return;
  const cols = [...shape.keys, ...shape.values];
  await q(
    `views.${shape.table}_insert`,
    `insert into ${shape.table} (store_id, ${cols.map((c) => c.name).join(', ')})
     select $1, ${selectOf(cols)} from ${unnestOf(cols, 2)}`,
    [storeId, ...columnsOf(cols, rows)],
  );
}

/** What writing a batch's analytics does, worked out before any of it is written. */
export interface AnalyticsPlan {
  /** Per per-person table: the stored rows that go and the fresh rows that are added. */
  rows: Array<{ shape: TableShape; gone: Cell[][]; added: Cell[][] }>;
  /** The rollup rows to write; none when the difference went into the caller's delta. */
  rollups?: RollupWrite;
}

/**
 * Plans making the stored contributions of `personIds` (the recomputed persons and any merged into them)
 * equal to `fresh`: the per-person rows that differ, and the difference to the rollups (added to `into` when
 * given, for the caller to apply once; `memory` spares the touch groups already recorded). It only reads: it
 * loads the stored contributions at once and may run beside the batch's writes, computing `fresh` lazily and
 * giving the event loop a turn every `sliceMs` (0: never) so that their statements proceed meanwhile.
 */
export async function planAnalytics(
  q: Query,
  storeId: string,
  personIds: readonly string[],
  fresh: Iterable<PersonContribution>,
  { into, memory, sliceMs = 0 }: { into?: AnalyticsDelta; memory?: TouchGroupMemory; sliceMs?: number } = {},
): Promise<AnalyticsPlan> {
  const stored = loadContributions(q, storeId, personIds);
  // Settled below; until then a failure must not count as unhandled (the transaction fails on it anyway).
  stored.catch(() => undefined);
  const turn = eventLoopTurns(sliceMs);
  const freshOf = new Map<string, PersonContribution>();
  for (const c of fresh) {
    freshOf.set(c.personId, c);
    await turn();
  }
  const old = await stored;
  const delta = into ?? emptyDelta();
  // The per-person rows that differ: a stored row stays when the fresh contribution has the same row; every
  // other old row goes, every other fresh row is added (a changed row is both). The rollups that sum these
  // rows change by exactly the added rows less the gone ones: the rows a batch leaves alone, most of a
  // returning person's history, cost nothing more.
  const rows: AnalyticsPlan['rows'] = [];
  for (const { shape, part } of PERSON_TABLES) {
    const signed = (cs: Iterable<PersonContribution>) => {
      const out = new Map<string, Cell[]>();
      for (const c of cs) for (const r of c[part]) out.set(JSON.stringify(r), r);
      return out;
    };
    const oldRows = signed(old);
    const freshRows = signed(freshOf.values());
    const gone = [...oldRows].filter(([sig]) => !freshRows.has(sig)).map(([, r]) => r);
    const added = [...freshRows].filter(([sig]) => !oldRows.has(sig)).map(([, r]) => r);
    accumulateRows(delta, part, gone, -1);
    accumulateRows(delta, part, added, 1);
    rows.push({ shape, gone, added });
    await turn();
  }
  // The distinct-person rollups. Most batches add events to days, groups and steps a person already had: its
  // span rows stay the same. A returning person whose web days changed costs only the span rows from the first
  // changed day of each group on; a new person (or one merged away) its full spans.
  const oldOf = new Map(old.map((o) => [o.personId, o]));
  const none = { web: [], products: [] };
  for (const p of new Set([...oldOf.keys(), ...freshOf.keys()])) {
    const o = oldOf.has(p) ? rowsOf(oldOf.get(p)!) : none;
    const f = freshOf.has(p) ? rowsOf(freshOf.get(p)!) : none;
    if (o.web.length === 0) delta.webUsers.addSpans(f.web, 1);
    else if (f.web.length === 0) delta.webUsers.addSpans(o.web, -1);
    else if (webSpanInput(o.web) !== webSpanInput(f.web)) delta.webUsers.addSpanDelta(o.web, f.web);
    if (productSpanInput(o.products) !== productSpanInput(f.products)) {
      accumulateProductSpans(delta, o.products, -1);
      accumulateProductSpans(delta, f.products, 1);
    }
    await turn();
  }
  return { rows, rollups: into ? undefined : rollupWriteOf(storeId, delta, memory) };
}

/** Writes a plan's per-person rows. */
export async function writeAnalyticsRows(q: Query, storeId: string, plan: AnalyticsPlan): Promise<void> {
  for (const { shape, gone, added } of plan.rows) {
    await deleteRows(q, storeId, shape, gone);
    await insertRows(q, storeId, shape, added);
  }
}

/** Writes a plan's rollup rows (`memory` as given to the plan). */
export async function writeAnalyticsRollups(
  q: Query,
  storeId: string,
  plan: AnalyticsPlan,
  memory?: TouchGroupMemory,
): Promise<void> {
  if (plan.rollups) await writeRollups(q, storeId, plan.rollups, { memory });
}

/**
 * Makes the stored contributions of `personIds` equal to `fresh`, touching only rows that differ, and applies
 * the difference to the rollups (or adds it to `into`, for the caller to apply once; `memory` spares the
 * touch groups already recorded).
 */
export async function writeAnalytics(
  q: Query,
  storeId: string,
  personIds: readonly string[],
  fresh: readonly PersonContribution[],
  { into, memory }: { into?: AnalyticsDelta; memory?: TouchGroupMemory } = {},
): Promise<void> {
  const plan = await planAnalytics(q, storeId, personIds, fresh, { into, memory });
  await writeAnalyticsRows(q, storeId, plan);
  await writeAnalyticsRollups(q, storeId, plan, memory);
}

// ---------------------------------------------------------------------------------------------------------
// Reconciliation
// ---------------------------------------------------------------------------------------------------------

export interface AnalyticsDrift {
  view: AnalyticsRollup;
  key: string;
  expected: number[] | null;
  actual: number[] | null;
}

/** The texts reported for a group id that touch_groups does not hold. */
const unknownGroup = (id: string): Record<string, string> =>
  Object.fromEntries(TOUCH_GROUP_DIMENSIONS.map((d, i) => [d, i === 0 ? `unknown touch group ${id}` : '']));

/**
 * Compares the rollups with the expected ones (summed recomputed contributions) on the days in [from, to).
 * With `recentOnly`, a web_users or product_users row whose previous day is before `from` still belongs to
 * a person recomputed, since that person was active on the row's day.
 */
export async function compareAnalytics(
  q: Query,
  storeId: string,
  expected: AnalyticsDelta,
  inRange: (day: string) => boolean,
  range: { from?: string; to?: string },
  report: (d: AnalyticsDrift) => void,
): Promise<void> {
  // The grouped rollups are read with their group ids, and the texts of every group once. Joined in SQL, the
  // plan rests on the tables' statistics, and once, right after a repair of the demo store, it took 27 s for the
  // 78k web_users rows and 2.5 s for the 6.7k web_daily rows, which a hash join reads in 30 ms.
  let groupTexts: Map<string, Record<string, string>> | null = null;
  for (const shape of ANALYTICS_ROLLUPS) {
    const keyOf = DELTA_KEYS.get(shape.table)!;
    const want = new Map(nonZero(entriesOf(expected, shape.table)).filter(([k]) => inRange(keyOf.get(k, 'day'))));
    const grouped = shape.touchAt !== undefined;
    if (grouped && !groupTexts) {
      const groups = await q<Record<string, string>>(
        'reconcile.touch_groups',
        `select group_id::text as group_id, ${TOUCH_GROUP_DIMENSIONS.join(', ')} from touch_groups where store_id = $1`,
        [storeId],
      );
      groupTexts = new Map(groups.map((g) => [g.group_id!, g]));
    }
    const cols = [...shape.keys, ...shape.values]
      .filter((c) => !grouped || !TOUCH_NAMES.has(c.name))
      .map((c) => selectedAs(c));
    if (grouped) cols.push('group_id::text as group_id');
    const rows = await q<Record<string, unknown>>(
      `reconcile.${shape.table}`,
      `select ${cols.join(', ')} from ${shape.table} where store_id = $1
         and ($2::date is null or day >= $2::date) and ($3::date is null or day < $3::date)`,
      [storeId, range.from ?? null, range.to ?? null],
    );
    // touch_groups is written before any rollup row that names a group and never deleted; a row naming an unknown
    // group is reported under that id.
    if (grouped)
      for (const r of rows)
        Object.assign(r, groupTexts!.get(r.group_id as string) ?? unknownGroup(r.group_id as string));
    for (const r of rows) {
      const cells = cellsOfRow(shape, r);
      const key = keyOf.ofParts(cells.slice(0, shape.keys.length));
      const act = cells.slice(shape.keys.length) as number[];
      const exp = want.get(key);
      if (!exp || exp.some((x, i) => x !== act[i]))
        report({ view: shape.table, key: keyOf.display(key), expected: exp ?? null, actual: act });
      want.delete(key);
    }
    for (const [k, exp] of want) report({ view: shape.table, key: keyOf.display(k), expected: exp, actual: null });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Product names and images
// ---------------------------------------------------------------------------------------------------------

/**
 * Records what the batch's events say about products: a product's row follows its latest sighting, compared
 * as `supersedes` does, whichever order the events arrive in (docs/decisions.md, Analytics). Called last in
 * the batch, so the popular products' rows stay locked only until the commit.
 */
export async function upsertProductInfo(q: Query, storeId: string, events: readonly StorefrontEvent[]): Promise<void> {
  const latest = new Map<string, ProductSighting>();
  for (const e of events) {
    const at = Date.parse(e.timestamp);
    for (const info of productInfoOfEvent(e)) {
      const seen = { ...info, at };
      const cur = latest.get(info.productId);
      if (!cur || supersedes(seen, cur)) latest.set(info.productId, seen);
    }
  }
  if (latest.size === 0) return;
  const stored = await q<{
    product_id: string;
    title: string;
    vendor: string;
    product_type: string;
    image_src: string;
    seen_at: Date;
  }>(
    'facts.product_info_load',
    keyProbeSql({
      select: 'product_id, title, vendor, product_type, image_src, seen_at',
      from: 'product_info',
      key: 'product_id',
    }),
    [storeId, [...latest.keys()]],
  );
  const storedOf = new Map(
    stored.map((r): [string, ProductSighting] => [
      r.product_id,
      {
        productId: r.product_id,
        title: r.title,
        vendor: r.vendor,
        productType: r.product_type,
        imageSrc: r.image_src,
        at: r.seen_at.getTime(),
      },
    ]),
  );
  // Only what would change the stored row is sent: most sightings of a batch are older than the stored one.
  const rows = [...latest.values()]
    .filter((r) => {
      const s = storedOf.get(r.productId);
      return !s || supersedes(r, s);
    })
    .sort((a, b) => (a.productId < b.productId ? -1 : 1));
  await insertProductInfo(q, storeId, rows);
}

/**
 * Writes products' sightings (their latest name and image, and when they were seen); a stored row is replaced
 * only by a sighting that supersedes it, compared in the same order as `supersedes` (texts in the "C"
 * collation, whatever the database's default).
 */
export async function insertProductInfo(q: Query, storeId: string, rows: readonly ProductSighting[]): Promise<void> {
  if (rows.length === 0) return;
  await q(
    'facts.product_info_upsert',
    `insert into product_info as p (store_id, product_id, title, vendor, product_type, image_src, seen_at)
     select $1, * from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
     on conflict (store_id, product_id) do update set
       title = excluded.title, vendor = excluded.vendor, product_type = excluded.product_type,
       image_src = excluded.image_src, seen_at = excluded.seen_at
       where (excluded.seen_at, excluded.title collate "C", excluded.vendor collate "C",
              excluded.product_type collate "C", excluded.image_src collate "C")
           > (p.seen_at, p.title collate "C", p.vendor collate "C", p.product_type collate "C",
              p.image_src collate "C")`,
    [
      storeId,
      rows.map((r) => r.productId),
      rows.map((r) => r.title),
      rows.map((r) => r.vendor),
      rows.map((r) => r.productType),
      rows.map((r) => r.imageSrc),
      rows.map((r) => new Date(r.at).toISOString()),
    ],
  );
}
