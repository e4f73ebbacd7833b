/**
 * Builds and runs the pipeline daemon: NATS source, batch writer with view maintenance, health server.
 * `main.ts` wires it to the process (signals, exit codes); tests start it in-process.
 */
import type { Server } from 'node:http';
import type { Subscription } from 'rxjs';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { EVENTS_STREAM, partitionToken, pipelineConsumers } from '../../../contracts/src/subjects';
import type { Db } from '../../../storage/db';
import { connectDependencies, dependencyChecks, retryStartup } from '../../../runtime/lifecycle';
import type { Logger } from '../../../runtime/logger';
import { consumePartitions } from '../adapters/nats-source';
import { createBatchWriter, type MaintainViews } from '../adapters/pg-batch-writer';
import { createRawPayloadWriter } from '../adapters/pg-raw-payloads';
import { buildPipeline, type PipelineReport } from '../stream/build-pipeline';
import type { PipelineConfig } from './config';
import { startHealthServer } from '../../../runtime/health-server';
import { shutdown } from '../../../runtime/shutdown';
import { startJobs } from '../jobs/scheduler';
import { rehearse } from './rehearsal';
import { standardJobs } from './standard-jobs';
import { createPipelineMetrics, type PipelineMetrics } from './metrics';
import { watchPlannerCounts } from '../adapters/planner-counts';
import { STREAM_FACT_TABLES, VIEW_TABLES } from '../../../storage/schema';
import { deleteStreamMessages } from '../adapters/stream-erasure';
import { servePrivacyRequests } from './privacy-responder';

export interface RunningPipeline {
  metrics: PipelineMetrics;
  db: Db;
  nc: NatsConnection;
  healthServer: Server | null;
  /** Resolves when the pipeline has stopped (after stop() or a fatal error). */
  done: Promise<void>;
  /** Drains: stop pulling, commit and ack the batch in hand, close connections. Idempotent. */
  stop(): Promise<void>;
  isDraining(): boolean;
}

export interface PipelineDeps {
  /**
   * The batch's view maintenance, given the daemon's metrics and JetStream (for its webhook deliveries); without
   * metrics for the rehearsal at start, whose batches count in none.
   */
  maintainViews: (metrics: PipelineMetrics | null, js: JetStreamClient) => MaintainViews;
  /** Skip the HTTP health server (tests that run several pipelines). */
  withoutHealthServer?: boolean;
  /** Skip the scheduled jobs (tests run them directly). */
  withoutJobs?: boolean;
}

