/** Loads data for a view and re-loads when its inputs change; a stale answer never overwrites a newer one. */
import { useEffect, useState } from 'preact/hooks';

export type Loaded<T> = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; data: T };

export function useData<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ status: 'loading' });
  useEffect(() => {
    let current = true;
    setState({ status: 'loading' });
    load().then(
      (data) => current && setState({ status: 'ready', data }),
      (e: unknown) => current && setState({ status: 'error', message: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      current = false;
    };
  }, deps);
  return state;
}
