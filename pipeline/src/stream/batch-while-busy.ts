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

export function batchWhileBusy<T, R>(
  maxSizeOrBound: number | (() => number),
  maxWaitMs: number,
  apply: (batch: T[]) => ObservableInput<R>,
  maxInFlight = 1,
  scheduler: SchedulerLike = asyncScheduler,
  laneOf?: (item: T) => number,
): OperatorFunction<T, R> {
  // A function is asked at each decision: the pipeline bounds its batches by the time they take.
  const sizeLimit = typeof maxSizeOrBound === 'number' ? () => maxSizeOrBound : maxSizeOrBound;
  const laneCount = laneOf ? Math.max(1, maxInFlight) : 1;
  const perLane = laneOf ? 1 : maxInFlight;
  return (source) =>
    new Observable<R>((subscriber) => {
      const lanes = Array.from({ length: laneCount }, () => ({ buffer: [] as T[], inFlight: 0 }));
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
        const maxSize = sizeLimit();
        if (lane.inFlight >= perLane) return;
        if (lane.buffer.length === 0) return completeIfDrained();
        if (!force && !done && lane.buffer.length < maxSize) {
          timer ??= scheduler.schedule(() => {
            timer = null;
            pumpAll();
          }, maxWaitMs);
          return;
        }
        lane.inFlight++;
        const batch = lane.buffer.splice(0, maxSize);
        if (lanes.every((l) => l.buffer.length === 0)) clearTimer();
        batches.add(
          from(apply(batch)).subscribe({
            next: (result) => subscriber.next(result),
            error: (err: unknown) => subscriber.error(err),
            complete: () => {
              lane.inFlight--;
              // What arrived meanwhile already waited at least one batch: send it now.
              pump(index, lane.buffer.length > 0);
            },
          }),
        );
        // With room for more batches in flight, a full buffer starts the next one at once.
        if (lane.buffer.length >= maxSize) pump(index, true);
      };

      const sub = source.subscribe({
        next: (item) => {
          const index = laneOf ? Math.abs(laneOf(item)) % laneCount : 0;
          const lane = lanes[index]!;
          lane.buffer.push(item);
          pump(index, lane.buffer.length >= sizeLimit());
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
