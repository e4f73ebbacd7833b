import { besideBackground, eventLoopTurns } from './beside-statements';

const aborted = () => Object.assign(new Error('current transaction is aborted'), { code: '25P02' });

describe('eventLoopTurns', () => {
  it('lets a timer that is due run during long synchronous work, and never with a slice of 0', async () => {
    const spin = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    for (const [sliceMs, expectRan] of [
      [1, true],
      [0, false],
    ] as const) {
      let ran = false;
      setImmediate(() => (ran = true));
      const turn = eventLoopTurns(sliceMs);
      let ranMidway = false;
      for (let i = 0; i < 5; i++) {
        spin(1);
        await turn();
        ranMidway ||= ran;
      }
      expect(ranMidway).toBe(expectRan);
      await new Promise((r) => setImmediate(r));
    }
  });
});

describe('besideBackground', () => {
  it('returns what the work returns and leaves the background to the caller', async () => {
    let finish!: () => void;
    const background = new Promise<void>((r) => (finish = r));
    await expect(besideBackground(background, () => Promise.resolve(42))).resolves.toBe(42);
    finish();
    await background;
  });

  it('gives the background’s error when the work only met the aborted transaction', async () => {
    const cause = new Error('the load failed');
    const background = Promise.reject(cause);
    await expect(besideBackground(background, () => Promise.reject(aborted()))).rejects.toBe(cause);
  });

  it('gives the work’s own error otherwise, once the background has ended', async () => {
    const own = new Error('the insert failed');
    let backgroundEnded = false;
    const background = new Promise<void>((r) =>
      setTimeout(() => {
        backgroundEnded = true;
        r();
      }, 20),
    );
    await expect(besideBackground(background, () => Promise.reject(own))).rejects.toBe(own);
    expect(backgroundEnded).toBe(true);
  });

  it('does without a background', async () => {
    await expect(besideBackground(undefined, () => Promise.resolve('done'))).resolves.toBe('done');
    const err = aborted();
    await expect(besideBackground(undefined, () => Promise.reject(err))).rejects.toBe(err);
  });
});
