/**
 * Adaptive batching: items are buffered while the previous batch is being applied, and the next batch
 * takes everything that waited (up to `maxSize`). At low rates a batch closes `maxWaitMs` after its first
 * item (low latency); under load batches grow by themselves, which amortizes the per-batch work (and the
 * recomputation of persons seen in several batches). `bufferTime` + `concatMap` would instead queue many
 * small fixed batches behind a slow one. With `maxInFlight` > 1, that many batches are applied at once
 * (their results may arrive out of order); completion flushes what is left.
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
  maxSize: number,
  maxWaitMs: number,
  apply: (batch: T[]) => ObservableInput<R>,
  maxInFlight = 1,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      const buffer: T[] = [];
      let inFlight = 0;
      let done = false;
      let timer: Subscription | null = null;
      const batches = new Subscription();

      const clearTimer = (): void => {
        timer?.unsubscribe();
        timer = null;
      };

      const pump = (force: boolean): void => {
        if (inFlight >= maxInFlight) return;
        if (buffer.length === 0) {
          if (done && inFlight === 0) subscriber.complete();
          return;
        }
        if (!force && !done && buffer.length < maxSize) {
          timer ??= scheduler.schedule(() => {
            timer = null;
            pump(true);
          }, maxWaitMs);
          return;
        }
        clearTimer();
        inFlight++;
        const batch = buffer.splice(0, maxSize);
        batches.add(
          from(apply(batch)).subscribe({
            next: (result) => subscriber.next(result),
            error: (err: unknown) => subscriber.error(err),
            complete: () => {
              inFlight--;
              // What arrived meanwhile already waited at least one batch: send it now.
              pump(buffer.length > 0);
            },
          }),
        );
        // With room for more batches in flight, a full buffer starts the next one at once.
        if (buffer.length >= maxSize) pump(true);
      };

      const sub = source.subscribe({
        next: (item) => {
          buffer.push(item);
          pump(buffer.length >= maxSize);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          done = true;
          pump(true);
        },
      });
      return () => {
        clearTimer();
        batches.unsubscribe();
        sub.unsubscribe();
      };
    });
}
