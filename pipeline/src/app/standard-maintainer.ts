/**
 * The view maintenance the daemon runs: views, data-quality metrics, identity-event webhook queueing, and the
 * purchases queued for the ad platforms' conversion APIs.
 */
import type { Logger } from '../../../runtime/logger';
import { createViewMaintainer, type MaintainerHooks } from '../adapters/pg-view-maintainer';
import { createIdentityEventEnqueuer } from '../adapters/identity-event-queue';
import { createAdConversionEnqueuer } from '../adapters/ad-conversion-queue';
import type { PipelineDeps } from './daemon';

export function standardMaintainer(
  logger: Logger,
  options: Pick<MaintainerHooks, 'analytics' | 'identityLockRounds'> = {},
): NonNullable<PipelineDeps['maintainViews']> {
  return (metrics, js) =>
    createViewMaintainer(logger, {
      ...options,
      onMissingRate: () => metrics?.dataQuality.inc({ issue: 'missing_rate' }),
      onStep: (step, seconds) => metrics?.batchSteps.inc({ step }, seconds),
      onIdentityLocksExhausted: () => metrics?.identityLocksExhausted.inc(),
      onRecomputed: (counts) => {
        for (const [path, n] of Object.entries(counts)) metrics?.personsRecomputed.inc({ path }, n);
      },
      enqueueIdentityEvents: createIdentityEventEnqueuer(async (subject, delivery) => {
        await js.publish(subject, JSON.stringify(delivery), { msgID: delivery.webhookId });
        metrics?.identityEventsQueued.inc();
      }),
      enqueueAdConversions: createAdConversionEnqueuer(
        async (subject, delivery) => {
          await js.publish(subject, JSON.stringify(delivery), { msgID: delivery.webhookId });
        },
        Date.now,
        (_storeId, outcome, n) => metrics?.adConversions.inc({ outcome }, n),
      ),
    });
}
