/**
 * The webhook delivery worker (docs/product.md, Identity events and destinations): PostgreSQL, NATS, the
 * delivery loops over the shared `webhook-worker` consumer (identity events) and `ad-conversions` consumer
 * (purchases for the ad platforms), the health/metrics server. `main.ts` runs it as a
 * daemon (run any number of them); tests start it in-process with `startWebhookWorker`. Draining stops
 * pulling and finishes the attempts in flight within WEBHOOK_SHUTDOWN_TIMEOUT_MS.
 */
import type { Server } from 'node:http';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { AD_CONVERSIONS_CONSUMER, WEBHOOK_CONSUMER, WEBHOOKS_STREAM } from '../../../contracts/src/webhook-delivery';
import type { Db } from '../../../storage/db';
import { connectDependencies, dependencyChecks, retryStartup } from '../../../runtime/lifecycle';
import type { Logger } from '../../../runtime/logger';
import { postWebhook } from '../deliver';
import {
  createDeliveryHandler,
  createDestinationCache,
  fromJsMsg,
  runDeliveryLoop,
  type DeliveryObserver,
} from '../delivery-worker';
import {
  getDestinationForDelivery,
  insertDeadLetter,
  setDestinationEnabled,
  unreadableKlaviyoKeys,
} from '../destination-repo';
import { createWebhookMetrics, type WebhookMetrics } from '../metrics';
import { createSecretBox, type SecretBox } from '../../../storage/secret-box';
import { createDeliveryStatusRecorder } from '../delivery-status';
import { startHealthServer } from '../../../runtime/health-server';
import { shutdown } from '../../../runtime/shutdown';
import type { WebhookWorkerConfig } from './config';
import { createAdDeliveryHandler, type AdDeliveryObserver } from '../conversions/ad-delivery';
import { postAdRequest } from '../conversions/ad-http';
import { createGoogleTokenCache } from '../conversions/google-token';

export interface RunningWebhookWorker {
  metrics: WebhookMetrics;
  db: Db;
  nc: NatsConnection;
  healthServer: Server | null;
  /** Resolves when the worker has stopped; rejects when the consumer failed. */
  done: Promise<void>;
  /** Drains and closes. Idempotent. */
  stop(): Promise<void>;
  isDraining(): boolean;
}

export interface WebhookWorkerDeps {
  /** Skip the HTTP health server (in-process tests). */
  withoutHealthServer?: boolean;
  fetchImpl?: typeof fetch;
}

