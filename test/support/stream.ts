/**
 * Waiting on the pipeline's consumers instead of on the clock. The pipeline acknowledges a message only after the
 * transaction of its batch has committed (docs/decisions.md), and a batch queues its webhook deliveries before
 * that commit, so a partition whose consumer has nothing pending or unacknowledged has applied everything
 * published to it before the question was asked, and queued every delivery that follows from it.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { EVENTS_STREAM, pipelineConsumers } from '../../contracts/src/subjects';
import { TEST_PARTITIONS } from './env';
import { waitFor } from './harness';

const ALL_PARTITIONS = Array.from({ length: TEST_PARTITIONS }, (_, p) => p);

/**
 * Messages of the EVENTS stream not yet delivered or not yet acknowledged by the pipeline, on these partitions and
 * their overflow twins.
 */
export async function eventsNotApplied(nc: NatsConnection, partitions: readonly number[] = ALL_PARTITIONS) {
  const jsm = await jetstreamManager(nc);
  let n = 0;
  for (const c of pipelineConsumers(partitions)) {
    const info = await jsm.consumers.info(EVENTS_STREAM, c.name);
    n += info.num_pending + info.num_ack_pending;
  }
  return n;
}

/** The ack waits of the pipeline's consumers, in ms, one entry per distinct value. */
export async function pipelineAckWaitsMs(nc: NatsConnection): Promise<number[]> {
  const jsm = await jetstreamManager(nc);
  const waits = new Set<number>();
  for (const c of pipelineConsumers(ALL_PARTITIONS)) {
    const info = await jsm.consumers.info(EVENTS_STREAM, c.name);
    waits.add(Math.round((info.config.ack_wait ?? 0) / 1e6));
  }
  return [...waits];
}

/**
 * Resolves once the pipeline has applied (committed and acknowledged) every message published to these
 * partitions so far. A consumer that cannot be asked (a cluster electing a leader) counts as not caught up.
 */
export async function pipelineCaughtUp(
  nc: NatsConnection,
  partitions: readonly number[] = ALL_PARTITIONS,
  timeoutMs = 60_000,
): Promise<void> {
  await waitFor(
    () => eventsNotApplied(nc, partitions).catch(() => -1),
    (n) => n === 0,
    timeoutMs,
    100,
  );
}
