/**
 * Route changes of single-page apps: `history.pushState` / `replaceState` (wrapped) and `popstate`. The
 * callback runs after the app's own code of that tick, so the new title is usually in place.
 */
import { safe } from './safe';

export function onRouteChange(callback: () => void): void {
  const later = safe(() => setTimeout(safe(callback), 0));
  for (const method of ['pushState', 'replaceState'] as const) {
    if (typeof history[method] !== 'function') continue;
    const original = history[method].bind(history);
    history[method] = (...args: Parameters<History['pushState']>) => {
      const result = original(...args);
      later();
      return result;
    };
  }
  addEventListener('popstate', later);
}
