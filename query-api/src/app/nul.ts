/** NUL characters: PostgreSQL text and jsonb cannot hold them, so input carrying one is refused by name. */

/** Path of the first string (key or value) containing NUL in a parsed body, or null. */
export function findNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return `${path}.(key)`;
      const found = findNul(v, path === 'body' ? k : `${path}.${k}`);
      if (found) return found;
    }
  }
  return null;
}
