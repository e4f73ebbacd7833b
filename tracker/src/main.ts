/**
 * Entry point of `/t.js`. The page's loader stub queues calls in `window.oa.q`; this replaces the stub
 * with the real function and replays them. `<script src=".../t.js" data-key="ik_...">` alone also works.
 */
import { safe } from './safe';
import { Tracker, type TrackerOptions } from './tracker';

declare const __OA_VERSION__: string;

interface OaFunction {
  (...args: unknown[]): void;
  q?: ArrayLike<unknown>[];
  v?: string;
}

function originOf(src: string): string {
  const m = /^(https?:\/\/[^/?#]+)/i.exec(src);
  return m ? m[1]! : '';
}

function optionsFromTag(script: HTMLScriptElement | null): TrackerOptions | null {
  const key = script?.getAttribute('data-key');
  if (!script || !key) return null;
  return {
    key,
    endpoint: script.getAttribute('data-endpoint') || undefined,
    requireConsent: script.getAttribute('data-consent') === 'required',
    cart: script.getAttribute('data-cart') || undefined,
  };
}

safe(() => {
  const w = window as unknown as { oa?: OaFunction };
  const stub = w.oa;
  if (stub && stub.v) return; // loaded twice: the first copy stays in charge
  const script = document.currentScript as HTMLScriptElement | null;
  const tracker = new Tracker(script ? originOf(script.src) : '');
  const oa: OaFunction = (...args: unknown[]) => safe(() => tracker.run(args))();
  oa.v = __OA_VERSION__;
  w.oa = oa;
  const queued = stub && stub.q ? stub.q : [];
  for (let i = 0; i < queued.length; i++) oa(...(Array.prototype.slice.call(queued[i]) as unknown[]));
  const fromTag = optionsFromTag(script);
  if (fromTag) oa('init', fromTag);
})();
