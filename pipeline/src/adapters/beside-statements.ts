/**
 * JavaScript computed beside a transaction's statements (docs/decisions.md, Analytics, "Planned beside the
 * writes"). The statements of one transaction run one at a time on its connection, and the next is sent only
 * when the event loop handles the reply to the last: work that runs meanwhile (a batch's analytics plan, the
 * next chunk of a repair) fills the time the database spends on them, provided it gives the loop a turn often.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * A function to await between the steps of long synchronous work: it gives the event loop a turn once
 * `sliceMs` have passed since the last (never when `sliceMs` is 0), so that replies are handled and the next
 * statement sent meanwhile.
 */
export function eventLoopTurns(sliceMs: number): () => Promise<void> {
  if (sliceMs <= 0) return () => Promise.resolve();
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await nextTurn();
    since = performance.now();
  };
}

/**
 * Runs `work` while `background` (statements and computation on the same transaction) is under way. On failure
 * it lets the background end before throwing, so that none of its statements outlives the transaction; when
 * the background failed first, `work` only met the aborted transaction (25P02), and the background's error is
 * then the cause. On success the caller awaits the background itself.
 */
export async function besideBackground<T>(
  background: Promise<unknown> | undefined,
  work: () => Promise<T>,
): Promise<T> {
  background?.catch(() => undefined); // settled below on every path
  try {
    return await work();
  } catch (err) {
    const backgroundError = await background?.then(
      () => undefined,
      (e: unknown) => e,
    );
    throw (err as { code?: unknown }).code === '25P02' && backgroundError ? backgroundError : err;
  }
}
