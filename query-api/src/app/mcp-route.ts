/**
 * `/mcp`: the MCP server over Streamable HTTP, stateless (see docs/decisions.md, MCP server). Before any MCP
 * processing a request must pass the Origin check (browsers only send one; it must be the API's own origin or
 * one of MCP_ALLOWED_ORIGINS, against DNS rebinding) and carry a valid `ApiKey` (401 otherwise; 20 requests/s
 * per key). The tools then call the public operations of this same API over its own socket address with the
 * caller's key, so every tool call is scoped, validated and rate-limited like any other call.
 */
import type express from 'express';
import type { Request } from 'express';
import { handleMcpPost } from '../../../mcp/src/http-handler';
import { createReportClient } from '../../../mcp/src/report-client';
import { authenticate, RATE_CLASSES } from './authentication';
import type { AppContext } from './context';
import { ApiError, errorBody } from './errors';

function checkOrigin(req: Request, allowed: readonly string[]): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  const own = `${req.protocol}://${req.get('host') ?? ''}`.toLowerCase();
  const given = origin.toLowerCase().replace(/\/+$/, '');
  if (given === own || allowed.some((o) => o.toLowerCase() === given)) return;
  throw new ApiError(403, `Origin: ${origin} is not allowed to call /mcp (set MCP_ALLOWED_ORIGINS to allow it)`);
}

/** This API as reached on the socket the request came in on (plain HTTP, the process's own listener). */
function selfUrl(req: Request): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `http://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort ?? 80}`;
}

export function mountMcp(app: express.Express, ctx: AppContext): void {
  app.post('/mcp', async (req, res) => {
    checkOrigin(req, ctx.config.mcpAllowedOrigins);
    const raw = req.headers.apikey;
    const key = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
    // The tools only read reports: a dashboard key opens them too.
    await authenticate(
      ctx,
      'api_key',
      key,
      'ApiKey',
      { name: 'mcp:POST /mcp', perSecond: RATE_CLASSES.mcp! },
      { readOnly: true },
    );
    const requestId = typeof req.id === 'string' || typeof req.id === 'number' ? String(req.id) : undefined;
    const client = createReportClient({
      baseUrl: selfUrl(req),
      apiKey: key,
      // The tool's calls log under the request id of the MCP request.
      ...(requestId ? { headers: { 'x-request-id': requestId } } : {}),
    });
    await handleMcpPost(req, res, req.body, client, ctx.logger);
  });
  // Stateless: no server-sent stream to open (GET) and no session to end (DELETE).
  app.all('/mcp', (_req, res) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json(errorBody(405, 'method: /mcp answers POST only (stateless Streamable HTTP: no stream, no session)'));
  });
}
