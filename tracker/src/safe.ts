/** The tracker runs inside someone else's page: no error of ours may ever reach it. */
export function safe<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
  return (...args: A) => {
    try {
      fn(...args);
    } catch {
      // Swallowed on purpose: a broken tracker must not break the store.
    }
  };
}
