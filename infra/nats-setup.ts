/**
 * Applies the stream and consumer definitions kept as data in infra/nats/ (docs/product.md, Ingestion), idempotently:
 * add, and on "already exists" update. nats-server 2.9 features only (one filter subject per consumer).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager, type ConsumerConfig, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { consumerName, partitionToken, pipelineConsumers } from '../contracts/src/subjects';

const NATS_DIR = path.join(__dirname, 'nats');

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(NATS_DIR, file), 'utf8')) as Record<string, unknown>;
}

export interface NatsSetupOptions {
  partitions: number;
  /** Replicas of the stream (3 on the cluster of `make cluster`). */
  replicas?: number;
  /** Redelivery delay of unacked messages; the data file's value when absent (tests shorten it). */
  ackWaitMs?: number;
  /**
   * How many days the EVENTS stream keeps a message (the data file's 30 when absent): what a replay or a rebuild
   * can restore (docs/operations.md, Privacy). 0 keeps them until deleted.
   */
  eventsMaxAgeDays?: number;
}

const NANOS_PER_DAY = 86_400 * 1e9;

export function streamConfig(opts: NatsSetupOptions): StreamConfig {
  const cfg = readJson('stream.events.json') as unknown as StreamConfig;
  const maxAge = opts.eventsMaxAgeDays === undefined ? cfg.max_age : opts.eventsMaxAgeDays * NANOS_PER_DAY;
  return { ...cfg, num_replicas: opts.replicas ?? cfg.num_replicas, max_age: maxAge };
}

/** The consumer of one partition, or of its overflow twin (`ev.o<partition>.>`). */
export function pipelineConsumerConfig(partition: number, ackWaitMs?: number, overflow = false): ConsumerConfig {
  const template = fs.readFileSync(path.join(NATS_DIR, 'consumer.pipeline.json'), 'utf8');
  const cfg = JSON.parse(template.replaceAll('{partition}', partitionToken(partition, overflow))) as ConsumerConfig;
  cfg.durable_name = consumerName(partition, overflow);
  if (ackWaitMs !== undefined) cfg.ack_wait = ackWaitMs * 1_000_000;
  return cfg;
}

function isAlreadyExists(err: unknown): boolean {
  return err instanceof Error && /already (in use|exists)/i.test(err.message);
}

async function upsertStream(jsm: JetStreamManager, cfg: StreamConfig): Promise<void> {
  try {
    await jsm.streams.add(cfg);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    await jsm.streams.update(cfg.name, cfg);
  }
}

async function upsertConsumer(jsm: JetStreamManager, stream: string, cfg: ConsumerConfig): Promise<void> {
  try {
    await jsm.consumers.add(stream, cfg);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    await jsm.consumers.update(stream, cfg.durable_name ?? '', cfg);
  }
}

/**
 * The delivery stream and its two shared consumers: identity-event webhooks, and purchases for the ad platforms
 * (docs/product.md, Identity events and destinations; Conversions to the ad platforms).
 */
export function webhookStreamConfig(opts: NatsSetupOptions): { stream: StreamConfig; consumers: ConsumerConfig[] } {
  const stream = readJson('stream.webhooks.json') as unknown as StreamConfig;
  const consumers = ['consumer.webhooks.json', 'consumer.ad-conversions.json'].map((file) => {
    const consumer = readJson(file) as unknown as ConsumerConfig;
    if (opts.ackWaitMs !== undefined) consumer.ack_wait = opts.ackWaitMs * 1_000_000;
    return consumer;
  });
  return { stream: { ...stream, num_replicas: opts.replicas ?? stream.num_replicas }, consumers };
}

export async function setupNats(nc: NatsConnection, opts: NatsSetupOptions): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const stream = streamConfig(opts);
  await upsertStream(jsm, stream);
  const partitions = Array.from({ length: opts.partitions }, (_, p) => p);
  for (const { partition, overflow } of pipelineConsumers(partitions)) {
    await upsertConsumer(jsm, stream.name, pipelineConsumerConfig(partition, opts.ackWaitMs, overflow));
  }
  const webhooks = webhookStreamConfig(opts);
  await upsertStream(jsm, webhooks.stream);
  for (const consumer of webhooks.consumers) await upsertConsumer(jsm, webhooks.stream.name, consumer);
}
