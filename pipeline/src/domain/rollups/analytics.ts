/**
 * The analytics views (docs/product.md, Analytics; storage in docs/decisions.md, Analytics): what each person
 * adds (web_person_days, product_person_days, product_person_credits) and the rollups summed from it
 * (web_daily, web_users, product_daily, product_users, product_credits_daily). Pure: the batch writer diffs a
 * person's stored and fresh contributions and applies the difference to the rollups; the repair and the
 * reconciliation sum whole contributions the same way.
 */
import {
  analyticsOfPerson,
  type ProductCreditRow,
  type ProductRow,
  productSpanInput,
  productUserSpans,
  WEB_DIMENSIONS,
  type WebRow,
} from '../analytics';
import { compositeKey } from '../composite-key';
import { addValues } from '../credit-sums';
import type { PersonFacts, PersonView } from '../recompute-person';
import { webSpanInput, type WebUserGroup, WebUserSums } from '../web-user-spans';
import {
  bigintColumn,
  type ColumnType,
  dateColumn,
  integerColumn,
  keyOfTable,
  type RollupRow,
  type RollupTable,
  rowOf,
  textColumn,
} from './table';

const TOUCH = WEB_DIMENSIONS.map(textColumn);

export type AnalyticsRollup = 'web_daily' | 'web_users' | 'product_daily' | 'product_users' | 'product_credits_daily';

/**
 * An analytics rollup as its deltas and the reconciliation key it: with the five touchpoint texts where the
 * table stores them as one touch group id (`group_id`, the texts in touch_groups) from `touchAt` on.
 */
export interface AnalyticsRollupTable extends RollupTable {
  table: AnalyticsRollup;
  touchAt?: number;
}

const WEB_DAILY: AnalyticsRollupTable = {
  table: 'web_daily',
  keys: [dateColumn('day'), ...TOUCH],
  values: ['sessions', 'events', 'engaged_sessions', 'new_users'].map(bigintColumn),
  touchAt: 1,
};
const WEB_USERS: AnalyticsRollupTable = {
  table: 'web_users',
  keys: [{ name: 'dims', type: 'smallint' }, dateColumn('day'), ...TOUCH, dateColumn('prev_day')],
  values: ['users', 'product_view_users', 'atc_users', 'checkout_users', 'payment_info_users', 'purchase_users'].map(
    integerColumn,
  ),
  touchAt: 2,
};
const PRODUCT_DAILY: AnalyticsRollupTable = {
  table: 'product_daily',
  keys: [dateColumn('day'), textColumn('product_id')],
  values: [
    'views',
    'add_to_cart',
    'checkouts',
    'purchases',
    'units',
    'revenue_micros',
    'cogs_micros',
    'new_customer_purchases',
  ].map(bigintColumn),
};
const PRODUCT_USERS: AnalyticsRollupTable = {
  table: 'product_users',
  keys: [dateColumn('day'), textColumn('product_id'), dateColumn('prev_day')],
  values: ['view_users', 'add_to_cart_users'].map(integerColumn),
};
const PRODUCT_CREDITS: AnalyticsRollupTable = {
  table: 'product_credits_daily',
  keys: [dateColumn('day'), textColumn('model'), textColumn('product_id'), ...TOUCH],
  values: ['weight', 'value_micros', 'units'].map(bigintColumn),
};

/** The rollup tables, in the order a batch updates them (one order for every worker). */
export const ANALYTICS_ROLLUPS: readonly AnalyticsRollupTable[] = [
  WEB_DAILY,
  WEB_USERS,
  PRODUCT_DAILY,
  PRODUCT_USERS,
  PRODUCT_CREDITS,
];

/** The columns a rollup stores: its keys with the touchpoint texts replaced by `group_id`. */
export function storedTable(t: AnalyticsRollupTable): RollupTable {
  if (t.touchAt === undefined) return t;
  const keys = [...t.keys];
  keys.splice(t.touchAt, TOUCH.length, bigintColumn('group_id'));
  return { table: t.table, keys, values: t.values };
}