export async function startPipeline(
  config: PipelineConfig,
  logger: Logger,
  deps: PipelineDeps,
): Promise<RunningPipeline> {
  const metrics = createPipelineMetrics();
  const { db, nc, jsm } = await connectDependencies('pipeline', config, logger, metrics.dbQuery);
  const js = jetstream(nc);
  // A consumer that is missing is a setup problem (npm run nats:setup); on a cluster still electing its
  // leaders it is only late. Either way the wait says which one is awaited.
  for (const { name } of pipelineConsumers(config.partitions)) {
    await retryStartup(
      `consumer ${name} of stream ${EVENTS_STREAM} (created by npm run nats:setup)`,
      () => jsm.consumers.info(EVENTS_STREAM, name),
      { logger, timeoutMs: config.startupTimeoutMs },
    );
  }

  // Messages of erased persons that were still in flight leave the stream too (docs/operations.md, Privacy).
  const onErasedMessages = (seqs: number[]): void =>
    void deleteStreamMessages(jsm, seqs).catch((err: unknown) =>
      logger.warn({ err, messages: seqs.length }, 'messages of erased persons not deleted from the stream'),
    );
  const rawPayloads = createRawPayloadWriter(db, {
    onErasedMessages,
    onCommitted: (counts) => {
      for (const [result, n] of Object.entries(counts) as Array<[string, number]>)
        if (n) metrics.rawPayloads.inc({ result }, n);
    },
    onQueued: (n) => metrics.rawPayloadsQueued.set(n),
    onFailed: (err, events) => {
      metrics.rawPayloads.inc({ result: 'failed' }, events);
      logger.warn({ err, events }, 'raw payloads not written; their messages come back after the ack wait');
    },
    onRefused: (item, err) => {
      metrics.rawPayloads.inc({ result: 'refused' });
      logger.error(
        { err, seq: item.msg.seq, subject: item.msg.subject },
        'raw payload refused by PostgreSQL; left out',
      );
    },
  });
  const writer = withFaultInjection(
    createBatchWriter(db, deps.maintainViews(metrics, js), { onErasedMessages, rawPayloads }),
    config.faultKillAfterCommits,
  );
  // Compiled before the first message rather than while the first minute's batches wait (docs/decisions.md,
  // Operations, "The daemon rehearses before it takes messages").
  const rehearsal = await rehearse(
    db,
    deps.maintainViews(null, js),
    { messages: config.rehearsalMessages, now: Date.now() },
    logger,
  );
  metrics.rehearsalSeconds.set(rehearsal?.seconds ?? 0);
  const source = consumePartitions(js, config.partitions, config.pullMax, (consumer, err) =>
    logger.warn({ err, consumer }, 'consumer interrupted; resuming'),
  );
  const lifecycle = shutdown(logger);
  let lastCommitAt = Date.now();

  const onReport = (r: PipelineReport): void => {
    switch (r.type) {
      case 'committed': {
        const o = r.outcome;
        metrics.eventsConsumed.inc({ result: 'stored' }, o.stored);
        metrics.eventsConsumed.inc({ result: 'duplicate' }, o.duplicates);
        metrics.eventsConsumed.inc({ result: 'dead_letter' }, o.deadLettered);
        if (o.erased) metrics.eventsConsumed.inc({ result: 'erased' }, o.erased);
        for (const [kind, n] of Object.entries(o.pushes ?? {})) if (n) metrics.pushesApplied.inc({ kind }, n);
        metrics.batchSize.observe(o.size);
        metrics.flushDuration.observe(r.seconds);
        const now = Date.now();
        lastCommitAt = now;
        metrics.lastCommit.set(now / 1000);
        for (const t of o.receivedAt) metrics.visibility.observe((now - t) / 1000);
        if (config.visibilityByStore && o.storeIds) {
          o.storeIds.forEach((store, i) => metrics.storeVisibility.observe({ store }, (now - o.receivedAt[i]!) / 1000));
        }
        if (o.receivedAt.length) metrics.viewFreshness.set((now - Math.max(...o.receivedAt)) / 1000);
        logger.debug(
          { size: o.size, stored: o.stored, duplicates: o.duplicates, dead: o.deadLettered, seconds: r.seconds },
          'batch committed',
        );
        break;
      }
      case 'nak':
        metrics.batchFailures.inc({ outcome: 'nak' });
        logger.warn({ err: r.error, size: r.size }, 'batch failed on a transient error; asked for redelivery');
        break;
      case 'isolated':
        metrics.batchFailures.inc({ outcome: 'isolated' });
        logger.error(
          { err: r.error, size: r.size },
          'batch failed; applying it in halves to find the message at fault',
        );
        break;
    }
  };

  let resolveDone: () => void = () => undefined;
  let rejectDone: (err: unknown) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  const subscription: Subscription = buildPipeline(source.messages$, writer, {
    flushMs: config.flushMs,
    batchMax: config.batchMax,
    batchTargetMs: config.batchTargetMs,
    sharedBatchTargetMs: config.sharedBatchTargetMs,
    retries: 5,
    retryBaseMs: 200,
    nakDelayMs: 2000,
    concurrency: config.concurrency,
  }).subscribe({ next: onReport, error: (err: unknown) => rejectDone(err), complete: () => resolveDone() });

  // Consumer lag: messages not yet acknowledged, per owned partition and overflow twin (`o<n>`): a gauge and a
  // readiness bound.
  let pendingTotal = 0;
  const refreshPending = async (): Promise<number> => {
    const counts = await Promise.all(
      pipelineConsumers(config.partitions).map(async (c) => {
        const info = await jsm.consumers.info(EVENTS_STREAM, c.name);
        const n = info.num_pending + info.num_ack_pending;
        metrics.consumerPending.set({ partition: partitionToken(c.partition, c.overflow) }, n);
        return n;
      }),
    );
    pendingTotal = counts.reduce((a, b) => a + b, 0);
    return pendingTotal;
  };
  const pendingTimer = setInterval(() => void refreshPending().catch(() => undefined), 5000);
  pendingTimer.unref();

  // A count taken while a table was nearly empty (autovacuum's first visit to a new installation) would make the
  // batch's keyed lookups read the store's whole range per key until a later count (docs/decisions.md, Operations).
  // Only small counts are taken again: from a thousand rows on, autovacuum's counts keep the plans right.
  const plannerCounts =
    config.plannerCountCheckMs > 0
      ? watchPlannerCounts(db, [...STREAM_FACT_TABLES, ...VIEW_TABLES], logger, {
          everyMs: config.plannerCountCheckMs,
          countsBelow: 1000,
          onAnalyzed: (tables) => {
            for (const table of tables) metrics.plannerCountAnalyzes.inc({ table });
          },
        })
      : null;

  const jobs =
    config.jobs.enabled && !deps.withoutJobs
      ? startJobs(db, standardJobs(db, config, logger, metrics, nc, jsm), logger, (name, ok) =>
          metrics.jobRuns.inc({ job: name, outcome: ok ? 'ok' : 'failed' }),
        )
      : null;

  const privacy = servePrivacyRequests({ db, nc, jsm }, logger, (kind, outcome, seconds) =>
    metrics.privacyRequests.observe({ kind, outcome }, seconds),
  );

  const healthServer = deps.withoutHealthServer
    ? null
    : await startHealthServer({
        host: config.healthHost,
        port: config.healthPort,
        registry: metrics.registry,
        checks: {
          ...dependencyChecks({ isDraining: lifecycle.isDraining, nc, db }),
          // Attached, and the lag (messages waiting for this worker) under PIPELINE_READY_MAX_PENDING.
          consumers: async () => {
            const pending = await refreshPending();
            const ok = pending <= config.readyMaxPending;
            return {
              ok,
              detail:
                `${config.partitions.length} attached, ${pending} pending` +
                (ok ? '' : ` (over ${config.readyMaxPending})`) +
                `, last commit ${Math.round((Date.now() - lastCommitAt) / 1000)} s ago`,
            };
          },
        },
      });

  const stop = lifecycle.stopWith({
    drain: async () => {
      logger.info('draining: stop pulling, commit and ack the batch in hand');
      await source.stop();
      await privacy.stop();
      await Promise.race([
        Promise.all([done.catch(() => undefined).then(() => rawPayloads.drain()), jobs?.stop()]),
        delay(config.shutdownTimeoutMs),
      ]);
      subscription.unsubscribe();
      clearInterval(pendingTimer);
      await plannerCounts?.stop();
    },
    nc,
    db,
    healthServer,
  });

  return { metrics, db, nc, healthServer, done, stop, isDraining: lifecycle.isDraining };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Test-only fault injection: dies by SIGKILL right after the n-th commit, before its messages are acked. */
function withFaultInjection<W extends { applyBatch: (...args: never[]) => Promise<unknown> }>(
  writer: W,
  killAfterCommits: number,
): W {
  if (killAfterCommits <= 0) return writer;
  let commits = 0;
  const applyBatch = async (...args: Parameters<W['applyBatch']>) => {
    const result = await writer.applyBatch(...args);
    if (++commits >= killAfterCommits) process.kill(process.pid, 'SIGKILL');
    return result;
  };
  return { ...writer, applyBatch };
}
