/**
 * Adaptive batching: items are buffered while the previous batch is being applied, and the next batch
 * takes everything that waited (up to `maxSize`). At low rates a batch closes `maxWaitMs` after its first
 * item (low latency); under load batches grow by themselves, which amortizes the per-batch work (and the
 * recomputation of persons seen in several batches). `bufferTime` + `concatMap` would instead queue many
 * small fixed batches behind a slow one. With `maxInFlight` > 1, that many batches are applied at once
 * (their results may arrive out of order); completion flushes what is left.
 */
import { Observable, type OperatorFunction } from 'rxjs';

export function batchWhileBusy<T, R>(
  maxSize: number,
  maxWaitMs: number,
  apply: (batch: T[]) => Promise<R>,
  maxInFlight = 1,
): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      const buffer: T[] = [];
      let inFlight = 0;
      let done = false;
      let timer: NodeJS.Timeout | null = null;

      const clearTimer = (): void => {
        if (timer) clearTimeout(timer);
        timer = null;
      };

      const pump = (force: boolean): void => {
        if (inFlight >= maxInFlight) return;
        if (buffer.length === 0) {
          if (done && inFlight === 0) subscriber.complete();
          return;
        }
        if (!force && !done && buffer.length < maxSize) {
          timer ??= setTimeout(() => {
            timer = null;
            pump(true);
          }, maxWaitMs);
          return;
        }
        clearTimer();
        inFlight++;
        const batch = buffer.splice(0, maxSize);
        apply(batch).then(
          (result) => {
            inFlight--;
            subscriber.next(result);
            // What arrived meanwhile already waited at least one batch: send it now.
            pump(buffer.length > 0);
          },
          (err: unknown) => subscriber.error(err),
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
        sub.unsubscribe();
      };
    });
}
