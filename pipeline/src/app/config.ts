/** Pipeline daemon configuration, from environment variables only (DESIGN D12). */
import { z } from 'zod';
import { DEFAULT_PARTITIONS } from '../../../contracts/src/subjects';
import { parseEnv, parsePartitionSet } from '../../../infra/runtime/env';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

const schema = z
  .object({
    NATS_URL: z.string().min(1, 'is required (e.g. nats://127.0.0.1:4222)'),
    DATABASE_URL: z.string().min(1, 'is required (e.g. postgres://user:pass@127.0.0.1:5432/attribution)'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    EVENT_PARTITIONS: int(DEFAULT_PARTITIONS, 1),
    PIPELINE_PARTITIONS: z.string().default('all'),
    PIPELINE_BATCH_MAX: int(2000, 1),
    PIPELINE_FLUSH_MS: int(100, 1),
    PIPELINE_PULL_MAX: int(1000, 1),
    PIPELINE_HEALTH_PORT: int(9464),
    PIPELINE_HEALTH_HOST: z.string().default('127.0.0.1'),
    PIPELINE_SHUTDOWN_TIMEOUT_MS: int(25000, 1),
    PIPELINE_DB_POOL: int(4, 1),
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
      eventPartitions: env.EVENT_PARTITIONS,
      partitions,
      batchMax: env.PIPELINE_BATCH_MAX,
      flushMs: env.PIPELINE_FLUSH_MS,
      pullMax: env.PIPELINE_PULL_MAX,
      healthPort: env.PIPELINE_HEALTH_PORT,
      healthHost: env.PIPELINE_HEALTH_HOST,
      shutdownTimeoutMs: env.PIPELINE_SHUTDOWN_TIMEOUT_MS,
      dbPool: env.PIPELINE_DB_POOL,
      faultKillAfterCommits: env.PIPELINE_FAULT_KILL_AFTER_COMMITS,
    };
  });

export type PipelineConfig = z.output<typeof schema>;

export function loadPipelineConfig(env: Record<string, string | undefined> = process.env): PipelineConfig {
  return parseEnv(schema, env);
}
