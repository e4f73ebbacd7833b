/**
 * The daemon's answer to the API's privacy requests (docs/operations.md, Privacy): the API records the request,
 * then asks on `PRIVACY_REQUESTS_SUBJECT` with its id; one worker of the queue group runs it and answers with the
 * outcome. A request nobody answered stays pending for the `privacy-requests` job.
 */
import type { JetStreamManager } from '@nats-io/jetstream';
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import { PRIVACY_REQUESTS_SUBJECT } from '../../../contracts/src/privacy';
import type { Db } from '../../../storage/db';
import type { Logger } from '../../../runtime/logger';
import { type OnPrivacyRun, runPrivacyRequest } from '../jobs/privacy-requests';

export interface PrivacyResponder {
  /** Stops taking requests and waits for those running. */
  stop(): Promise<void>;
}

export function servePrivacyRequests(
  deps: { db: Db; nc: NatsConnection; jsm: JetStreamManager },
  logger: Logger,
  onRun?: OnPrivacyRun,
): PrivacyResponder {
  const running = new Set<Promise<void>>();
  const answer = async (msg: Msg): Promise<void> => {
    const outcome = await runPrivacyRequest(deps, msg.string(), logger, onRun).catch((err: unknown) => {
      logger.error({ err }, 'privacy request could not be run');
      return { status: 'failed' as const, error: 'the request could not be run' };
    });
    msg.respond(JSON.stringify(outcome ?? { status: 'not_pending' }));
  };
  const sub: Subscription = deps.nc.subscribe(PRIVACY_REQUESTS_SUBJECT, {
    queue: 'pipeline-privacy',
    callback: (err, msg) => {
      if (err) return;
      const run = answer(msg).finally(() => running.delete(run));
      running.add(run);
    },
  });
  return {
    async stop() {
      sub.unsubscribe();
      await Promise.all([...running]);
    },
  };
}
