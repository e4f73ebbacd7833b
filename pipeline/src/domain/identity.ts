/**
 * Persons as connected components of identity links (docs/product.md, Identity). The root of a component is its smallest
 * member, so merging incrementally and recomputing from all the links give the same person ids.
 */
export class PersonUnion {
  private readonly parent = new Map<string, string>();

  /** The component root of `x` (registering `x` as its own component when new). */
  find(x: string): string {
    let root = x;
    while (this.parent.has(root) && this.parent.get(root) !== root) root = this.parent.get(root)!;
    if (!this.parent.has(root)) this.parent.set(root, root);
    for (let cur = x; cur !== root;) {
      const next = this.parent.get(cur)!;
      this.parent.set(cur, root);
      cur = next;
    }
    return root;
  }

  /** Joins the components of `a` and `b`; the smaller root stays the root. */
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    if (ra < rb) this.parent.set(rb, ra);
    else this.parent.set(ra, rb);
  }
}

/**
 * Persons from identity links (`[client id, key]`): clients that share a key are one person, whatever the order of
 * the links. Clients without a link are their own person when looked up.
 */
export function personsOfLinks(links: Iterable<readonly [string, string]>): PersonUnion {
  const persons = new PersonUnion();
  const firstOfKey = new Map<string, string>();
  for (const [clientId, key] of links) {
    const first = firstOfKey.get(key);
    if (first === undefined) firstOfKey.set(key, clientId);
    else persons.union(first, clientId);
  }
  return persons;
}
