/**
 * Adaptive batching: items are buffered while the previous batch is being applied, and the next batch
 * takes everything that waited (up to the size limit, a number or a function asked each time). At low rates a batch closes `maxWaitMs` after its first
 * item (low latency); under load batches grow by themselves, which amortizes the per-batch work (and the
 * recomputation of persons seen in several batches). `bufferTime` + `concatMap` would instead queue many
 * small fixed batches behind a slow one. With `maxInFlight` > 1, that many batches are applied at once
 * (their results may arrive out of order); completion flushes what is left.
 *
 * With `laneOf`, items are split into `maxInFlight` lanes (`laneOf(item) % maxInFlight`) and each lane has one
 * batch in flight: two batches applied at once then never share a lane. The pipeline's lanes are stream
 * partitions, so concurrent transactions do not touch the same clients and do not wait for each other's
 * row locks (docs/decisions.md, Storage).
 *
 * With `shares`, each lane is split in two: the items `shares.deferred` picks (the stream's overflow partitions,
 * docs/decisions.md, Ingestion) are batched apart from the others, each kind with its own batch in flight, so that
 * a backlog of deferred items never makes the others wait for its batches. While items that are not deferred keep
 * coming to a lane (one came within `recentMs`), the lane's batches of deferred items are bounded by
 * `sizeWhileShared()` and start only while no batch of the others is in flight in the lane, so that the others'
 * batches have the machine to themselves; a backlog passed over by `SHARED_TURN` batches of the others in a row
 * starts beside the next one, so that it is never starved. Items belong to groups (`shares.groupOf`, the pipeline's
 * stores): a deferred item waits while its own group still has items in the lane that are not deferred (a store's
 * earlier live messages go first, and the two batches do not wait on each other's locks on its clients), and only
 * the items of groups with nothing deferred count as others, so a lane that holds one bursting group and nothing
 * else gets full batches.
 *
 * `apply` returns its result as an ObservableInput (a Promise, or an Observable emitting it and
 * completing); a batch holds its slot until that completes. Time comes from `scheduler`, so tests can run
 * the operator in virtual time.
 */
import {
  asyncScheduler,
  from,
  Observable,
  type ObservableInput,
  type OperatorFunction,
  type SchedulerLike,
  Subscription,
} from 'rxjs';

export interface LaneShares<T> {
  /** True for an item batched apart, after the others. */
  deferred(item: T): boolean;
  /** The size limit of a batch of deferred items while items that are not deferred keep coming to its lane. */
  sizeWhileShared(): number;
  /** How long after the last item that is not deferred its lane still counts as shared. */
  recentMs: number;
  /** The group of an item (the pipeline's store). */
  groupOf(item: T): string;
}

/** Batches of the others a waiting backlog lets pass before it starts beside them. */
export const SHARED_TURN = 16;

