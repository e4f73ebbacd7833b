/** Pipeline daemon configuration, from environment variables only (docs/product.md, Operations). */
import { z } from 'zod';
import { DEFAULT_PARTITIONS } from '../../../contracts/src/subjects';
import { spendPullConfigFromEnv, type SpendPullConfig } from '../adapters/ad-platforms/config';
import {
  envCron,
  envInt,
  envLogLevel,
  envRequired,
  envExitWithParent,
  envStartupTimeout,
  parseEnv,
  parsePartitionSet,
} from '../../../runtime/env';

const int = envInt;

const schema = z
  .object({
    NATS_URL: envRequired('nats://127.0.0.1:4222'),
    DATABASE_URL: envRequired('postgres://user:pass@127.0.0.1:5432/attribution'),
    LOG_LEVEL: envLogLevel(),
    STARTUP_TIMEOUT_MS: envStartupTimeout(),
    EXIT_WITH_PARENT: envExitWithParent(),
    EVENT_PARTITIONS: int(DEFAULT_PARTITIONS, 1),
    PIPELINE_PARTITIONS: z
      .string()
      .default('all')
      .superRefine((spec, ctx) => {
        try {
          // Syntax only here (every problem is reported together); the range is checked against EVENT_PARTITIONS below.
          if (spec.trim() !== 'all') parsePartitionSet(spec, Number.MAX_SAFE_INTEGER);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
        }
      }),
    PIPELINE_BATCH_MAX: int(5000, 1),
    /** Batches kept to what commits within this many ms at the recent costs (0: no bound). */
    PIPELINE_BATCH_TARGET_MS: int(3000, 0),
    /**
     * The overflow partitions batched apart from the live ones; while live messages come, their batches are kept to
     * what commits within this many ms, and so are a lane's live batches while one store has a backlog there
     * (docs/decisions.md, Ingestion). 0: batched with the live ones, first come first served.
     */
    PIPELINE_SHARED_BATCH_TARGET_MS: int(400, 0),
    PIPELINE_FLUSH_MS: int(100, 1),
    PIPELINE_PULL_MAX: int(500, 1),
    PIPELINE_HEALTH_PORT: int(9464),
    PIPELINE_HEALTH_HOST: z.string().default('127.0.0.1'),
    PIPELINE_SHUTDOWN_TIMEOUT_MS: int(25000, 1),
    PIPELINE_DB_POOL: int(6, 1),
    PIPELINE_CONCURRENCY: int(2, 1),
    /** The batch's statements prepared once per connection; off behind a pooler in transaction mode. */
    PIPELINE_DB_PREPARED: z.enum(['on', 'off']).default('on'),
    /** The daemon's CPU niceness: it yields the CPU to the API's reads and PostgreSQL (docs/operations.md). */
    PIPELINE_NICE: z.coerce.number().int().min(0).max(19).default(10),
    PIPELINE_JOBS: z.enum(['on', 'off']).default('on'),
    /** The visibility histogram by store too: one series per store, for benches and small deployments. */
    PIPELINE_VISIBILITY_BY_STORE: z.enum(['on', 'off']).default('off'),
    JOB_RECONCILE_CRON: envCron('17 * * * *'),
    JOB_RECONCILE_DAYS: int(3, 1),
    JOB_RECONCILE_REPAIR: z.enum(['true', 'false']).default('true'),
    JOB_RETENTION_CRON: envCron('43 3 * * *'),
    RETENTION_RAW_EVENTS_DAYS: int(90),
    /** How long the pipeline drops messages of erased persons (docs/operations.md, Privacy); at least the stream's age. */
    PRIVACY_TOMBSTONE_DAYS: int(30, 1),
    /** Privacy requests nobody was there to run when they came (docs/operations.md, Privacy). */
    JOB_PRIVACY_CRON: envCron('* * * * *'),
    JOB_HOUSEKEEPING_CRON: envCron('51 4 * * *'),
    DEAD_LETTER_RETENTION_DAYS: int(30),
    /** The ad-spend pull (docs/operations.md, Ad spend from the ad platforms); its platform settings below. */
    JOB_SPEND_PULL_CRON: envCron('7 * * * *'),
    /** The data-driven model's nightly fit (docs/product.md, Attribution, "Data-driven"). */
    JOB_DATA_DRIVEN_FIT_CRON: envCron('29 2 * * *'),
    SECRETS_KEY: z.string().default(''),
    PIPELINE_READY_MAX_PENDING: int(1_000_000, 1),
    /** How often the planner counts of filling tables are checked (docs/decisions.md, Operations; 0 = never). */
    PIPELINE_PLANNER_COUNT_CHECK_MS: int(1000),
    /**
     * Messages of a made-up store the daemon runs through its batch path, rolled back, before it takes any
     * (docs/decisions.md, Operations, "The daemon rehearses before it takes messages"; 0 = none).
     */
    PIPELINE_REHEARSAL_MESSAGES: int(6000, 0),
    /** Fault injection for tests: SIGKILL the process after this many commits, before their acks (0 = off). */
    PIPELINE_FAULT_KILL_AFTER_COMMITS: int(0),
  })
  .transform((env, ctx) => {
    let partitions: number[] = [];
    try {
      partitions = parsePartitionSet(env.PIPELINE_PARTITIONS, env.EVENT_PARTITIONS);
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['PIPELINE_PARTITIONS'], message: (err as Error).message });
    }
    return {
      natsUrl: env.NATS_URL,
      databaseUrl: env.DATABASE_URL,
      logLevel: env.LOG_LEVEL,
      startupTimeoutMs: env.STARTUP_TIMEOUT_MS,
      exitWithParent: env.EXIT_WITH_PARENT,
      eventPartitions: env.EVENT_PARTITIONS,
      partitions,
      batchMax: env.PIPELINE_BATCH_MAX,
      batchTargetMs: env.PIPELINE_BATCH_TARGET_MS,
      sharedBatchTargetMs: env.PIPELINE_SHARED_BATCH_TARGET_MS,
      visibilityByStore: env.PIPELINE_VISIBILITY_BY_STORE === 'on',
      flushMs: env.PIPELINE_FLUSH_MS,
      pullMax: env.PIPELINE_PULL_MAX,
      healthPort: env.PIPELINE_HEALTH_PORT,
      healthHost: env.PIPELINE_HEALTH_HOST,
      shutdownTimeoutMs: env.PIPELINE_SHUTDOWN_TIMEOUT_MS,
      dbPool: env.PIPELINE_DB_POOL,
      preparedStatements: env.PIPELINE_DB_PREPARED === 'on',
      concurrency: env.PIPELINE_CONCURRENCY,
      nice: env.PIPELINE_NICE,
      faultKillAfterCommits: env.PIPELINE_FAULT_KILL_AFTER_COMMITS,
      readyMaxPending: env.PIPELINE_READY_MAX_PENDING,
      plannerCountCheckMs: env.PIPELINE_PLANNER_COUNT_CHECK_MS,
      rehearsalMessages: env.PIPELINE_REHEARSAL_MESSAGES,
      jobs: {
        enabled: env.PIPELINE_JOBS === 'on',
        reconcileCron: env.JOB_RECONCILE_CRON,
        reconcileDays: env.JOB_RECONCILE_DAYS,
        reconcileRepair: env.JOB_RECONCILE_REPAIR === 'true',
        retentionCron: env.JOB_RETENTION_CRON,
        rawEventRetentionDays: env.RETENTION_RAW_EVENTS_DAYS,
        housekeepingCron: env.JOB_HOUSEKEEPING_CRON,
        deadLetterRetentionDays: env.DEAD_LETTER_RETENTION_DAYS,
        tombstoneDays: env.PRIVACY_TOMBSTONE_DAYS,
        privacyCron: env.JOB_PRIVACY_CRON,
        spendPullCron: env.JOB_SPEND_PULL_CRON,
        dataDrivenFitCron: env.JOB_DATA_DRIVEN_FIT_CRON,
      },
      secretsKey: env.SECRETS_KEY,
    };
  });

export type PipelineConfig = z.output<typeof schema> & { spendPull: SpendPullConfig };

export function loadPipelineConfig(env: Record<string, string | undefined> = process.env): PipelineConfig {
  // The ad platforms' URLs, versions and windows: their own parser, shared with the spend CLI.
  return { ...parseEnv(schema, env), spendPull: spendPullConfigFromEnv(env) };
}
