/**
 * The Streamable HTTP transport, stateless: each POST gets a new server and transport (no session id, no
 * server-sent stream to resume), answered as plain JSON. The caller has authenticated the request and built
 * the report client with the caller's key.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '../../runtime/logger';
import type { ReportClient } from './report-client';
import { createMcpServer } from './server';

export async function handleMcpPost(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  client: ReportClient,
  logger?: Logger,
): Promise<void> {
  const server = createMcpServer({ client, ...(logger ? { logger } : {}) });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
