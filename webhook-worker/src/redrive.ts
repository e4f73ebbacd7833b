/**
 * Sends dead-lettered deliveries again (docs/product.md, Identity events and destinations): each is re-published to the WEBHOOKS stream with its
 * original `webhook-id` (what the receiver dedupes on) under a new Nats-Msg-Id, so the stream's duplicate window
 * does not drop it, and the dead letter is marked redriven. A redriven delivery starts a fresh retry schedule.
 * Dead letters of a disabled or removed destination are skipped: enable the destination first.
 */
import { adConversionSubject, webhookSubject, type WebhookDelivery } from '../../contracts/src/webhook-delivery';
import type { Db } from '../../storage/db';
import { deadLettersToRedrive, markRedriven, type DeadLetterFilter } from './destination-repo';
import { isAdPlatformKind } from './destination-rules';

/** Publishes one delivery with a Nats-Msg-Id and waits for the stream's ack. */
export type PublishDelivery = (subject: string, delivery: WebhookDelivery, msgId: string) => Promise<void>;

export interface RedriveReport {
  redriven: Array<{ id: number; destination: string; webhook_id: string }>;
  skipped: Array<{ id: number; destination: string; webhook_id: string; reason: string }>;
}

/** The Nats-Msg-Id of a redrive: distinct per dead letter, so a repeated redrive of the same one is deduped. */
export function redriveMsgId(webhookId: string, deadLetterId: number): string {
  return `${webhookId}:redrive:${deadLetterId}`;
}

export async function redriveDeadLetters(
  db: Db,
  publish: PublishDelivery,
  filter: Omit<DeadLetterFilter, 'includeRedriven'>,
  now: () => number = Date.now,
): Promise<RedriveReport> {
  const report: RedriveReport = { redriven: [], skipped: [] };
  for (const dl of await deadLettersToRedrive(db, filter)) {
    const ref = { id: dl.id, destination: dl.destinationId, webhook_id: dl.webhookId };
    if (dl.destinationEnabled === null) {
      report.skipped.push({ ...ref, reason: 'destination removed' });
      continue;
    }
    if (!dl.destinationEnabled) {
      report.skipped.push({ ...ref, reason: 'destination disabled (enable it first)' });
      continue;
    }
    const delivery: WebhookDelivery = {
      webhookId: dl.webhookId,
      storeId: filter.storeId,
      destinationId: dl.destinationId,
      name: dl.eventName,
      // The dead letter does not keep the source event id; it only labels logs.
      eventId: '',
      body: dl.body,
      enqueuedAt: now(),
    };
    const subject = dl.destinationKind && isAdPlatformKind(dl.destinationKind) ? adConversionSubject : webhookSubject;
    await publish(subject(filter.storeId, dl.destinationId), delivery, redriveMsgId(dl.webhookId, dl.id));
    await markRedriven(db, dl.id);
    report.redriven.push(ref);
  }
  return report;
}
