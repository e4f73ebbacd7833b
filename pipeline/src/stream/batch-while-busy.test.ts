import { Subject, lastValueFrom, toArray } from 'rxjs';
import { batchWhileBusy } from './batch-while-busy';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('batchWhileBusy', () => {
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
    const done = lastValueFrom(
      src.pipe(
        batchWhileBusy(1000, 5, async (b) => {
          sizes.push(b.length);
          await tick(30);
          return b;
        }),
        toArray(),
      ),
    );
    for (let i = 0; i < 50; i++) {
      src.next(i);
      await tick(2);
    }
    src.complete();
    const batches = await done;
    expect(batches.flat()).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(batches.length).toBeLessThan(10);
    expect(Math.max(...sizes)).toBeGreaterThan(5);
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
