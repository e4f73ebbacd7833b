/**
 * Verified credentials, kept briefly (see docs/decisions.md, Credentials and tenancy). A credential verified
 * less than `freshMs` ago is trusted without asking the database (one lookup per key and few seconds, not
 * one per request); an older one is looked up again, and when the database cannot answer, a credential
 * verified less than `staleMs` ago is still trusted, so that ingestion rides out a short database outage
 * (JetStream holds the events meanwhile). Unknown credentials are never cached. Keys are credential
 * digests, never secrets.
 */
import type { StoreRecord } from '../../../storage/store-registry';

export interface CredentialCacheOptions {
  freshMs: number;
  staleMs: number;
  maxEntries?: number;
  now?: () => number;
}

export class CredentialCache {
  private readonly entries = new Map<string, { store: StoreRecord; verifiedAt: number }>();
  private readonly now: () => number;
  private readonly maxEntries: number;

  constructor(private readonly opts: CredentialCacheOptions) {
    this.now = opts.now ?? Date.now;
    this.maxEntries = opts.maxEntries ?? 10_000;
  }

  /** The store of a credential: cached, or loaded; a failed load falls back to a stale entry or throws. */
  async lookup(digest: string, load: () => Promise<StoreRecord | null>): Promise<StoreRecord | null> {
    const cached = this.entries.get(digest);
    const age = cached ? this.now() - cached.verifiedAt : Infinity;
    if (cached && age < this.opts.freshMs) return cached.store;
    let store: StoreRecord | null;
    try {
      store = await load();
    } catch (err) {
      if (cached && age < this.opts.staleMs) return cached.store;
      throw err;
    }
    this.entries.delete(digest);
    if (store) {
      this.entries.set(digest, { store, verifiedAt: this.now() });
      // Oldest first in a Map's order: drop the oldest verification when full.
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return store;
  }
}
