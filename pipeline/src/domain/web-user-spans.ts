/**
 * The span rows of the web_users rollup: distinct persons, exactly, over any range of days (docs/decisions.md,
 * Analytics, for why spans). For every set of dimensions, every group a person was active in and every funnel
 * step, the days its sessions in the group reached the step, each day counted on the row of (the day, the
 * previous such day); the persons of a group over [s, e) are then the rows with s <= day < e and previous < s.
 *
 * A batch sums these rows over hundreds of persons and twenty-six dimension sets, so `WebUserSums` keeps them
 * compactly: groups and days are numbered as they are first met, and a row is a number pair, not a text key.
 */
import { FUNNEL_LEVELS, NO_PREVIOUS_DAY, WEB_DIMENSION_SETS, WEB_DIMENSIONS, type WebRow } from './analytics';

/** A group of one dimension set: its mask and the five dimension values ("" outside the mask). */
export interface WebUserGroup {
  dims: number;
  values: readonly string[];
}

/** Key of a web_users row: dims mask, day, the five dimension values (blank outside the mask), prev_day. */
export const webUserKey = (dims: number, day: string, values: readonly string[], prevDay: string): string =>
  [String(dims), day, ...values, prevDay].join('\u0000');

/** Days a sum may name (numbered from 1; 0 is "no previous day"): far more than any store's history. */
const DAY_SLOTS = 65_536;

/** A web row as the spans read it: its touchpoint (numbered), day (numbered) and deepest funnel step. */
interface SpanRow {
  touch: number;
  day: number;
  dayText: string;
  level: number;
}

/** Per group while a person's rows are walked in day order: the open day, its level, each step's last day. */
interface GroupWalk {
  day: number;
  level: number;
  prev: number[];
}

/** Signed sums of span rows, over any number of persons. */
export class WebUserSums {
  private readonly touchIds = new Map<string, number>();
  /** Per touchpoint, its group in each dimension set (in WEB_DIMENSION_SETS order). */
  private readonly groupsOfTouch: number[][] = [];
  private readonly groupIds = new Map<string, number>();
  private readonly groups: WebUserGroup[] = [];
  private readonly dayIds = new Map<string, number>([[NO_PREVIOUS_DAY, 0]]);
  private readonly days: string[] = [NO_PREVIOUS_DAY];
  /** group -> day * DAY_SLOTS + previous day -> counts per funnel step. */
  private readonly sums = new Map<number, Map<number, number[]>>();

  /** Adds `sign` times the span rows of one person's web rows. */
  addSpans(rows: readonly WebRow[], sign: 1 | -1): void {
    const ordered = this.spanRows(rows);
    const walks = new Map<number, GroupWalk>();
    for (let set = 0; set < WEB_DIMENSION_SETS.length; set++) {
      walks.clear();
      for (const r of ordered) {
        const g = this.groupsOfTouch[r.touch]![set]!;
        const w = walks.get(g);
        if (!w) walks.set(g, { day: r.day, level: r.level, prev: new Array<number>(FUNNEL_LEVELS).fill(0) });
        else if (w.day === r.day) w.level = Math.max(w.level, r.level);
        else {
          this.closeDay(g, w, sign);
          w.day = r.day;
          w.level = r.level;
        }
      }
      for (const [g, w] of walks) this.closeDay(g, w, sign);
    }
  }

  /**
   * Adds the change in one person's span rows when its web rows go from `before` to `after`: the same as
   * addSpans(after, 1) and addSpans(before, -1), without either. Per group and step the span rows of the sorted
   * days agree up to the first day that differs, so only the rows from there on are retracted and added, and a
   * group whose days did not change adds nothing: a returning person's new day costs a row per group and step,
   * not its whole history twice.
   */
  addSpanDelta(before: readonly WebRow[], after: readonly WebRow[]): void {
    const old = this.spanRows(before);
    const fresh = this.spanRows(after);
    const days = new Map<number, [number[], number[]]>();
    for (let set = 0; set < WEB_DIMENSION_SETS.length; set++) {
      days.clear();
      this.daysByGroup(old, set, days, 0);
      this.daysByGroup(fresh, set, days, 1);
      for (const [g, [o, n]] of days) if (!sameNumbers(o, n)) this.diffGroup(g, o, n);
    }
  }

  /** Each row whose counts are not all zero, with its group, day and previous day. */
  forEachRow(fn: (group: WebUserGroup, day: string, prevDay: string, counts: readonly number[]) => void): void {
    for (const [g, rows] of this.sums) {
      const group = this.groups[g]!;
      for (const [k, counts] of rows) {
        if (counts.every((c) => c === 0)) continue;
        fn(group, this.days[Math.floor(k / DAY_SLOTS)]!, this.days[k % DAY_SLOTS]!, counts);
      }
    }
  }

