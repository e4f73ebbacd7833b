/** The MCP server's configuration: endpoint, tools and client blocks (the server itself is mcp-route.ts). */
import type { Request as ExpressRequest } from 'express';
import { Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { McpConfigResponse } from '../../../contracts/src/mcp';
import { mcpClientConfig } from '../../../mcp/src/client-config';
import { success } from '../app/envelope';
import type { ErrorBody } from '../app/errors';

@Route('{version}/api/get')
@Tags('AI assistants (MCP)')
export class McpController extends Controller {
  /**
   * How to connect an AI assistant to this API's MCP server: the Streamable HTTP endpoint (`/mcp`,
   * stateless, the same `ApiKey` header, each tool call counted against the key's rate limits like the
   * operation it calls), the read-only tools it offers, and configuration blocks to paste into Claude Desktop,
   * Cursor, VS Code or any stdio client. The blocks hold a placeholder, never the key.
   * Empty body. Rate limit: 5 requests per second per key.
   * @param _version API version: `v2-4-2`
   */
  @Post('mcp-config')
  @Security('api_key', ['report'])
  @Response<ErrorBody>(401, 'Missing, unknown or revoked ApiKey')
  @Response<ErrorBody>(429, 'Rate limit exceeded; see Retry-After')
  public mcpConfig(@Path('version') _version: string, @Request() req: ExpressRequest): McpConfigResponse {
    // The API as the caller reached it (behind a proxy, with API_TRUST_PROXY=true, X-Forwarded-Proto counts).
    const base = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    return success(mcpClientConfig(base));
  }
}
