/**
 * Privacy operations of the API (docs/operations.md, Privacy): erase a person (recorded, then run by the pipeline,
 * which holds the view maintenance; the answer waits for it), export a person (read here), and the requests of
 * Shopify's privacy webhooks. Every request is scoped to the caller's store.
 */
import {
  type PersonExport,
  type PrivacyEraseData,
  type PrivacySubjectRequest,
  type ErasureCounts,
  privacySubjectOf,
  type PrivacySubject,
} from '../../../../contracts/src/privacy';
import type { Db, Query } from '../../../../storage/db';
import type { Logger } from '../../../../runtime/logger';
import type { StoreRecord } from '../../../../storage/store-registry';
import { credentialLabel, insertPrivacyRequest, recordPrivacyAudit } from '../../../../storage/privacy';
import type { AskPipeline } from '../../adapters/pipeline-requests';
import { ApiError, badRequest } from '../../app/errors';
import type { PrivacyHookRequest } from '../store-hooks/shopify-privacy';
import { exportPerson } from './person-export';

export interface PrivacyServiceDeps {
  db: Db;
  askPipeline: AskPipeline;
  /** How long an erasure waits for the pipeline before it answers `pending`. */
  waitMs: number;
  logger: Logger;
  now: () => number;
}

/** The caller, as a request and the audit name it. */
export interface PrivacyCaller {
  store: StoreRecord;
  kind: string;
  keyId: string;
}

function subjectOf(body: PrivacySubjectRequest): PrivacySubject {
  const parsed = privacySubjectOf(body ?? {});
  if (!parsed.ok) throw badRequest(parsed.field, parsed.message);
  return parsed.subject;
}

/** What an export holds, for the audit (counts only). */
const exportCounts = (doc: PersonExport): Record<string, number> => ({
  clients: doc.identifiers.client_ids.length,
  events: doc.events.length,
  orders: doc.orders.length,
  customers: doc.customers.length,
  link_clicks: doc.link_clicks.length,
});

export class PrivacyService {
  constructor(private readonly deps: PrivacyServiceDeps) {}

  async erase(caller: PrivacyCaller, body: PrivacySubjectRequest): Promise<PrivacyEraseData> {
    const subject = subjectOf(body);
    const requestId = await insertPrivacyRequest(this.deps.db.query, {
      storeId: caller.store.store_id,
      kind: 'erase',
      source: 'api',
      credential: credentialLabel(caller.kind, caller.keyId),
      subject,
    });
    const answer = await this.deps.askPipeline(requestId, this.deps.waitMs);
    if (answer?.status === 'done')
      return { request_id: requestId, status: 'done', removed: answer.result as ErasureCounts };
    if (answer?.status === 'failed') {
      this.deps.logger.error({ requestId, error: answer.error }, 'erasure failed');
      throw new ApiError(503, `service: the erasure ${requestId} failed; send the request again`, {
        'Retry-After': '5',
      });
    }
    return { request_id: requestId, status: 'pending', removed: null };
  }

  async export(caller: PrivacyCaller, body: PrivacySubjectRequest): Promise<PersonExport> {
    const subject = subjectOf(body);
    const requestedAt = new Date(this.deps.now());
    return this.deps.db.transaction(
      'privacy.export',
      async (tx) => {
        const doc = await exportPerson(tx, caller.store.store_id, subject, this.deps.now());
        await recordPrivacyAudit(tx, {
          storeId: caller.store.store_id,
          action: 'export',
          source: 'api',
          credential: credentialLabel(caller.kind, caller.keyId),
          requestedAt,
          counts: exportCounts(doc),
        });
        return doc;
      },
      { isolation: 'repeatable read' },
    );
  }

  /**
   * Records what a verified Shopify privacy webhook asks, in the delivery's transaction: an export is made at once
   * and kept for the operator; an erasure or a store deletion is queued for the pipeline. Returns the id of a
   * queued request (to `start` once committed).
   */
  async recordShopify(
    tx: Query,
    store: StoreRecord,
    connectionId: string,
    request: PrivacyHookRequest,
  ): Promise<string | null> {
    const base = { storeId: store.store_id, source: 'shopify' as const, credential: `shopify:${connectionId}` };
    switch (request.kind) {
      case 'export': {
        const doc = await exportPerson(tx, store.store_id, request.subject, this.deps.now());
        await insertPrivacyRequest(tx, { ...base, kind: 'export', subject: null, result: doc });
        await recordPrivacyAudit(tx, {
          ...base,
          action: 'export',
          requestedAt: new Date(this.deps.now()),
          counts: exportCounts(doc),
        });
        return null;
      }
      case 'erase':
        return insertPrivacyRequest(tx, { ...base, kind: 'erase', subject: request.subject });
      case 'delete_store':
        return insertPrivacyRequest(tx, { ...base, kind: 'delete_store', subject: null });
    }
  }

  /** Asks the pipeline to run a queued request now, without waiting (its job runs it otherwise). */
  start(requestId: string): void {
    void this.deps.askPipeline(requestId, this.deps.waitMs).catch(() => undefined);
  }
}
