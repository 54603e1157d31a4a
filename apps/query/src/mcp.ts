import { footfallVersion } from '@footfall/instance';
import type { ApiGet } from '@footfall/mcp';
import type { Hono } from 'hono';
import { requireJsonType } from './auth/json.ts';

/**
 * `/mcp`: the read-only MCP server over Streamable HTTP (docs/mcp.md). Stateless: each POST is
 * answered by a fresh server whose tools read this app's own `/api/v1` in process, with the
 * caller's `Authorization` header, so a tool sees exactly what that key sees through the API and
 * every refusal is the API's. There is no server-sent stream to open (GET) nor session to end
 * (DELETE): both answer 405. The MCP SDK (with zod and ajv) loads on the first request: idle, it
 * would hold about 14 MiB of the query process that most installations never use.
 */
// biome-ignore lint/suspicious/noExplicitAny: the app's own Hono type, whatever its environment
export function mountMcp(app: Hono<any>): void {
  const version = footfallVersion();
  app.post('/mcp', async (c) => {
    // the same refusals as every JSON route of the API, before the protocol's own checks
    // (a JSON-RPC message is small: a tool's name and its arguments; the app's body limit holds it)
    requireJsonType(c, 'send JSON-RPC with Content-Type: application/json');
    const [{ createFootfallMcpServer, readAnswer }, { WebStandardStreamableHTTPServerTransport }] =
      await Promise.all([
        import('@footfall/mcp'),
        import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      ]);
    const authorization = c.req.header('authorization') ?? '';
    const get: ApiGet = async (path, query) => {
      const url = `${path}${query && [...query].length > 0 ? `?${query}` : ''}`;
      return readAnswer(await app.request(url, { headers: { authorization, accept: 'application/json' } }));
    };
    const text = await c.req.text();
    // the answers are always JSON (never a stream): a client that accepts only JSON is served too
    const request = new Request(c.req.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(c.req.header('mcp-protocol-version')
          ? { 'mcp-protocol-version': c.req.header('mcp-protocol-version')! }
          : {}),
      },
      body: text,
    });
    const server = createFootfallMcpServer(get, version);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  });
  const notAllowed = () =>
    new Response(
      JSON.stringify({
        code: 'method_not_allowed',
        message: 'the MCP server is stateless: POST JSON-RPC messages to /mcp',
      }),
      { status: 405, headers: { 'content-type': 'application/json', allow: 'POST' } },
    );
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
}
