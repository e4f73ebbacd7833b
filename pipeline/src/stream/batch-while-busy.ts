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
 * starts beside the next one, so that it is never starved. With `shares.keyOf` (the store of an item), a lane's
 * batches of the others are shared between its stores (`fair-batch.ts`): one store's backlog in the buffer then
 * goes in short batches beside everything the other stores sent, instead of ahead of it.
 *
 * `apply` returns its result as an ObservableInput (a Promise, or an Observable emitting it and
 * completing); a batch holds its slot until that completes. Time comes from `scheduler`, so tests can run
 * the operator in virtual time.
 */
import { takeFairBatch } from './fair-batch';
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
  /** The store of an item: where one store holds most of a lane's buffer, the others' items go first. */
  keyOf?: (item: T) => string;
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
        lastAt: -Infinity,
        /** Of a lane of deferred items: batches of its sibling it let pass while it waited. */
        passed: 0,
      }));
      /** A lane of deferred items whose sibling had an item within `recentMs`. */
      const shared = (index: number): boolean =>
        !!shares && index % 2 === 1 && scheduler.now() - lanes[index - 1]!.lastAt < shares.recentMs;
      const limitOf = (index: number): number => {
        const limit = sizeLimit();
        return shared(index) ? Math.max(1, Math.min(limit, shares!.sizeWhileShared())) : limit;
      };
      let done = false;
      let timer: Subscription | null = null;
      const batches = new Subscription();

      /** The next batch of a lane: first come first served, but for a lane of the others shared by store. */
      const takeBatch = (index: number, maxSize: number): T[] => {
        const lane = lanes[index]!;
        if (shares?.keyOf && index % 2 === 0) {
          const short = Math.min(maxSize, shares.sizeWhileShared());
          const fair = takeFairBatch(lane.buffer, shares.keyOf, short, maxSize);
          if (fair) {
            lane.buffer = fair.rest;
            return fair.batch;
          }
        }
        return lane.buffer.splice(0, maxSize);
      };

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
        if (!force && !done && lane.buffer.length < maxSize) {
          timer ??= scheduler.schedule(() => {
            timer = null;
            pumpAll();
          }, maxWaitMs);
          return;
        }
        lane.inFlight++;
        lane.passed = 0;
        const batch = takeBatch(index, maxSize);
        if (lanes.every((l) => l.buffer.length === 0)) clearTimer();
        batches.add(
          from(apply(batch)).subscribe({
            next: (result) => subscriber.next(result),
            error: (err: unknown) => subscriber.error(err),
            complete: () => {
              lane.inFlight--;
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
          lane.lastAt = scheduler.now();
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