export function batchWhileBusy<T, R>(
  maxSizeOrBound: number | (() => number),
  maxWaitMs: number,
  apply: (batch: T[]) => ObservableInput<R>,
  maxInFlight = 1,
  scheduler: SchedulerLike = asyncScheduler,
  laneOf?: (item: T) => number,
  shares?: LaneShares<T>,
): OperatorFunction<T, R> {
  // A function is asked at each decision: the pipeline bounds its batches by the time they take.
  const sizeLimit = typeof maxSizeOrBound === 'number' ? () => maxSizeOrBound : maxSizeOrBound;
  const baseLanes = laneOf ? Math.max(1, maxInFlight) : 1;
  // With shares, lane 2i takes lane i's items that are not deferred and lane 2i + 1 its deferred ones.
  const kinds = shares ? 2 : 1;
  const laneCount = baseLanes * kinds;
  const perLane = laneOf ? 1 : maxInFlight;
  return (source) =>
    new Observable<R>((subscriber) => {
      const lanes = Array.from({ length: laneCount }, () => ({
        buffer: [] as T[],
        inFlight: 0,
        /** With shares: items buffered or in flight, by group. */
        held: new Map<string, number>(),
        /** With shares, of a lane of items that are not deferred: when each group's last item came. */
        lastAtOf: new Map<string, number>(),
        /** Of a lane of deferred items: batches of its sibling it let pass while it waited. */
        passed: 0,
      }));
      const count = (held: Map<string, number>, group: string, by: number): void => {
        const n = (held.get(group) ?? 0) + by;
        if (n > 0) held.set(group, n);
        else held.delete(group);
      };
      /**
       * A lane of deferred items whose sibling had an item within `recentMs` from a group with nothing deferred
       * in this lane.
       */
      const shared = (index: number): boolean => {
        if (!shares || index % 2 === 0) return false;
        const deferred = lanes[index]!.held;
        const now = scheduler.now();
        for (const [group, at] of lanes[index - 1]!.lastAtOf) {
          if (now - at >= shares.recentMs) lanes[index - 1]!.lastAtOf.delete(group);
          else if (!deferred.has(group)) return true;
        }
        return false;
      };
      /**
       * The next batch of a lane, taken from its buffer: for a lane of deferred items that has not let
       * SHARED_TURN batches pass yet, only items of groups with nothing buffered or in flight in its sibling.
       */
      const takeBatch = (index: number, maxSize: number): T[] => {
        const lane = lanes[index]!;
        if (!shares || index % 2 === 0 || lane.passed >= SHARED_TURN) return lane.buffer.splice(0, maxSize);
        const live = lanes[index - 1]!.held;
        const batch: T[] = [];
        const rest: T[] = [];
        for (const item of lane.buffer) {
          if (batch.length < maxSize && !live.has(shares.groupOf(item))) batch.push(item);
          else rest.push(item);
        }
        lane.buffer = rest;
        return batch;
      };
      /** A lane of deferred items all of whose groups wait for their items in its sibling. */
      const allHeldBack = (index: number): boolean => {
        const lane = lanes[index]!;
        if (!shares || index % 2 === 0 || lane.passed >= SHARED_TURN) return false;
        const live = lanes[index - 1]!.held;
        for (const group of lane.held.keys()) if (!live.has(group)) return false;
        return true;
      };
      const limitOf = (index: number): number => {
        const limit = sizeLimit();
        return shared(index) ? Math.max(1, Math.min(limit, shares!.sizeWhileShared())) : limit;
      };
      let done = false;
      let timer: Subscription | null = null;
      const batches = new Subscription();

      const clearTimer = (): void => {
        timer?.unsubscribe();
        timer = null;
      };

      const completeIfDrained = (): void => {
        if (done && lanes.every((l) => l.buffer.length === 0 && l.inFlight === 0)) subscriber.complete();
      };

      const pumpAll = (): void => {
        clearTimer();
        for (let i = 0; i < laneCount; i++) pump(i, true);
      };

      const pump = (index: number, force: boolean): void => {
        const lane = lanes[index]!;
        const maxSize = limitOf(index);
        if (lane.inFlight >= perLane) return;
        if (shared(index) && lanes[index - 1]!.inFlight > 0 && lane.passed < SHARED_TURN) return;
        if (lane.buffer.length === 0) return completeIfDrained();
        if (allHeldBack(index)) return;
        if (!force && !done && lane.buffer.length < maxSize) {
          timer ??= scheduler.schedule(() => {
            timer = null;
            pumpAll();
          }, maxWaitMs);
          return;
        }
        const batch = takeBatch(index, maxSize);
        lane.inFlight++;
        lane.passed = 0;
        if (lanes.every((l) => l.buffer.length === 0)) clearTimer();
        batches.add(
          from(apply(batch)).subscribe({
            next: (result) => subscriber.next(result),
            error: (err: unknown) => subscriber.error(err),
            complete: () => {
              lane.inFlight--;
              if (shares) for (const item of batch) count(lane.held, shares.groupOf(item), -1);
              // What arrived meanwhile already waited at least one batch: send it now.
              pump(index, lane.buffer.length > 0);
              if (shares && index % 2 === 0) {
                // The lane's backlog had its turn now, unless another batch of the others just started.
                const backlog = lanes[index + 1]!;
                if (backlog.buffer.length > 0 && backlog.inFlight === 0 && lane.inFlight > 0) backlog.passed++;
                pump(index + 1, backlog.buffer.length > 0);
              }
            },
          }),
        );
        // With room for more batches in flight, a full buffer starts the next one at once.
        if (lane.buffer.length >= maxSize) pump(index, true);
      };

      const sub = source.subscribe({
        next: (item) => {
          const base = laneOf ? Math.abs(laneOf(item)) % baseLanes : 0;
          const index = shares ? base * 2 + (shares.deferred(item) ? 1 : 0) : base;
          const lane = lanes[index]!;
          lane.buffer.push(item);
          if (shares) {
            const group = shares.groupOf(item);
            count(lane.held, group, 1);
            if (index % 2 === 0) lane.lastAtOf.set(group, scheduler.now());
          }
          pump(index, lane.buffer.length >= limitOf(index));
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          done = true;
          pumpAll();
          completeIfDrained();
        },
      });
      return () => {
        clearTimer();
        batches.unsubscribe();
        sub.unsubscribe();
      };
    });
}
