/**
 * When each destination last delivered and last failed, for `get/connection/destination` (docs/product.md,
 * Settings). Written at most once per interval per destination and outcome, off the delivery path: a lost
 * write only makes the time a little older, so errors are logged and dropped.
 */
import type { Db } from '../../storage/db';
import type { Logger } from '../../runtime/logger';

export type DeliveryStatusNote = (storeId: string, destinationId: string, delivered: boolean) => void;

export function createDeliveryStatusRecorder(
  db: Db,
  logger: Logger,
  everyMs: number,
  now: () => number,
): DeliveryStatusNote {
  const lastWrite = new Map<string, number>();
  return (storeId, destinationId, delivered) => {
    const key = `${storeId}\u0000${destinationId}\u0000${delivered ? 'ok' : 'fail'}`;
    const t = now();
    if (t - (lastWrite.get(key) ?? -Infinity) < everyMs) return;
    lastWrite.set(key, t);
    const column = delivered ? 'last_delivery_at' : 'last_failure_at';
    db.query(
      delivered ? 'webhook.status_delivered' : 'webhook.status_failed',
      `update webhook_destinations set ${column} = $3 where store_id = $1 and destination_id = $2`,
      [storeId, destinationId, new Date(t).toISOString()],
    ).catch((err: unknown) =>
      logger.warn({ err, store: storeId, destination: destinationId }, 'could not record delivery status'),
    );
  };
}
