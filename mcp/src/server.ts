/**
 * One MCP server over the report tools. Every tool is read-only; a call the API refuses (bad argument,
 * refused key, rate limit, unknown order) comes back as a tool error carrying the API's message, which names
 * the field. Arguments that do not match a tool's schema are refused by the SDK before the tool runs, with
 * the zod messages and the field's path.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../runtime/logger';
import { ModelCatalog } from './models';
import { ReportApiError, type ReportClient } from './report-client';
import { REPORT_TOOLS } from './tools';
import { ToolInputError } from './tools/tool';

export const MCP_SERVER_INFO = { name: 'open-attribution', version: '0.1.0' } as const;

export interface McpServerOptions {
  client: ReportClient;
  logger?: Logger;
  now?: () => Date;
}

const INSTRUCTIONS =
  "Marketing attribution of one online store: which channels, campaigns and landing pages bring the store's " +
  'conversions and revenue under several attribution models, what they cost, and the journey behind an order. ' +
  'Dates are YYYY-MM-DD days; end_date is exclusive (the day after the last day). Money is in the store currency.';

export function createMcpServer(opts: McpServerOptions): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
  const ctx = { client: opts.client, models: new ModelCatalog(opts.client), now: opts.now ?? (() => new Date()) };
  for (const tool of REPORT_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      async (args: unknown): Promise<CallToolResult> => {
        try {
          const result = await tool.run(args, ctx);
          return { structuredContent: result.structured, content: [{ type: 'text', text: result.text }] };
        } catch (err) {
          if (err instanceof ReportApiError || err instanceof ToolInputError) {
            opts.logger?.info({ tool: tool.name, err: err.message }, 'tool call refused');
            return { isError: true, content: [{ type: 'text', text: err.message }] };
          }
          opts.logger?.error({ tool: tool.name, err }, 'tool call failed');
          throw err;
        }
      },
    );
  }
  return server;
}
