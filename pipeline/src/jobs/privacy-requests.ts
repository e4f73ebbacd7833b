/**
 * Runs the privacy requests the API and the Shopify receiver record (docs/operations.md, Privacy): an erasure or a
 * store deletion needs the pipeline's view maintenance and the streams, so the API hands it over. A request runs
 * when the API asks for it (`PRIVACY_REQUESTS_SUBJECT`, answered when done) and, should nobody have been there to
 * hear it, from the job that takes whatever is pending every minute.
 */
import type { ErasureCounts } from '../../../contracts/src/privacy';
import type { Logger } from '../../../runtime/logger';
import { claimPrivacyRequest, finishPrivacyRequest, pendingPrivacyRequests } from '../../../storage/privacy';
import { erasePerson, type ErasureDeps } from '../operations/erase-person';
import { deleteStore, type DeletionCounts } from '../operations/delete-store';

/** What running a request answers: null when it was not this worker's to run (done, or running elsewhere). */
export type PrivacyRunOutcome =
  { status: 'done'; result: ErasureCounts | DeletionCounts } | { status: 'failed'; error: string } | null;

/** Reports how long a request ran (the daemon's `pipeline_privacy_request_seconds`). */
export type OnPrivacyRun = (kind: string, outcome: 'done' | 'failed', seconds: number) => void;

export async function runPrivacyRequest(
  deps: ErasureDeps,
  requestId: string,
  logger: Logger,
  onRun?: OnPrivacyRun,
): Promise<PrivacyRunOutcome> {
  const request = await claimPrivacyRequest(deps.db, requestId);
  if (!request) return null;
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const who = { source: request.source, credential: request.credential, requestedAt: request.received_at };
  try {
    let result: ErasureCounts | DeletionCounts;
    switch (request.kind) {
      case 'erase':
        if (!request.subject) throw new Error('the request names nobody');
        result = await erasePerson(deps, { storeId: request.store_id, subject: request.subject, ...who });
        break;
      case 'delete_store':
        result = await deleteStore(deps, { storeId: request.store_id, ...who });
        break;
      case 'export':
        throw new Error('an export is answered when it is asked for');
    }
    // A deleted store's requests went with it; the audit keeps the deletion.
    await finishPrivacyRequest(deps.db.query, requestId, { result });
    onRun?.(request.kind, 'done', seconds());
    logger.info({ requestId, kind: request.kind, storeId: request.store_id, result }, 'privacy request done');
    return { status: 'done', result };
  } catch (err) {
    logger.error({ err, requestId, kind: request.kind, storeId: request.store_id }, 'privacy request failed');
    const error = err instanceof Error ? err.message : String(err);
    // Left running, the request would be taken again once abandoned; failed, it waits for the operator.
    await finishPrivacyRequest(deps.db.query, requestId, { error }).catch(() => undefined);
    onRun?.(request.kind, 'failed', seconds());
    return { status: 'failed', error };
  }
}

/** Runs every pending request (and those a dead worker abandoned), oldest first. */
export async function runPendingPrivacyRequests(
  deps: ErasureDeps,
  logger: Logger,
  onRun?: OnPrivacyRun,
): Promise<{ ran: number; failed: number }> {
  let ran = 0;
  let failed = 0;
  for (const id of await pendingPrivacyRequests(deps.db)) {
    const outcome = await runPrivacyRequest(deps, id, logger, onRun);
    if (outcome) ran++;
    if (outcome?.status === 'failed') failed++;
  }
  return { ran, failed };
}
