/** Prometheus metrics of the pipeline (docs/product.md, Operations), on a registry of its own. */
import { Counter, Gauge, Histogram } from 'prom-client';
import { serviceMetrics } from '../../../runtime/metrics';

export function createPipelineMetrics() {
  const { registry, dbQuery } = serviceMetrics('pipeline');
  const m = {
    registry,
    dbQuery,
    eventsConsumed: new Counter({
      name: 'pipeline_events_consumed_total',
      help: 'Messages consumed, by result (stored, duplicate, dead_letter)',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    pushesApplied: new Counter({
      name: 'pipeline_push_messages_total',
      help: 'Store push and link-click messages committed, by kind (order, product, customer, ad_spend, link_click)',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    batchSize: new Histogram({
      name: 'pipeline_batch_size',
      help: 'Messages per committed batch',
      buckets: [1, 10, 50, 100, 250, 500, 1000, 2000, 5000],
      registers: [registry],
    }),
    flushDuration: new Histogram({
      name: 'pipeline_flush_duration_seconds',
      help: 'Time to apply and commit one batch',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    storeVisibility: new Histogram({
      name: 'pipeline_store_visibility_seconds',
      help: 'Time from API acceptance of an event to its commit in the views, by store (PIPELINE_VISIBILITY_BY_STORE=on only: one series per store)',
      labelNames: ['store'] as const,
      buckets: [0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    visibility: new Histogram({
      name: 'pipeline_visibility_seconds',
      help: 'Time from API acceptance of an event to its commit in the views',
      buckets: [0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    batchSteps: new Counter({
      name: 'pipeline_batch_step_seconds_total',
      help: 'Wall time of the named steps of view maintenance in the batch transactions (lanes overlap)',
      labelNames: ['step'] as const,
      registers: [registry],
    }),
    personsRecomputed: new Counter({
      name: 'pipeline_persons_recomputed_total',
      help: 'Persons recomputed by view maintenance, by path (extended = credited only after what the views held, full, new = nothing stored before); a retried batch counts again',
      labelNames: ['path'] as const,
      registers: [registry],
    }),
    batchFailures: new Counter({
      name: 'pipeline_batch_failures_total',
      help: 'Batches not committed, by outcome (nak = retried later, isolated = split to find a bad message)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    identityLocksExhausted: new Counter({
      name: 'pipeline_identity_locks_exhausted_total',
      help: 'Batch attempts that ran out of identity lock rounds (persons kept being merged by another batch) and were retried',
      registers: [registry],
    }),
    lastCommit: new Gauge({
      name: 'pipeline_last_commit_timestamp_seconds',
      help: 'Unix time of the last committed batch',
      registers: [registry],
    }),
    viewFreshness: new Gauge({
      name: 'pipeline_view_freshness_seconds',
      help: 'Age of the newest event committed to the views, at its commit (receive to commit)',
      registers: [registry],
    }),
    rawPayloads: new Counter({
      name: 'pipeline_raw_payloads_total',
      help: "Storefront events seen by the raw payloads' writer, by result (stored, duplicate, erased, not_kept, refused; failed: to be sent again)",
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    rawPayloadsQueued: new Gauge({
      name: 'pipeline_raw_payloads_queued',
      help: 'Storefront events of committed batches whose raw payloads are not written yet (their messages unacked)',
      registers: [registry],
    }),
    consumerPending: new Gauge({
      name: 'pipeline_consumer_pending',
      help: 'Messages not yet delivered to the pipeline, per partition consumer',
      labelNames: ['partition'] as const,
      registers: [registry],
    }),
    dataQuality: new Counter({
      name: 'pipeline_data_quality_issues_total',
      help: 'Facts processed with a data-quality issue (missing_rate: no conversion rate, 1:1 assumed)',
      labelNames: ['issue'] as const,
      registers: [registry],
    }),
    identityEventsQueued: new Counter({
      name: 'pipeline_webhooks_queued_total',
      help: 'Identity-event webhook deliveries queued on the WEBHOOKS stream',
      registers: [registry],
    }),
    adConversions: new Counter({
      name: 'pipeline_ad_conversions_total',
      help:
        "New purchases of stores with an ad platform's destination, by outcome: queued (on the WEBHOOKS stream, once " +
        'per destination), too_old (more than 7 days old, e.g. a late order push: not sent), consent_withheld (not sent)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    jobRuns: new Counter({
      name: 'pipeline_job_runs_total',
      help: 'Scheduled job runs by job and outcome',
      labelNames: ['job', 'outcome'] as const,
      registers: [registry],
    }),
    reconcileDrift: new Gauge({
      name: 'pipeline_reconcile_drift_rows',
      help: 'Drift rows found by the last scheduled reconciliation (over all stores)',
      registers: [registry],
    }),
    reconcileRepairs: new Counter({
      name: 'pipeline_reconcile_repairs_total',
      help: 'Stores whose views the scheduled reconciliation rebuilt',
      registers: [registry],
    }),
    rehearsalSeconds: new Gauge({
      name: 'pipeline_rehearsal_seconds',
      help: 'How long the rehearsal before taking messages took at start (0: none, or it failed)',
      registers: [registry],
    }),
    rawEventsPruned: new Counter({
      name: 'pipeline_raw_events_pruned_total',
      help: 'Raw event payloads deleted by retention',
      registers: [registry],
    }),
    plannerCountAnalyzes: new Counter({
      name: 'pipeline_planner_count_analyzes_total',
      help: 'ANALYZEs of tables whose live rows outgrew the planner count tenfold, by table',
      labelNames: ['table'] as const,
      registers: [registry],
    }),
    privacyRequests: new Histogram({
      name: 'pipeline_privacy_request_seconds',
      help: 'Privacy requests run (erase, delete_store), from their start to their commit, by kind and outcome',
      labelNames: ['kind', 'outcome'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 120],
      registers: [registry],
    }),
  };
  return m;
}

export type PipelineMetrics = ReturnType<typeof createPipelineMetrics>;
