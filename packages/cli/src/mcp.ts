import { footfallVersion } from '@footfall/instance';
import { createFootfallMcpServer, httpApi } from '@footfall/mcp';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const USAGE = `usage: footfall mcp --url <Footfall address> [--key <API key>]

Runs Footfall's read-only MCP server over stdio, for assistants that start MCP servers as
commands. Its tools read the Footfall at --url with the API key (--key, or FOOTFALL_MCP_KEY so
the key stays out of process lists). See docs/mcp.md.`;

/** The value after a flag (`--url x` or `--url=x`). */
function flag(args: readonly string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === name) return args[i + 1];
    if (a.startsWith(`${name}=`)) return a.slice(name.length + 1);
  }
  return undefined;
}

/**
 * `footfall mcp --url <base> --key <key>`: the same MCP server as `/mcp`, over stdio, reading a
 * running Footfall over HTTP. stdout carries the protocol only: every message for a person goes to
 * stderr. Resolves when the client closes stdin.
 */
export async function runMcpBridge(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const url = flag(args, '--url');
  const key = flag(args, '--key') ?? env.FOOTFALL_MCP_KEY;
  if (args.includes('--help') || args.includes('-h')) {
    console.error(USAGE);
    return 0;
  }
  if (!url || !/^https?:\/\/\S+$/.test(url) || !key) {
    console.error(
      `footfall mcp: ${!url ? '--url is required' : !key ? 'an API key is required (--key or FOOTFALL_MCP_KEY)' : '--url must be an http(s) address'}\n\n${USAGE}`,
    );
    return 2;
  }
  const server = createFootfallMcpServer(httpApi(url, key), footfallVersion());
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.on('end', () => resolve());
  });
  await server.connect(transport);
  console.error(`footfall mcp: serving ${url} over stdio`);
  await closed;
  await server.close();
  return 0;
}
