/**
 * `npm run mcp`: the MCP server over stdio, for assistants that start a local process. It calls a
 * deployment's HTTP API at OA_BASE_URL with OA_API_KEY. stdout carries the protocol only: logs go to stderr.
 */
import pino from 'pino';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError } from '../../runtime/env';
import { createLogger } from '../../runtime/logger';
import { createReportClient } from './report-client';
import { createMcpServer } from './server';
import { loadStdioConfig } from './stdio-config';

async function main(): Promise<void> {
  let config;
  try {
    config = loadStdioConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`mcp: ${err.message}\n`);
    process.exit(1);
  }
  const logger = createLogger('mcp', config.logLevel, pino.destination(2));
  const client = createReportClient({ baseUrl: config.baseUrl, apiKey: config.apiKey });
  const server = createMcpServer({ client, logger });
  const transport = new StdioServerTransport();
  let closing = false;
  const close = (why: string): void => {
    if (closing) return;
    closing = true;
    logger.info({ why }, 'MCP server stopping');
    void server.close().finally(() => process.exit(0));
  };
  // The client ends the session by closing our stdin (or by a signal).
  process.stdin.on('end', () => close('stdin closed'));
  process.on('SIGINT', () => close('SIGINT'));
  process.on('SIGTERM', () => close('SIGTERM'));
  await server.connect(transport);
  logger.info({ api: client.baseUrl }, 'MCP server on stdio');
}

void main().catch((err: unknown) => {
  process.stderr.write(`mcp: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
