/**
 * What `get/mcp-config` answers: the endpoint, the tool list and configuration blocks ready to paste into
 * common MCP clients. The key is always a placeholder: the caller pastes it (VS Code prompts for it once).
 */
import { API_KEY_PLACEHOLDER, MCP_SERVER_NAME, type McpConfigData, type McpStdioServer } from '../../contracts/src/mcp';
import { REPORT_TOOLS } from './tools';

export const MCP_PATH = '/mcp';

/** `baseUrl`: the API as its callers reach it, e.g. `https://attribution.example.com`. */
export function mcpClientConfig(baseUrl: string): McpConfigData {
  const base = baseUrl.replace(/\/+$/, '');
  const serverUrl = `${base}${MCP_PATH}`;
  // mcp-remote bridges stdio-only clients to a remote server; it refuses plain http without --allow-http.
  const bridge: McpStdioServer = {
    command: 'npx',
    args: [
      '-y',
      'mcp-remote',
      serverUrl,
      ...(serverUrl.startsWith('http:') ? ['--allow-http'] : []),
      '--header',
      'ApiKey:${OA_API_KEY}',
    ],
    env: { OA_API_KEY: API_KEY_PLACEHOLDER },
  };
  const localStdio: McpStdioServer = {
    command: 'npm',
    args: ['--prefix', '<path to your open-attribution checkout>', 'run', '--silent', 'mcp'],
    env: { OA_BASE_URL: base, OA_API_KEY: API_KEY_PLACEHOLDER },
  };
  return {
    server_url: serverUrl,
    transport: 'streamable-http',
    auth_header: 'ApiKey',
    tools: REPORT_TOOLS.map((t) => ({ name: t.name, description: t.description })),
    clients: {
      claude_desktop: {
        file: 'claude_desktop_config.json (Claude Desktop: Settings > Developer > Edit Config)',
        note: `Replace ${API_KEY_PLACEHOLDER} with the store's API key and restart Claude Desktop. Needs Node.js (npx) on the machine.`,
        config: { mcpServers: { [MCP_SERVER_NAME]: bridge } },
      },
      cursor: {
        file: '.cursor/mcp.json in a project, or ~/.cursor/mcp.json',
        note: `Replace ${API_KEY_PLACEHOLDER} with the store's API key.`,
        config: { mcpServers: { [MCP_SERVER_NAME]: { url: serverUrl, headers: { ApiKey: API_KEY_PLACEHOLDER } } } },
      },
      vscode: {
        file: '.vscode/mcp.json in a workspace (or the user mcp.json)',
        note: 'VS Code asks for the API key once and keeps it in its secret storage.',
        config: {
          servers: {
            [MCP_SERVER_NAME]: { type: 'http', url: serverUrl, headers: { ApiKey: '${input:oa_api_key}' } },
          },
          inputs: [{ type: 'promptString', id: 'oa_api_key', description: 'Open Attribution API key', password: true }],
        },
      },
      stdio: {
        file: "any client's stdio server list (mcpServers)",
        note:
          `Runs this project's stdio server (npm run mcp) from a checkout with its dependencies installed; it calls ` +
          `the API at OA_BASE_URL. Replace the path and ${API_KEY_PLACEHOLDER}.`,
        config: { mcpServers: { [MCP_SERVER_NAME]: localStdio } },
      },
    },
  };
}
