/**
 * The stream in time order, built lazily: sessions are expanded into events only when the stream reaches their
 * start, merged by a heap over the sessions in progress, and order versions are interleaved after the events
 * before them. So a million events never sit in memory at once.
 */
import type { StorefrontEvent } from '../../contracts/src/events';
import type { OrderVersion } from './orders';
import type { DemoItem } from './output';
import type { Session } from './sessions';

/**
 * Events and order versions merged in time order. `sessions` are the ones with events, sorted by start
 * (`sortByStart`); `expand` builds a session's events and their times.
 */
export function* mergeByTime(
  sessions: readonly Session[],
  versions: readonly OrderVersion[],
  expand: (s: Session) => { events: StorefrontEvent[]; times: number[] },
): Generator<DemoItem, void, undefined> {
  const heap = new SessionHeap();
  let si = 0;
  let oi = 0;
  for (;;) {
    let top = heap.peek();
    while (si < sessions.length && (top === undefined || sessions[si]!.start <= top.times[top.i]!)) {
      const s = sessions[si++]!;
      const { events, times } = expand(s);
      heap.push({ idx: s.idx, events, times, i: 0 });
      top = heap.peek();
    }
    if (top === undefined) break;
    const at = top.times[top.i]!;
    while (oi < versions.length && versions[oi]!.at < at) {
      const v = versions[oi++]!;
      yield { kind: 'order', at: v.at, order: v.order };
    }
    yield { kind: 'event', at, event: top.events[top.i]! };
    heap.advanceTop();
  }
  while (oi < versions.length) {
    const v = versions[oi++]!;
    yield { kind: 'order', at: v.at, order: v.order };
  }
}

/** A session in progress: its events and the index of the next one. */
interface Active {
  idx: number;
  events: StorefrontEvent[];
  times: number[];
  i: number;
}

const before = (a: Active, b: Active): boolean => {
  const ta = a.times[a.i]!;
  const tb = b.times[b.i]!;
  return ta < tb || (ta === tb && a.idx < b.idx);
};

/** Min-heap of sessions in progress, keyed by their next event's time. */
class SessionHeap {
  private readonly items: Active[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Active | undefined {
    return this.items[0];
  }

  push(a: Active): void {
    const h = this.items;
    h.push(a);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  /** Restores the order after the top's key grew; removes the top when it is done. */
  advanceTop(): void {
    const h = this.items;
    const top = h[0]!;
    top.i++;
    if (top.i >= top.events.length) {
      const last = h.pop()!;
      if (h.length === 0) return;
      h[0] = last;
    }
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && before(h[l]!, h[m]!)) m = l;
      if (r < h.length && before(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

/**
 * Sorts sessions by (start, idx) in place: a bucket sort over the time span (a million sessions sort in a fraction
 * of what `Array.prototype.sort` with a comparator takes), then insertion sort inside the small buckets.
 */
export function sortByStart(sessions: Session[]): void {
  const n = sessions.length;
  if (n < 2) return;
  let min = Infinity;
  let max = -Infinity;
  for (const s of sessions) {
    if (s.start < min) min = s.start;
    if (s.start > max) max = s.start;
  }
  const buckets = n;
  const width = (max - min + 1) / buckets;
  const counts = new Uint32Array(buckets + 1);
  const bucketOf = (s: Session): number => Math.min(buckets - 1, Math.floor((s.start - min) / width));
  for (const s of sessions) counts[bucketOf(s) + 1]!++;
  for (let b = 0; b < buckets; b++) counts[b + 1]! += counts[b]!;
  const out = new Array<Session>(n);
  for (const s of sessions) out[counts[bucketOf(s)]!++] = s;
  const before = (a: Session, b: Session): boolean => a.start < b.start || (a.start === b.start && a.idx < b.idx);
  for (let i = 1; i < n; i++) {
    const s = out[i]!;
    let j = i - 1;
    while (j >= 0 && before(s, out[j]!)) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = s;
  }
  for (let i = 0; i < n; i++) sessions[i] = out[i]!;
}