// ---------------------------------------------------------------------------------------------------------
// Per-person tables
// ---------------------------------------------------------------------------------------------------------

/** A column of a per-person table and the field of the domain row it holds. */
export interface PersonColumn<R> {
  name: string;
  type: ColumnType | 'integer[]';
  field: keyof R & string;
}

/** Any per-person table, as the statements read it: each column with the name of the row field it holds. */
export interface PersonTableShape {
  table: string;
  keys: readonly { name: string; type: PersonColumn<unknown>['type']; field: string }[];
  values: readonly { name: string; type: PersonColumn<unknown>['type']; field: string }[];
}

/** A per-person table: `person_id` and the columns of one kind of domain row. */
export interface PersonTable<R> {
  table: string;
  keys: readonly PersonColumn<R>[];
  values: readonly PersonColumn<R>[];
}

const col = <R>(field: keyof R & string, type: PersonColumn<R>['type'], name?: string): PersonColumn<R> => ({
  name: name ?? field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
  type,
  field,
});

export const WEB_PERSON_DAYS: PersonTable<WebRow> = {
  table: 'web_person_days',
  keys: [col('day', 'date'), ...WEB_DIMENSIONS.map((d) => col<WebRow>(d, 'text'))],
  values: [
    col('sessions', 'integer'),
    col('events', 'integer'),
    col('engagedSessions', 'integer'),
    col('newUsers', 'integer'),
    col('level', 'smallint'),
    col('eventCounts', 'integer[]'),
  ],
};
export const PRODUCT_PERSON_DAYS: PersonTable<ProductRow> = {
  table: 'product_person_days',
  keys: [col('day', 'date'), col('productId', 'text')],
  values: [
    col('views', 'integer'),
    col('addToCart', 'integer'),
    col('checkouts', 'integer'),
    col('purchases', 'integer'),
    col('units', 'bigint'),
    col('revenueMicros', 'bigint'),
    col('cogsMicros', 'bigint'),
    col('newCustomerPurchases', 'integer'),
  ],
};
export const PRODUCT_PERSON_CREDITS: PersonTable<ProductCreditRow> = {
  table: 'product_person_credits',
  keys: [
    col('day', 'date'),
    col('model', 'text'),
    col('productId', 'text'),
    col('channel', 'text'),
    col('source', 'text'),
    col('medium', 'text'),
    col('campaign', 'text'),
    col('landingPage', 'text'),
  ],
  values: [col('weight', 'bigint'), col('valueMicros', 'bigint'), col('units', 'bigint')],
};

/** The contribution of one person: its rows of the three per-person tables. */
export interface PersonContribution {
  personId: string;
  web: WebRow[];
  products: ProductRow[];
  credits: ProductCreditRow[];
}

/** The parts of a contribution, each with its table. */
export const PERSON_TABLES = {
  web: WEB_PERSON_DAYS,
  products: PRODUCT_PERSON_DAYS,
  credits: PRODUCT_PERSON_CREDITS,
} as const;
export type ContributionPart = keyof typeof PERSON_TABLES;
export const CONTRIBUTION_PARTS = Object.keys(PERSON_TABLES) as ContributionPart[];
type RowOfPart<P extends ContributionPart> = PersonContribution[P][number];

export function contributionOf(facts: PersonFacts, view: PersonView, timezone: string): PersonContribution {
  const a = analyticsOfPerson(facts, view, timezone);
  return { personId: view.personId, web: a.web, products: a.products, credits: a.productCredits };
}

/** The contributions of recomputed persons (`facts[i]` with `views[i]`), computed as they are read. */
export function* contributionsOf(
  facts: readonly PersonFacts[],
  views: readonly PersonView[],
  timezone: string,
): Generator<PersonContribution> {
  for (let i = 0; i < facts.length; i++) yield contributionOf(facts[i]!, views[i]!, timezone);
}

