/**
 * `.env.example` lists every variable the processes read, and its values are valid for each of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadApiConfig } from '../query-api/src/app/config';
import { loadPipelineConfig } from '../pipeline/src/app/config';
import { loadWebhookWorkerConfig } from '../webhook-worker/src/app/config';
import { loadStdioConfig } from '../mcp/src/stdio-config';

const ROOT = path.join(__dirname, '..');
const CONFIG_SOURCES = [
  'query-api/src/app/config.ts',
  'pipeline/src/app/config.ts',
  'webhook-worker/src/app/config.ts',
  'mcp/src/stdio-config.ts',
];

function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^#?\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) env[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1');
  }
  return env;
}

describe('.env.example', () => {
  const example = parseEnvFile(fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8'));

  it('names every variable of every config schema', () => {
    const keys = CONFIG_SOURCES.flatMap((file) =>
      [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!),
    );
    expect(keys.length).toBeGreaterThan(30);
    expect(keys.filter((k) => !(k in example))).toEqual([]);
  });

  it('holds values every process accepts', () => {
    const env = { ...example, NATS_URL: 'nats://127.0.0.1:4222', DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db' };
    expect(loadApiConfig(env).port).toBe(8080);
    expect(loadPipelineConfig(env).partitions).toHaveLength(16);
    expect(loadWebhookWorkerConfig(env).concurrency).toBe(16);
    expect(loadApiConfig(env).mcpAllowedOrigins).toEqual([]);
    expect(loadStdioConfig(env).baseUrl).toBe('https://attribution.example.com');
  });

  it('reports every configuration problem at once', () => {
    expect(() => loadPipelineConfig({ PIPELINE_PARTITIONS: 'seven', JOB_RECONCILE_CRON: 'nope' })).toThrow(
      /NATS_URL[\s\S]*DATABASE_URL[\s\S]*(JOB_RECONCILE_CRON[\s\S]*PIPELINE_PARTITIONS|PIPELINE_PARTITIONS[\s\S]*JOB_RECONCILE_CRON)/,
    );
  });
});
