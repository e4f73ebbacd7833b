/**
 * Verified credentials, kept (see docs/decisions.md, Credentials and tenancy). While the API listens for
 * PostgreSQL's announcements of credential and store changes (`trust(true)`), a credential verified less than
 * `freshMs` ago is trusted without asking the database; any announced change, and any gain or loss of the
 * listening connection, makes every entry stale at once, so that a revocation takes effect as soon as the API
 * hears of it. While it does not listen, every request asks the database. When the database cannot answer,
 * a credential verified less than `staleMs` ago is still trusted, so that ingestion rides out a short outage
 * (JetStream holds the events meanwhile). Unknown credentials are never cached. Keys are credential digests,
 * never secrets.
 */
import type { StoreRecord } from '../../../storage/store-registry';

export interface CredentialCacheOptions {
  freshMs: number;
  staleMs: number;
  maxEntries?: number;
  now?: () => number;
  /** Called for each lookup answered from memory. */
  onHit?: () => void;
}

interface Entry {
  store: StoreRecord;
  verifiedAt: number;
  /** The epoch the verification was read in: fresh only within it. */
  epoch: number;
}

export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly maxEntries: number;
  /** Moves on with every change that may have made a verification wrong; entries of an older one are stale. */
  private epoch = 0;
  private trusted = false;

  constructor(private readonly opts: CredentialCacheOptions) {
    this.now = opts.now ?? Date.now;
    this.maxEntries = opts.maxEntries ?? 10_000;
  }

  /** Whether fresh entries may be served: only while every change would be heard of. */
  trust(listening: boolean): void {
    this.trusted = listening;
    this.epoch++;
  }

  /** A credential or store changed: nothing verified before may be served without asking again. */
  forgetAll(): void {
    this.epoch++;
  }

  /** The store of a credential: cached, or loaded; a failed load falls back to a stale entry or throws. */
  async lookup(digest: string, load: () => Promise<StoreRecord | null>): Promise<StoreRecord | null> {
    const cached = this.entries.get(digest);
    const age = cached ? this.now() - cached.verifiedAt : Infinity;
    if (cached && this.trusted && cached.epoch === this.epoch && age < this.opts.freshMs) {
      this.opts.onHit?.();
      return cached.store;
    }
    const epoch = this.epoch;
    let store: StoreRecord | null;
    try {
      store = await load();
    } catch (err) {
      if (cached && age < this.opts.staleMs) return cached.store;
      throw err;
    }
    this.entries.delete(digest);
    // A change announced while the lookup ran may have come after the row was read: the answer stands for this
    // request (as it would have without a cache), but is not kept.
    if (store && epoch === this.epoch) {
      this.entries.set(digest, { store, verifiedAt: this.now(), epoch });
      // Oldest first in a Map's order: drop the oldest verification when full.
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return store;
  }
}