/** A person's row with its person: how the per-person tables are diffed and written. */
export interface OwnedRow<R> {
  personId: string;
  row: R;
}

/** What a product row adds to product_daily, in its column order. */
const productSums = (r: ProductRow): number[] => [
  r.views,
  r.addToCart,
  r.checkouts,
  r.purchases,
  r.units,
  r.revenueMicros,
  r.cogsMicros,
  r.newCustomerPurchases,
];

/** A row's cells in its table's column order, its person first: equal signatures, equal stored rows. */
function signatureOf<R>(t: PersonTable<R>, personId: string, row: R): string {
  const cells: unknown[] = [personId];
  for (const c of t.keys) cells.push(row[c.field]);
  for (const c of t.values) cells.push(row[c.field]);
  return JSON.stringify(cells);
}

/**
 * The per-person rows that differ between the stored and the fresh contributions: a stored row stays when the
 * fresh contribution has the same row; every other old row goes, every other fresh row is added (a changed
 * row is both).
 */
export function diffPart<P extends ContributionPart>(
  part: P,
  old: Iterable<PersonContribution>,
  fresh: Iterable<PersonContribution>,
): { gone: OwnedRow<RowOfPart<P>>[]; added: OwnedRow<RowOfPart<P>>[] } {
  const t = PERSON_TABLES[part] as PersonTable<RowOfPart<P>>;
  const signed = (cs: Iterable<PersonContribution>): Map<string, OwnedRow<RowOfPart<P>>> => {
    const out = new Map<string, OwnedRow<RowOfPart<P>>>();
    for (const c of cs)
      for (const row of c[part] as RowOfPart<P>[])
        out.set(signatureOf(t, c.personId, row), { personId: c.personId, row });
    return out;
  };
  const oldRows = signed(old);
  const freshRows = signed(fresh);
  return {
    gone: [...oldRows].filter(([sig]) => !freshRows.has(sig)).map(([, r]) => r),
    added: [...freshRows].filter(([sig]) => !oldRows.has(sig)).map(([, r]) => r),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Rollup deltas
// ---------------------------------------------------------------------------------------------------------

/** The rollups summed by text key: all but web_users. */
type KeyedRollup = Exclude<AnalyticsRollup, 'web_users'>;

/** Differences to the rollups: per table, key (`keyOfTable`) -> value deltas; web_users as span sums. */
export interface AnalyticsDelta {
  keyed: Map<KeyedRollup, Map<string, number[]>>;
  webUsers: WebUserSums;
}

export function emptyDelta(): AnalyticsDelta {
  const keyed = new Map<KeyedRollup, Map<string, number[]>>();
  for (const t of ANALYTICS_ROLLUPS) if (t.table !== 'web_users') keyed.set(t.table, new Map());
  return { keyed, webUsers: new WebUserSums() };
}

/** A table's entries of a delta, by `keyOfTable` key (the reconciliation's form). */
export function entriesOf(delta: AnalyticsDelta, table: AnalyticsRollup): Map<string, number[]> {
  return table === 'web_users' ? delta.webUsers.entries() : delta.keyed.get(table)!;
}

const WEB_DAILY_KEY = compositeKey(['day', ...WEB_DIMENSIONS]);
const PRODUCT_DAILY_KEY = compositeKey(['day', 'productId']);
const PRODUCT_CREDITS_KEY = compositeKey([
  'day',
  'model',
  'productId',
  'channel',
  'source',
  'medium',
  'campaign',
  'landingPage',
]);

/** Adds `sign` times what rows of one per-person table add to the rollup that sums them. */
export function accumulatePart<P extends ContributionPart>(
  into: AnalyticsDelta,
  part: P,
  rows: Iterable<RowOfPart<P>>,
  sign: 1 | -1,
): void {
  if (part === 'web') {
    const webDaily = into.keyed.get('web_daily')!;
    for (const r of rows as Iterable<WebRow>)
      addValues(webDaily, WEB_DAILY_KEY.of(r), [r.sessions, r.events, r.engagedSessions, r.newUsers], sign);
  } else if (part === 'products') {
    const productDaily = into.keyed.get('product_daily')!;
    for (const r of rows as Iterable<ProductRow>)
      addValues(productDaily, PRODUCT_DAILY_KEY.of(r), productSums(r), sign);
  } else {
    const productCredits = into.keyed.get('product_credits_daily')!;
    for (const r of rows as Iterable<ProductCreditRow>)
      addValues(productCredits, PRODUCT_CREDITS_KEY.of(r), [r.weight, r.valueMicros, r.units], sign);
  }
}

/** Adds `sign` times a person's product_users span rows. */
function accumulateProductSpans(into: AnalyticsDelta, rows: readonly ProductRow[], sign: 1 | -1): void {
  const productUsers = into.keyed.get('product_users')!;
  for (const [k, counts] of productUserSpans(rows)) addValues(productUsers, k, counts, sign);
}

/** Adds `sign` times everything one person's contribution puts into the rollups. */
export function accumulateContribution(into: AnalyticsDelta, c: PersonContribution, sign: 1 | -1): void {
  for (const part of CONTRIBUTION_PARTS) accumulatePart(into, part, c[part], sign);
  into.webUsers.addSpans(c.web, sign);
  accumulateProductSpans(into, c.products, sign);
}

/**
 * Adds the change of one person's distinct-person rollups (web_users, product_users) from `old` to `fresh`
 * (either absent). Most batches add events to days, groups and steps a person already had: its span rows stay
 * the same. A returning person whose web days changed costs only the span rows from the first changed day of
 * each group on; a new person (or one merged away) its full spans.
 */
export function accumulateSpanChange(
  into: AnalyticsDelta,
  old: PersonContribution | undefined,
  fresh: PersonContribution | undefined,
): void {
  const o = old ?? { web: [], products: [] };
  const f = fresh ?? { web: [], products: [] };
  if (o.web.length === 0) into.webUsers.addSpans(f.web, 1);
  else if (f.web.length === 0) into.webUsers.addSpans(o.web, -1);
  else if (webSpanInput(o.web) !== webSpanInput(f.web)) into.webUsers.addSpanDelta(o.web, f.web);
  if (productSpanInput(o.products) !== productSpanInput(f.products)) {
    accumulateProductSpans(into, o.products, -1);
    accumulateProductSpans(into, f.products, 1);
  }
}

/**
 * A delta's rows for each rollup in stored form (in `ANALYTICS_ROLLUPS` order): the touchpoint texts replaced by
 * `groupIdOf` (the adapter's hash, which also notes the groups to record).
 */
export function analyticsRollupRows(
  delta: AnalyticsDelta,
  groupIdOf: (touch: readonly string[]) => string,
): Array<{ table: RollupTable; rows: RollupRow[] }> {
  return ANALYTICS_ROLLUPS.map((t) => {
    const stored = storedTable(t);
    const rows: RollupRow[] = [];
    if (t.table === 'web_users') {
      // A group's id once, for all its rows.
      const ids = new Map<WebUserGroup, string>();
      delta.webUsers.forEachRow((g, day, prevDay, values) => {
        let id = ids.get(g);
        if (id === undefined) {
          id = groupIdOf(g.values);
          ids.set(g, id);
        }
        rows.push(rowOf(stored, [g.dims, day, id, prevDay], values));
      });
      return { table: stored, rows };
    }
    const key = keyOfTable(t);
    const at = t.touchAt;
    for (const [k, values] of delta.keyed.get(t.table)!) {
      if (values.every((v) => v === 0)) continue;
      const cells = key.parts(k);
      if (at !== undefined) cells.splice(at, TOUCH.length, groupIdOf(cells.slice(at, at + TOUCH.length)));
      rows.push(rowOf(stored, cells, values));
    }
    return { table: stored, rows };
  });
}
