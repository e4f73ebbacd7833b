/**
 * Gathers the purchases of one destination into batches: a batch goes out when it reaches the platform's size
 * or `lingerMs` after its first purchase, whichever comes first. Each purchase's promise settles with its own
 * result from the batch's flush (or with the flush's error).
 */
export interface Batcher<T, R> {
  add(key: string, item: T): Promise<R>;
  /** Purchases waiting for their batch to go out. */
  waiting(): number;
}

interface Pending<T, R> {
  items: T[];
  settle: Array<{ resolve: (r: R) => void; reject: (err: unknown) => void }>;
  timer: NodeJS.Timeout;
}

export function createBatcher<T, R>(opts: {
  lingerMs: number;
  maxSize: (key: string, first: T) => number;
  flush: (key: string, items: T[]) => Promise<R[]>;
}): Batcher<T, R> {
  const open = new Map<string, Pending<T, R>>();
  let waiting = 0;

  function send(key: string): void {
    const batch = open.get(key);
    if (!batch) return;
    open.delete(key);
    clearTimeout(batch.timer);
    waiting -= batch.items.length;
    opts.flush(key, batch.items).then(
      (results) => batch.settle.forEach((s, i) => s.resolve(results[i]!)),
      (err: unknown) => batch.settle.forEach((s) => s.reject(err)),
    );
  }

  return {
    add(key, item) {
      return new Promise<R>((resolve, reject) => {
        let batch = open.get(key);
        if (!batch) {
          batch = { items: [], settle: [], timer: setTimeout(() => send(key), opts.lingerMs) };
          open.set(key, batch);
        }
        batch.items.push(item);
        batch.settle.push({ resolve, reject });
        waiting++;
        if (batch.items.length >= opts.maxSize(key, batch.items[0]!)) send(key);
      });
    },
    waiting: () => waiting,
  };
}
