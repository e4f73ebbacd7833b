/**
 * Asks the pipeline to run a privacy request now (docs/operations.md, Privacy): an erasure retracts views, which
 * only the pipeline's maintenance does. A core NATS request to the daemons' queue group, answered when the request
 * is done; null when no daemon answered in time (the request then stays pending for the pipeline's job).
 */
import type { NatsConnection } from '@nats-io/nats-core';
import { PRIVACY_REQUESTS_SUBJECT } from '../../../contracts/src/privacy';

export type PipelineAnswer =
  { status: 'done'; result: unknown } | { status: 'failed'; error: string } | { status: 'not_pending' };

export type AskPipeline = (requestId: string, timeoutMs: number) => Promise<PipelineAnswer | null>;

export function pipelineRequester(nc: NatsConnection): AskPipeline {
  return async (requestId, timeoutMs) => {
    if (timeoutMs <= 0) return null;
    try {
      const reply = await nc.request(PRIVACY_REQUESTS_SUBJECT, requestId, { timeout: timeoutMs });
      return reply.json<PipelineAnswer>();
    } catch {
      // No responder (no daemon running) or none in time: the request is pending.
      return null;
    }
  };
}