export async function startWebhookWorker(
  config: WebhookWorkerConfig,
  logger: Logger,
  deps: WebhookWorkerDeps = {},
): Promise<RunningWebhookWorker> {
  const metrics = createWebhookMetrics();
  const { db, nc, jsm } = await connectDependencies(
    'webhook-worker',
    { ...config, statementTimeoutMs: 10_000 },
    logger,
    metrics.dbQuery,
  );
  const js = jetstream(nc);
  const infos = await retryStartup(
    `consumers ${WEBHOOK_CONSUMER} and ${AD_CONVERSIONS_CONSUMER} of stream ${WEBHOOKS_STREAM} (created by npm run nats:setup)`,
    () =>
      Promise.all([
        jsm.consumers.info(WEBHOOKS_STREAM, WEBHOOK_CONSUMER),
        jsm.consumers.info(WEBHOOKS_STREAM, AD_CONVERSIONS_CONSUMER),
      ]),
    { logger, timeoutMs: config.startupTimeoutMs },
  );
  // Messages in hand are kept alive with working() at half the shorter ack_wait of the two consumers.
  const ackWaitMs = Math.max(1000, Math.min(...infos.map((i) => Math.round((i.config.ack_wait ?? 30e9) / 1e6))));
  if (config.timeoutMs >= ackWaitMs) {
    logger.warn(
      { timeoutMs: config.timeoutMs, ackWaitMs },
      'WEBHOOK_TIMEOUT_MS is not below the consumer ack_wait: attempts in flight are kept alive with working(), ' +
        'but deliveries waiting for a free slot may be redelivered meanwhile',
    );
  }

  // Klaviyo private keys are opened with SECRETS_KEY; without it plain webhooks still work (see docs/operations.md).
  const secretBox = config.secretsKey ? createSecretBox(config.secretsKey) : null;
  await reportUnreadableKlaviyoKeys(db, secretBox, logger).catch((err: unknown) =>
    logger.warn({ err }, "could not check the klaviyo destinations' keys at start"),
  );

  const cache = createDestinationCache(
    (s, d) => getDestinationForDelivery(db, s, d, secretBox),
    config.destinationCacheMs,
    Date.now,
  );
  const noteStatus = createDeliveryStatusRecorder(db, logger, 5000, Date.now);
  const observer: DeliveryObserver & Pick<AdDeliveryObserver, 'adBatch' | 'adPurchase'> = {
    attempt(a) {
      if (a.outcome !== 'requeued') noteStatus(a.storeId, a.destinationId, a.outcome === 'delivered');
      metrics.attempts.inc({ status: a.statusClass });
      metrics.duration.observe({ status: a.statusClass }, a.latencyMs / 1000);
      const fields = {
        store: a.storeId,
        destination: a.destinationId,
        webhook_id: a.webhookId,
        event: a.eventName,
        attempt: a.attempt,
        host: a.host,
        status: a.status,
        status_class: a.statusClass,
        latency_ms: a.latencyMs,
        outcome: a.outcome,
        error: a.error,
        retry_in_ms: a.retryInMs,
      };
      if (a.outcome === 'delivered') logger.info(fields, 'webhook attempt');
      else logger.warn(fields, 'webhook attempt');
    },
    adBatch(b) {
      metrics.adRequests.inc({ destination: b.destinationId, kind: b.kind, verdict: b.verdict });
      metrics.adBatchSize.observe({ kind: b.kind }, b.size);
      if (b.verdict === 'answered' && b.refused > 0) {
        metrics.adRefused.inc({ destination: b.destinationId, kind: b.kind }, b.refused);
      }
      const fields = {
        store: b.storeId,
        destination: b.destinationId,
        kind: b.kind,
        size: b.size,
        status: b.status,
        latency_ms: b.latencyMs,
        verdict: b.verdict,
        refused: b.refused,
        error: b.error,
        // Meta's remarks on the events it took (a missing parameter, a hash it could not read).
        notes: b.notes.length ? b.notes.slice(0, 20) : undefined,
      };
      if (b.verdict === 'answered' && b.refused === 0 && b.notes.length === 0)
        logger.info(fields, 'ad platform request');
      else logger.warn(fields, 'ad platform request');
    },
    adPurchase(p) {
      metrics.adConversions.inc({ destination: p.destinationId, kind: p.kind, outcome: p.outcome });
    },
    handled(h) {
      metrics.deliveries.inc({ outcome: h.outcome });
      if (h.lagMs !== undefined) metrics.lag.observe(h.lagMs / 1000);
      const fields = {
        store: h.storeId,
        destination: h.destinationId,
        webhook_id: h.webhookId,
        seq: h.seq,
        attempt: h.attempt,
        reason: h.reason,
        err: h.err,
      };
      if (h.outcome === 'dead_letter' || h.outcome === 'disabled') logger.warn(fields, `webhook ${h.outcome}`);
      else if (h.outcome === 'requeued') logger.warn(fields, 'webhook delivery handed back for later');
    },
  };
  const postAd = (request: Parameters<typeof postAdRequest>[0], signal?: AbortSignal) =>
    postAdRequest(request, { timeoutMs: config.timeoutMs, signal, fetchImpl: deps.fetchImpl });
  const googleTokens = createGoogleTokenCache(config.adPlatforms.endpoints.googleOauthTokenUrl, postAd, Date.now);
  const adDelivery = createAdDeliveryHandler(
    {
      deadLetter: (dl) => insertDeadLetter(db, dl),
      post: postAd,
      googleToken: (c) => googleTokens.accessToken(c),
      forgetGoogleToken: (id) => googleTokens.forget(id),
      now: Date.now,
      random: Math.random,
    },
    { ...config.adPlatforms, backoff: config.backoff, userAgent: config.userAgent },
    observer,
  );
  const handle = createDeliveryHandler(
    {
      loadDestination: cache.get,
      disableDestination: async (s, d, reason) => {
        await setDestinationEnabled(db, s, d, false, reason);
        cache.invalidate(s, d);
      },
      deadLetter: (dl) => insertDeadLetter(db, dl),
      post: (opts) => postWebhook({ ...opts, fetchImpl: deps.fetchImpl }),
      now: Date.now,
      random: Math.random,
      adDelivery,
    },
    {
      timeoutMs: config.timeoutMs,
      backoff: config.backoff,
      userAgent: config.userAgent,
      workingEveryMs: Math.max(500, Math.floor(ackWaitMs / 2)),
      requeueDelayMs: 5000,
    },
    observer,
  );

  // Two loops over the one stream: identity webhooks, a few attempts at once; purchases for the ad platforms,
  // many at once, since each waits in memory for its platform's batch (docs/decisions.md, Conversions to the ad
  // platforms).
  const startLoop = async (consumerName: string, concurrency: number) => {
    const consumer = await js.consumers.get(WEBHOOKS_STREAM, consumerName);
    const messages = await consumer.consume({ max_messages: concurrency });
    return runDeliveryLoop(
      messages,
      async (m, signal) => {
        metrics.inFlight.inc();
        try {
          await handle(fromJsMsg(m), signal);
        } finally {
          metrics.inFlight.dec();
        }
      },
      {
        concurrency,
        release: (m) => m.nak(),
        onError: (err) => logger.error({ err, consumer: consumerName }, 'webhook handler failed'),
      },
    );
  };
  const loops = [
    { consumer: WEBHOOK_CONSUMER, loop: await startLoop(WEBHOOK_CONSUMER, config.concurrency) },
    {
      consumer: AD_CONVERSIONS_CONSUMER,
      loop: await startLoop(AD_CONVERSIONS_CONSUMER, config.adPlatforms.inFlight),
    },
  ];
  const lifecycle = shutdown(logger);

  const pendingTimer = setInterval(() => {
    for (const { consumer } of loops) {
      void jsm.consumers
        .info(WEBHOOKS_STREAM, consumer)
        .then((i) => {
          metrics.consumerPending.set({ consumer, state: 'pending' }, i.num_pending);
          metrics.consumerPending.set({ consumer, state: 'ack_pending' }, i.num_ack_pending);
        })
        .catch(() => undefined);
    }
  }, 5000);
  pendingTimer.unref();

  const healthServer = deps.withoutHealthServer
    ? null
    : await startHealthServer({
        host: config.healthHost,
        port: config.healthPort,
        registry: metrics.registry,
        checks: {
          ...dependencyChecks({ isDraining: lifecycle.isDraining, nc, db }),
          consumer: async () => {
            const details = await Promise.all(
              loops.map(async ({ consumer, loop }) => {
                if (!loop.isRunning()) return { ok: false, detail: `${consumer} not attached` };
                const i = await jsm.consumers.info(WEBHOOKS_STREAM, consumer);
                return {
                  ok: true,
                  detail: `${consumer} attached; ${i.num_pending} pending, ${i.num_ack_pending} in flight or waiting to retry`,
                };
              }),
            );
            return { ok: details.every((d) => d.ok), detail: details.map((d) => d.detail).join('; ') };
          },
        },
      });

  const stop = lifecycle.stopWith({
    drain: async () => {
      const inFlight = loops.reduce((n, l) => n + l.loop.inFlight(), 0);
      logger.info({ inFlight }, 'draining: stop pulling, finish the attempts in flight');
      await Promise.all(loops.map((l) => l.loop.stop(config.shutdownTimeoutMs)));
      clearInterval(pendingTimer);
    },
    nc,
    db,
    healthServer,
  });
  // Either loop ending outside a drain (its consumer deleted) ends the worker, which the supervisor restarts.
  const done = Promise.race(loops.map((l) => l.loop.done)).then(() => (lifecycle.isDraining() ? stop() : undefined));

  return { metrics, db, nc, healthServer, done, stop, isDraining: lifecycle.isDraining };
}

/** Says at start when enabled Klaviyo destinations exist whose keys cannot be read (no or another SECRETS_KEY). */
async function reportUnreadableKlaviyoKeys(db: Db, box: SecretBox | null, logger: Logger): Promise<void> {
  const { total, unreadable } = await unreadableKlaviyoKeys(db, box);
  if (unreadable.length === 0) return;
  logger.error(
    {
      klaviyo_destinations: total,
      unreadable: unreadable.slice(0, 20),
      secrets_key_id: box?.keyId ?? null,
    },
    box
      ? `${unreadable.length} klaviyo destination(s) have a key that SECRETS_KEY does not open: their deliveries ` +
          'are dead-lettered until the key is re-entered (webhook rotate-key) or the former SECRETS_KEY is restored'
      : `${unreadable.length} klaviyo destination(s) exist but SECRETS_KEY is not set: their deliveries are ` +
          'dead-lettered until it is (plain webhooks are not affected)',
  );
}
