/**
 * The MCP server's configuration operation, `POST /{version}/api/get/mcp-config` (see docs/decisions.md,
 * MCP server). Every block is ready to paste into the client's file; the API key is a placeholder, never
 * the caller's key.
 */

/** Name of the server in every client block. */
export const MCP_SERVER_NAME = 'open_attribution';

/** Placeholder standing for the store's API key in the client blocks. */
export const API_KEY_PLACEHOLDER = '<your API key>';

/** One tool of the MCP server. */
interface McpToolInfo {
  name: string;
  description: string;
}

/** A server the client starts as a local process and talks to over stdio. */
export interface McpStdioServer {
  command: string;
  args: string[];
  env: { [name: string]: string };
}

/** A remote server reached over Streamable HTTP. */
interface McpHttpServer {
  url: string;
  headers: { [name: string]: string };
}

/** VS Code's entry for a remote server. */
interface VsCodeHttpServer extends McpHttpServer {
  /** `http` (Streamable HTTP). */
  type: string;
}

/** A VS Code input variable (prompted once, stored by VS Code). */
interface VsCodeInput {
  /** `promptString`. */
  type: string;
  id: string;
  description: string;
  password: boolean;
}

/** Claude Desktop and other stdio-only clients: `{mcpServers: {open_attribution: ...}}`. */
interface McpStdioClientBlock {
  /** Where the block goes. */
  file: string;
  /** What to replace and what the client needs. */
  note: string;
  config: { mcpServers: { open_attribution: McpStdioServer } };
}

/** Cursor: `{mcpServers: {open_attribution: {url, headers}}}`. */
interface McpHttpClientBlock {
  file: string;
  note: string;
  config: { mcpServers: { open_attribution: McpHttpServer } };
}

/** VS Code: `{servers: {open_attribution: {type, url, headers}}, inputs: [...]}`. */
interface VsCodeClientBlock {
  file: string;
  note: string;
  config: { servers: { open_attribution: VsCodeHttpServer }; inputs: VsCodeInput[] };
}

/** Data of get/mcp-config. */
export interface McpConfigData {
  /** The Streamable HTTP endpoint, `<API base URL>/mcp`. */
  server_url: string;
  /** `streamable-http` (stateless: no session id). */
  transport: string;
  /** The header carrying the API key: `ApiKey`. */
  auth_header: string;
  tools: McpToolInfo[];
  clients: {
    claude_desktop: McpStdioClientBlock;
    cursor: McpHttpClientBlock;
    vscode: VsCodeClientBlock;
    /** `npm run mcp` of a checkout of this project, calling the API over HTTP. */
    stdio: McpStdioClientBlock;
  };
}

export interface McpConfigResponse {
  /** @isInt */
  code: number;
  message: string;
  data: McpConfigData;
}
