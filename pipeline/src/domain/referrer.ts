/**
 * Referrer classification (docs/product.md, Sessions and touchpoints step 4): is `document.referrer` empty, the store itself, a search
 * engine, a social network or some other site? The host tables live in `channel-sources.json`
 * (`referrerHosts`), next to the GA4 source lists.
 */
import channelSources from './channel-sources.json';
import { normalizeHost, parseAbsoluteUrl } from './url-params';

export type ReferrerKind = 'none' | 'self' | 'search' | 'social' | 'other';

export interface ReferrerClass {
  kind: ReferrerKind;
  /** Lower-case host name of the referrer as found (may start with `www.`); `""` for `none`. */
  host: string;
  /**
   * `search`/`social`: the engine's or network's name (`google`, `facebook`, ...); `self`/`other`: the host
   * without `www.`; `none`: `""`.
   */
  name: string;
}

/** Network name → host patterns, as stored in `channel-sources.json` (grammar in its `$comment`). */
type HostTable = Readonly<Record<string, readonly string[]>>;

const REFERRER_HOSTS: { readonly search: HostTable; readonly social: HostTable } = channelSources.referrerHosts;

/**
 * A public suffix for `name.*` patterns: one label (`.com`, `.de`, `.xn--p1ai`) or a second-level
 * registry label plus a two-letter country code (`.co.uk`, `.com.au`, `.ne.jp`). Deliberately not the
 * full Public Suffix List: it only has to recognise the big engines' and networks' country domains.
 */
const PUBLIC_SUFFIX = String.raw`\.(?:[a-z0-9-]{2,63}|(?:co|com|net|org|ne|or|ac|gov|edu|gob|go)\.[a-z]{2})`;

interface CompiledNetwork {
  name: string;
  kind: 'search' | 'social';
  patterns: readonly RegExp[];
}

/** Compiles one host pattern (`t.co`, `*.facebook.com`, `google.*`, `*.pinterest.*`) to an anchored regex. */
export function compileHostPattern(pattern: string): RegExp {
  let core = pattern.trim().toLowerCase();
  const anySubdomain = core.startsWith('*.');
  if (anySubdomain) core = core.slice(2);
  const anySuffix = core.endsWith('.*');
  if (anySuffix) core = core.slice(0, -2);
  if (core === '' || core.includes('*')) throw new Error(`invalid host pattern: ${pattern}`);
  const escaped = core.replace(/[.\\^$+?()[\]{}|-]/g, (c) => `\\${c}`);
  return new RegExp(`^${anySubdomain ? '(?:[a-z0-9-]+\\.)*' : ''}${escaped}${anySuffix ? PUBLIC_SUFFIX : ''}$`);
}

function compileTable(kind: 'search' | 'social', table: HostTable): CompiledNetwork[] {
  return Object.entries(table).map(([name, patterns]) => ({ name, kind, patterns: patterns.map(compileHostPattern) }));
}

/** Search engines first, then social networks, each in file order; the first matching network wins. */
const NETWORKS: readonly CompiledNetwork[] = [
  ...compileTable('search', REFERRER_HOSTS.search),
  ...compileTable('social', REFERRER_HOSTS.social),
];

/**
 * The search engine or social network a host belongs to (`www.google.co.uk` → google/search), or
 * `undefined`. The host may carry `www.` and any case.
 */
export function lookupNetwork(host: string): { kind: 'search' | 'social'; name: string } | undefined {
  const h = normalizeHost(host);
  if (h === '') return undefined;
  const hit = NETWORKS.find((n) => n.patterns.some((re) => re.test(h)));
  return hit === undefined ? undefined : { kind: hit.kind, name: hit.name };
}

/**
 * Normalises a configured own host for comparison: lower-case, no `www.`, and tolerant of a scheme, port
 * or path having been configured along with it (`https://Shop.example.com/` → `shop.example.com`).
 */
export function normalizeOwnHost(ownHost: string): string {
  let h = ownHost.trim().toLowerCase();
  const scheme = h.indexOf('://');
  if (scheme >= 0) h = h.slice(scheme + 3);
  h = h.split(/[/?#]/, 1)[0] ?? '';
  h = h.replace(/:\d*$/, '');
  return normalizeHost(h);
}

/**
 * Classifies a referrer URL (docs/product.md, Sessions and touchpoints step 4). Empty or unparsable (including relative) referrers are
 * `none`; a host equal to one of `ownHosts` (both compared without `www.`) is `self`; known search engines
 * and social networks are `search`/`social` with the network's name; anything else is `other`, named by
 * its host without `www.`. Subdomains of an own host are not `self`: list them in `ownHosts`.
 */
export function classifyReferrer(referrer: string, ownHosts: readonly string[]): ReferrerClass {
  const url = parseAbsoluteUrl(referrer);
  if (url === null) return { kind: 'none', host: '', name: '' };
  const rawHost = url.hostname.toLowerCase().replace(/\.$/, '');
  const host = normalizeHost(rawHost);
  if (host === '') return { kind: 'none', host: '', name: '' };
  if (ownHosts.some((own) => normalizeOwnHost(own) === host)) return { kind: 'self', host: rawHost, name: host };
  const network = lookupNetwork(host);
  if (network !== undefined) return { kind: network.kind, host: rawHost, name: network.name };
  return { kind: 'other', host: rawHost, name: host };
}