  /** The rows by webUserKey (for the reconciliation and tests). */
  entries(): Map<string, number[]> {
    const out = new Map<string, number[]>();
    this.forEachRow((g, day, prev, counts) => out.set(webUserKey(g.dims, day, g.values, prev), [...counts]));
    return out;
  }

  private spanRows(rows: readonly WebRow[]): SpanRow[] {
    return rows
      .map((r) => ({ touch: this.touchOf(r), day: this.dayOf(r.day), dayText: r.day, level: r.level }))
      .sort((a, b) => (a.dayText < b.dayText ? -1 : a.dayText > b.dayText ? 1 : 0));
  }

  private closeDay(g: number, w: GroupWalk, sign: number): void {
    for (let step = 0; step <= w.level; step++) {
      this.add(g, w.day, w.prev[step]!, step, sign);
      w.prev[step] = w.day;
    }
  }

  /** Appends each group's (day, level) pairs of `rows` (in day order) in dimension set `set` to side `side`. */
  private daysByGroup(rows: readonly SpanRow[], set: number, into: Map<number, [number[], number[]]>, side: 0 | 1) {
    for (const r of rows) {
      const g = this.groupsOfTouch[r.touch]![set]!;
      let both = into.get(g);
      if (!both) {
        both = [[], []];
        into.set(g, both);
      }
      const list = both[side];
      const n = list.length;
      if (n > 0 && list[n - 2] === r.day) list[n - 1] = Math.max(list[n - 1]!, r.level);
      else list.push(r.day, r.level);
    }
  }

  /** The span rows of a group that differ between its old and new (day, level) pairs. */
  private diffGroup(g: number, o: readonly number[], n: readonly number[]): void {
    for (let step = 0; step < FUNNEL_LEVELS; step++) {
      const os = daysReaching(o, step);
      const ns = daysReaching(n, step);
      if (os.length === 0 && ns.length === 0) return;
      let same = 0;
      while (same < os.length && same < ns.length && os[same] === ns[same]) same++;
      for (let i = same; i < os.length; i++) this.add(g, os[i]!, i ? os[i - 1]! : 0, step, -1);
      for (let i = same; i < ns.length; i++) this.add(g, ns[i]!, i ? ns[i - 1]! : 0, step, 1);
    }
  }

  private add(g: number, day: number, prev: number, step: number, sign: number): void {
    let rows = this.sums.get(g);
    if (!rows) {
      rows = new Map();
      this.sums.set(g, rows);
    }
    const k = day * DAY_SLOTS + prev;
    let counts = rows.get(k);
    if (!counts) {
      counts = new Array<number>(FUNNEL_LEVELS).fill(0);
      rows.set(k, counts);
    }
    counts[step]! += sign;
  }

  private touchOf(r: WebRow): number {
    const key = `${r.channel}\u0000${r.source}\u0000${r.medium}\u0000${r.campaign}\u0000${r.landing_page}`;
    let id = this.touchIds.get(key);
    if (id === undefined) {
      id = this.groupsOfTouch.length;
      const touch = WEB_DIMENSIONS.map((d) => r[d]);
      this.groupsOfTouch.push(WEB_DIMENSION_SETS.map((dims) => this.groupOf(touch, dims)));
      this.touchIds.set(key, id);
    }
    return id;
  }

  private dayOf(day: string): number {
    let id = this.dayIds.get(day);
    if (id === undefined) {
      id = this.days.length;
      if (id >= DAY_SLOTS) throw new Error(`web user spans over more than ${DAY_SLOTS - 1} days`);
      this.days.push(day);
      this.dayIds.set(day, id);
    }
    return id;
  }

  /** The group of a touchpoint's values in a dimension set. */
  private groupOf(touch: readonly string[], dims: number): number {
    const values = touch.map((v, i) => (dims & (1 << i) ? v : ''));
    const key = `${dims}\u0000${values.join('\u0000')}`;
    let g = this.groupIds.get(key);
    if (g === undefined) {
      g = this.groups.length;
      this.groups.push({ dims, values });
      this.groupIds.set(key, g);
    }
    return g;
  }
}

/** The days of (day, level) pairs whose level reaches `step`. */
function daysReaching(pairs: readonly number[], step: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i + 1]! >= step) out.push(pairs[i]!);
  return out;
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What a person's web spans depend on: its days, groups and steps (equal inputs give equal spans). */
export function webSpanInput(rows: readonly WebRow[]): string {
  return rows
    .map((r) => [r.day, r.channel, r.source, r.medium, r.campaign, r.landing_page, r.level].join('\u0000'))
    .sort()
    .join('\u0001');
}
