/** Configuration of `npm run mcp` (the stdio server), from environment variables only. */
import { z } from 'zod';
import { envLogLevel, envRequired, parseEnv } from '../../runtime/env';

const schema = z
  .object({
    OA_BASE_URL: envRequired('https://attribution.example.com').pipe(
      z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://attribution.example.com' }),
    ),
    OA_API_KEY: envRequired('ak_...'),
    LOG_LEVEL: envLogLevel(),
  })
  .transform((env) => ({ baseUrl: env.OA_BASE_URL, apiKey: env.OA_API_KEY.trim(), logLevel: env.LOG_LEVEL }));

export type StdioConfig = z.output<typeof schema>;

export function loadStdioConfig(env: Record<string, string | undefined> = process.env): StdioConfig {
  return parseEnv(schema, env);
}
