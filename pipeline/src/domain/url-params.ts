/**
 * Landing-URL parsing for touchpoint derivation (docs/product.md, Sessions and touchpoints: UTMs and click ids only
 * live in the landing URL's query string). Pure: uses the WHATWG `URL` global, which does no I/O, and remembers
 * the answers it gave last (a memo: the same input gets an equal answer, never a changed one).
 */

/** A landing URL reduced to what touchpoint derivation needs; shared between callers, so never changed. */
export interface ParsedLandingUrl {
  /** Host name, lower-case, without port and without a leading `www.`. */
  readonly host: string;
  /** Path without query or fragment (still percent-encoded as in the URL); `/` when empty. */
  readonly path: string;
  /** Query parameters: the first value of each key, keys exactly as given. Look up with {@link getParam}. */
  readonly params: ReadonlyMap<string, string>;
}

/**
 * The URLs parsed last, with their results. Recomputing a person reads each of its page URLs three times (the
 * store's own hosts, the session's touchpoint, the tracking-link codes), and the next batch that touches the
 * person reads them again; `new URL` is the costly part. Bounded: the oldest entry goes first.
 */
const parsedUrls = new Map<string, ParsedLandingUrl | null>();
const PARSED_URLS_KEPT = 10_000;

/**
 * Parses an absolute URL (any scheme with a host, in practice http/https). Returns `null` for an empty,
 * relative or otherwise unparsable string, and for URLs without a host (`mailto:`, `about:blank`).
 * Only the query string is read for parameters; a fragment (`#utm_source=...`) is ignored.
 */
export function parseLandingUrl(href: string): ParsedLandingUrl | null {
  const kept = parsedUrls.get(href);
  if (kept !== undefined) return kept;
  const parsed = parseUncached(href);
  if (parsedUrls.size >= PARSED_URLS_KEPT) parsedUrls.delete(parsedUrls.keys().next().value!);
  parsedUrls.set(href, parsed);
  return parsed;
}

function parseUncached(href: string): ParsedLandingUrl | null {
  const url = parseAbsoluteUrl(href);
  if (url === null) return null;
  const params = new Map<string, string>();
  for (const [key, value] of url.searchParams) {
    if (!params.has(key)) params.set(key, value);
  }
  return Object.freeze({ host: normalizeHost(url.hostname), path: url.pathname === '' ? '/' : url.pathname, params });
}

/**
 * Parses `href` as an absolute URL with a non-empty host, or returns `null`. Shared with the referrer
 * classifier so both read URLs the same way.
 */
export function parseAbsoluteUrl(href: string): URL | null {
  const trimmed = href.trim();
  if (trimmed === '') return null;
  let url: URL;
  try {
    url = new URL(trimmed); // no base: relative URLs throw
  } catch {
    return null;
  }
  return url.hostname === '' ? null : url;
}

/** Lower-cases a host name and drops a trailing dot and a leading `www.`. */
export function normalizeHost(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host.startsWith('www.') ? host.slice(4) : host;
}

/**
 * Looks a parameter up case-insensitively (`UTM_SOURCE` finds `utm_source`), also under an `amp;` prefix
 * (`?a=1&amp;utm_medium=x`, a common double-encoding in e-mail links). Returns the first value, in URL
 * order, that is non-empty after trimming; the value is trimmed but its case is kept. `undefined` when
 * absent or blank.
 */
export function getParam(params: ReadonlyMap<string, string>, name: string): string | undefined {
  return lookupOf(params).get(name.toLowerCase());
}

/**
 * Each parameter map's answers to getParam, by normalized key: a touchpoint asks about twenty names of the same
 * URL, and each question used to walk and normalize every key again. Kept by map, so a map must not change once
 * asked (those of parsed URLs never do).
 */
const lookups = new WeakMap<ReadonlyMap<string, string>, Map<string, string>>();

function lookupOf(params: ReadonlyMap<string, string>): Map<string, string> {
  let lookup = lookups.get(params);
  if (lookup) return lookup;
  lookup = new Map<string, string>();
  for (const [key, value] of params) {
    const normalized = normalizeKey(key);
    if (lookup.has(normalized)) continue;
    const trimmed = value.trim();
    if (trimmed !== '') lookup.set(normalized, trimmed);
  }
  lookups.set(params, lookup);
  return lookup;
}

function normalizeKey(key: string): string {
  let k = key.trim().toLowerCase();
  while (k.startsWith('amp;')) k = k.slice(4);
  return k;
}
