/**
 * Cookies and localStorage, both of which may throw (blocked storage, private modes) or be missing: every
 * access is guarded, and a failure reads as "nothing stored".
 */

export function lsGet(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function lsSet(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Full or blocked: the cookie (or memory) still holds what matters.
  }
}

export function readCookie(name: string): string | null {
  try {
    // Reading `document.cookie` throws in sandboxed frames; events are built either way.
    const m = new RegExp(`(?:^|;\\s*)${name}=([^;]*)`).exec(document.cookie);
    return m ? decodeURIComponent(m[1]!) : null;
  } catch {
    return null;
  }
}

function writeCookie(name: string, value: string, maxAgeS: number, domain?: string): void {
  let c = `${name}=${encodeURIComponent(value)}; path=/; max-age=${maxAgeS}; SameSite=Lax`;
  if (domain) c += `; domain=${domain}`;
  if (location.protocol === 'https:') c += '; Secure';
  document.cookie = c;
}

let siteDomain: string | undefined;

/**
 * The registrable domain of the page (`example.co.uk` for `www.example.co.uk`): the shortest
 * parent domain on which the browser accepts a cookie, since browsers refuse cookies on public suffixes.
 * Empty (a host-only cookie) for IP addresses and single-label hosts such as `localhost`.
 */
function registrableDomain(): string {
  if (siteDomain !== undefined) return siteDomain;
  const host = location.hostname;
  siteDomain = '';
  if (!host.includes('.') || /^[\d.]+$/.test(host) || host.includes(':')) return siteDomain;
  const labels = host.split('.');
  const probe = `_oa_probe${Math.floor(Math.random() * 1e9)}`;
  for (let i = labels.length - 2; i >= 0; i--) {
    const domain = labels.slice(i).join('.');
    writeCookie(probe, '1', 10, domain);
    if (readCookie(probe) === '1') {
      writeCookie(probe, '', 0, domain);
      siteDomain = domain;
      break;
    }
  }
  return siteDomain;
}

/** Sets a first-party cookie on the registrable domain (or the given one), SameSite=Lax, Secure on https. */
export function setSiteCookie(name: string, value: string, maxAgeS: number, domain?: string): void {
  writeCookie(name, value, maxAgeS, domain ?? registrableDomain());
}

/** Deletes the cookie wherever we may have set it (the site domain and the host). */
export function deleteSiteCookie(name: string, domain?: string): void {
  writeCookie(name, '', 0, domain ?? registrableDomain());
  writeCookie(name, '', 0);
}
