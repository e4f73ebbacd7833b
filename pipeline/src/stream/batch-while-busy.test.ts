import { Subject, from, lastValueFrom, toArray } from 'rxjs';
import { type RunHelpers, TestScheduler } from 'rxjs/testing';
import { batchWhileBusy, SHARED_TURN } from './batch-while-busy';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('batchWhileBusy', () => {
  it('asks a size limit given as a function at each batch (the pipeline bounds batches by their time)', async () => {
    let limit = 2;
    const sizes: number[] = [];
    const out = await lastValueFrom(
      from([1, 2, 3, 4, 5, 6, 7]).pipe(
        batchWhileBusy(
          () => limit,
          1000,
          (b: number[]) => {
            sizes.push(b.length);
            limit = 3;
            return Promise.resolve(b);
          },
        ),
        toArray(),
      ),
    );
    expect(sizes).toEqual([2, 3, 2]);
    expect(out.flat()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('closes a batch maxWait after its first item at low rates', async () => {
    const src = new Subject<number>();
    const seen: number[][] = [];
    const done = lastValueFrom(
      src.pipe(
        batchWhileBusy(100, 20, (b) => Promise.resolve(b)),
        toArray(),
      ),
    );
    src.next(1);
    src.next(2);
    await tick(40);
    src.next(3);
    await tick(40);
    src.complete();
    seen.push(...(await done));
    expect(seen).toEqual([[1, 2], [3]]);
  });

  it('grows batches while the previous one is being applied, keeping order', async () => {
    const src = new Subject<number>();
    const sizes: number[] = [];
    // The first batch is held until the test has sent 49 more items; waiting on these gates, not on fixed
    // times, holds on a busy machine.
    let firstStarted!: () => void;
    const started = new Promise<void>((r) => (firstStarted = r));
    let releaseFirst!: () => void;
    const released = new Promise<void>((r) => (releaseFirst = r));
    let secondApplied!: () => void;
    const second = new Promise<void>((r) => (secondApplied = r));
    const done = lastValueFrom(
      src.pipe(
        batchWhileBusy(1000, 5, async (b) => {
          sizes.push(b.length);
          if (sizes.length === 1) {
            firstStarted();
            await released;
          }
          if (sizes.length === 2) secondApplied();
          return b;
        }),
        toArray(),
      ),
    );
    src.next(0);
    await started;
    for (let i = 1; i < 50; i++) src.next(i);
    releaseFirst();
    await second;
    src.complete();
    const batches = await done;
    expect(batches.flat()).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(sizes).toEqual([1, 49]);
  });

  it('never exceeds maxSize and flushes the rest on completion', async () => {
    const src = new Subject<number>();
    const done = lastValueFrom(
      src.pipe(
        batchWhileBusy(3, 1000, (b) => Promise.resolve(b)),
        toArray(),
      ),
    );
    for (let i = 0; i < 7; i++) src.next(i);
    src.complete();
    expect(await done).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
  });

  it('propagates a failure of the apply function', async () => {
    const src = new Subject<number>();
    const done = lastValueFrom(src.pipe(batchWhileBusy(2, 5, () => Promise.reject(new Error('boom')))));
    src.next(1);
    src.next(2);
    await expect(done).rejects.toThrow('boom');
  });
});

describe('batchWhileBusy in virtual time (marbles: one frame is 1 ms)', () => {
  let scheduler: TestScheduler;
  /** [virtual time, batch] of every call of apply. */
  let started: [number, string[]][];

  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    started = [];
  });

  /** An apply that answers with its batch `frames` ms after it starts (the duration may depend on the call). */
  const applyTaking = (cold: RunHelpers['cold'], frames: number[]) => (batch: string[]) => {
    const ms = frames[Math.min(started.length, frames.length - 1)];
    started.push([scheduler.now(), batch]);
    return cold(ms ? `${ms}ms (x|)` : '(x|)', { x: batch });
  };

  it('closes a batch maxWaitMs after its first item when idle', () => {
    scheduler.run(({ hot, cold, expectObservable }) => {
      const src = hot('a-b 6ms c 8ms |');
      const out = src.pipe(batchWhileBusy(10, 5, applyTaking(cold, [0]), 1, scheduler));
      expectObservable(out).toBe('5ms x 8ms y 3ms |', { x: ['a', 'b'], y: ['c'] });
    });
    expect(started).toEqual([
      [5, ['a', 'b']],
      [14, ['c']],
    ]);
  });

  it('gathers what arrives during a batch into the next one, started as soon as the previous completes', () => {
    scheduler.run(({ hot, cold, expectObservable }) => {
      const src = hot('a 3ms bcd 5ms |');
      const out = src.pipe(batchWhileBusy(10, 3, applyTaking(cold, [4]), 1, scheduler));
      expectObservable(out).toBe('7ms x 3ms y |', { x: ['a'], y: ['b', 'c', 'd'] });
    });
    // The second batch starts at 7, when the first completes, not maxWaitMs after its first item (4 + 3).
    expect(started).toEqual([
      [3, ['a']],
      [7, ['b', 'c', 'd']],
    ]);
  });

  it('caps the next batch at maxSize and sends the rest right after it', () => {
    scheduler.run(({ hot, cold, expectObservable }) => {
      const src = hot('a 3ms bcd 6ms |');
      const out = src.pipe(batchWhileBusy(2, 3, applyTaking(cold, [4]), 1, scheduler));
      expectObservable(out).toBe('7ms x 3ms y 3ms (z|)', { x: ['a'], y: ['b', 'c'], z: ['d'] });
    });
    expect(started).toEqual([
      [3, ['a']],
      [7, ['b', 'c']],
      [11, ['d']],
    ]);
  });

  it('starts a full buffer at once instead of waiting maxWaitMs', () => {
    scheduler.run(({ hot, cold, expectObservable }) => {
      const src = hot('abc 10ms |');
      const out = src.pipe(batchWhileBusy(3, 100, applyTaking(cold, [2]), 1, scheduler));
      expectObservable(out).toBe('4ms x 8ms |', { x: ['a', 'b', 'c'] });
    });
    expect(started).toEqual([[2, ['a', 'b', 'c']]]);
  });

  it('applies two batches at once with maxInFlight 2, and a third when one of them completes', () => {
    scheduler.run(({ hot, cold, expectObservable }) => {
      const src = hot('abcdef 10ms |');
      const out = src.pipe(batchWhileBusy(2, 100, applyTaking(cold, [5]), 2, scheduler));
      expectObservable(out).toBe('6ms x 1ms y 2ms z 4ms |', { x: ['a', 'b'], y: ['c', 'd'], z: ['e', 'f'] });
    });
    expect(started).toEqual([
      [1, ['a', 'b']],
      [3, ['c', 'd']],
      [6, ['e', 'f']],
    ]);
  });

  it('emits results of concurrent batches in the order they complete', () => {
    scheduler.run(({ hot, cold, expectObservable }) => {
      const src = hot('abcd 10ms |');
      const out = src.pipe(batchWhileBusy(2, 100, applyTaking(cold, [5, 1]), 2, scheduler));
      expectObservable(out).toBe('4ms y 1ms x 7ms |', { x: ['a', 'b'], y: ['c', 'd'] });
    });
  });

  it('flushes what is buffered when the source completes, without waiting maxWaitMs', () => {
    scheduler.run(({ hot, cold, expectObservable }) => {
      const src = hot('ab|');
      const out = src.pipe(batchWhileBusy(10, 100, applyTaking(cold, [3]), 1, scheduler));
      expectObservable(out).toBe('5ms (x|)', { x: ['a', 'b'] });
    });
    expect(started).toEqual([[2, ['a', 'b']]]);
  });

  it('completes only after the batches still in flight and the flushed rest are applied', () => {
    scheduler.run(({ hot, cold, expectObservable }) => {
      const src = hot('a--b|');
      const out = src.pipe(batchWhileBusy(10, 2, applyTaking(cold, [3]), 1, scheduler));
      expectObservable(out).toBe('5ms x 2ms (y|)', { x: ['a'], y: ['b'] });
    });
    expect(started).toEqual([
      [2, ['a']],
      [5, ['b']],
    ]);
  });

  // Lanes: a letter with an odd char code ('a', 'c', 'e', 'g') is in lane 1, the others in lane 0.
  const laneOfLetter = (x: string): number => x.charCodeAt(0) % 2;

  it('with lanes, never applies two batches of one lane at once, and a busy lane does not hold up the other', () => {
    scheduler.run(({ hot, cold, expectObservable }) => {
      const src = hot('ab 3ms cde 20ms |');
      // The batch holding 'a' takes 10 ms, the others 2 ms.
      const apply = (batch: string[]) => {
        started.push([scheduler.now(), batch]);
        return cold(batch.includes('a') ? '10ms (x|)' : '2ms (x|)', { x: batch });
      };
      const out = src.pipe(batchWhileBusy(10, 2, apply, 2, scheduler, laneOfLetter));
      expectObservable(out).toBe('4ms y 5ms z 1ms x 1ms w 13ms |', { x: ['a'], y: ['b'], z: ['d'], w: ['c', 'e'] });
    });
    expect(started).toEqual([
      // The timer closes both lanes' first batches.
      [2, ['b']],
      [2, ['a']],
      // Lane 0 goes on while lane 1 is busy: 'd' waits only for the timer.
      [8, ['d']],
      // Lane 1 gathers 'c' and 'e' until its batch in flight completes.
      [12, ['c', 'e']],
    ]);
  });

  it('with lanes, keeps the order of each lane and flushes every lane on completion', () => {
    scheduler.run(({ hot, cold, expectObservable }) => {
      const src = hot('abcdefg|');
      const out = src.pipe(batchWhileBusy(2, 100, applyTaking(cold, [0]), 2, scheduler, laneOfLetter));
      expectObservable(out).toBe('--xy--z(u|)', { x: ['a', 'c'], y: ['b', 'd'], z: ['e', 'g'], u: ['f'] });
    });
  });

  it('propagates an error of the source at once and stops waiting for the batch in flight', () => {
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const inner = cold('5ms (x|)', { x: ['a'] });
      const src = hot('a-#', undefined, new Error('source failed'));
      const out = src.pipe(batchWhileBusy(1, 100, () => inner, 1, scheduler));
      expectObservable(out).toBe('--#', undefined, new Error('source failed'));
      expectSubscriptions(inner.subscriptions).toBe('^-!');
    });
  });

  it('propagates an error of apply and applies nothing more', () => {
    scheduler.run(({ hot, cold, expectObservable }) => {
      const src = hot('a---b|');
      const out = src.pipe(
        batchWhileBusy(
          1,
          100,
          (batch: string[]) => {
            started.push([scheduler.now(), batch]);
            return cold<string[]>('2ms #', undefined, new Error('apply failed'));
          },
          1,
          scheduler,
        ),
      );
      expectObservable(out).toBe('--#', undefined, new Error('apply failed'));
    });
    expect(started).toEqual([[0, ['a']]]);
  });

  describe('with shares: lower-case items live, upper-case ones deferred (the overflow partitions)', () => {
    const shares = (sizeWhileShared: number, recentMs: number) => ({
      deferred: (item: string) => item !== item.toLowerCase(),
      sizeWhileShared: () => sizeWhileShared,
      recentMs,
    });
    const run = (marbles: string, frames: number[], recentMs: number) =>
      scheduler.run(({ hot, cold }) => {
        hot(marbles)
          .pipe(batchWhileBusy(8, 1, applyTaking(cold, frames), 1, scheduler, undefined, shares(4, recentMs)))
          .subscribe();
      });
    const batches = () => started.map(([t, batch]) => `${t}:${batch.join('')}`);

    it('batches the backlog apart, in short batches while live items come, between the live batches', () => {
      // 'a' is applied from 1 to 31; the backlog waits for it, then goes four at a time after 'bcdef'.
      run('a 1ms (ABCDEFGHIJ) (bcdef) 100ms |', [30, 1], 1000);
      expect(batches()).toEqual(['1:a', '31:bcdef', '32:ABCD', '33:EFGH', '34:IJ']);
    });

    it('starts a waiting backlog beside the live batches once it let SHARED_TURN of them pass', () => {
      // Live items keep coming, one while each live batch of 10 ms is applied.
      const live = 'bcdefghijklmnopqrstuvwxyz'.slice(0, SHARED_TURN + 4).split('');
      run(`a 1ms (ABCD) ${live.join(' 9ms ')} 50ms |`, [10], 1000);
      const passed = live.slice(0, SHARED_TURN);
      expect(started.map(([, batch]) => batch.join(''))).toEqual(['a', ...passed, 'ABCD', ...live.slice(SHARED_TURN)]);
      const at = Object.fromEntries(started.map(([t, batch]) => [batch.join(''), t]));
      // The backlog started beside the last live batch it let pass, while that one was in flight.
      expect(at.ABCD).toBe(at[passed.at(-1)!]);
    });

    it('does not make live items wait for a batch of the backlog', () => {
      run('(ABCDEFGH) 1ms a 100ms |', [30, 1], 1000);
      // The backlog came alone: a full batch at once. 'a' goes one maxWait after it came, not after that batch.
      expect(batches()).toEqual(['0:ABCDEFGH', '12:a']);
    });

    it("with keyOf, shares a live batch between stores: one store's backlog does not go ahead of the others", () => {
      const runKeyed = (keyOf?: (item: string) => string) =>
        scheduler.run(({ hot, cold }) => {
          hot('a 1ms (ffffffffffff) (bc) 100ms |')
            .pipe(
              batchWhileBusy(8, 1, applyTaking(cold, [30, 1]), 1, scheduler, undefined, { ...shares(4, 1000), keyOf }),
            )
            .subscribe();
        });
      runKeyed((item) => item);
      // After 'a', a short batch (4): the others' 'b' and 'c' whole, and two of the backlog; then the backlog.
      expect(batches()).toEqual(['1:a', '31:ffbc', '32:ffffffff', '33:ff']);
      // Without it, first come first served.
      scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
      started = [];
      runKeyed();
      expect(batches()).toEqual(['1:a', '31:ffffffff', '32:ffffbc']);
    });

    it('goes back to full batches of the backlog once the live items stopped for recentMs', () => {
      run('a 1ms (ABCDEFGHIJKLMNOP) 100ms |', [1, 40, 1], 20);
      expect(batches()).toEqual(['1:a', '2:ABCD', '42:EFGHIJKL', '43:MNOP']);
    });
  });
});
