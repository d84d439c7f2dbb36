// An MCP server on the official TypeScript SDK v2 (@modelcontextprotocol/server), for
// `cargo xtask interop` (docs/reference.md): mcpgen-reference-client is run against it.
//
//   node ts-server.mjs --mode dual|modern|sessionful
//
// - dual: `createMcpHandler(factory)`: 2026-07-28 per request, 2025-era requests served by the
//   stateless legacy fallback;
// - modern: `createMcpHandler(factory, { legacy: 'reject' })`: 2026-07-28 only;
// - sessionful: 2025-era requests routed (`isLegacyRequest`) to a sessionful
//   `WebStandardStreamableHTTPServerTransport` (Mcp-Session-Id), everything else to the modern
//   handler.
// It listens on 127.0.0.1 on a free port and prints `listening on http://127.0.0.1:PORT/mcp`.
// The SDK is imported from MCPGEN_INTEROP_NODE_MODULES (target/interop/node_modules).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const modules = process.env.MCPGEN_INTEROP_NODE_MODULES;
if (!modules) throw new Error('MCPGEN_INTEROP_NODE_MODULES is not set');
const load = (path) => import(pathToFileURL(join(modules, path)).href);
const sdk = await load('@modelcontextprotocol/server/dist/index.mjs');
const { z } = await load('zod/index.js');
const { McpServer, ResourceTemplate, completable, createMcpHandler, isLegacyRequest } = sdk;
const { WebStandardStreamableHTTPServerTransport } = sdk;

const mode = process.argv[process.argv.indexOf('--mode') + 1];
if (!['dual', 'modern', 'sessionful'].includes(mode)) throw new Error('--mode dual|modern|sessionful');

const COLORS = ['amber', 'azure', 'crimson'];

/** One server instance: the same tools, prompts and resources for both eras. */
function factory() {
  const server = new McpServer(
    { name: 'interop-ts-server', version: '1.0.0' },
    { capabilities: { logging: {} }, instructions: 'TypeScript SDK v2 server for mcpgen interop runs.' },
  );
  server.registerTool(
    'echo',
    { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool('log', { description: 'Sends two log messages, then answers' }, async (ctx) => {
    await ctx.mcpReq.log('info', 'log tool started');
    await ctx.mcpReq.log('debug', 'log tool finished');
    return { content: [{ type: 'text', text: 'logged' }] };
  });
  server.registerPrompt(
    'greeting',
    {
      description: 'A greeting in a color',
      argsSchema: z.object({ color: completable(z.string(), (v) => COLORS.filter((c) => c.startsWith(v))) }),
    },
    ({ color }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hello in ${color}.` } }] }),
  );
  // A name that is not header-safe: on HTTP its Mcp-Name travels in the Base64 sentinel form.
  server.registerPrompt('grüße', { description: 'A prompt whose name is not ASCII' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'Grüße!' } }],
  }));
  server.registerResource('readme', 'demo://readme', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Interop demo resource.' }],
  }));
  server.registerResource(
    'item',
    new ResourceTemplate('demo://item/{id}', { list: undefined, complete: { id: (v) => ['1', '2', '3'].filter((x) => x.startsWith(v)) } }),
    { mimeType: 'application/json' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id }) }] }),
  );
  return server;
}

const modern = createMcpHandler(factory, { legacy: mode === 'dual' ? 'stateless' : 'reject' });

/** The sessionful 2025-era leg: one transport (and server) per Mcp-Session-Id. */
const sessions = new Map();
async function legacySessionful(request) {
  const sid = request.headers.get('mcp-session-id');
  let transport = sid ? sessions.get(sid) : undefined;
  if (!transport) {
    if (sid) return new Response('Session not found', { status: 404 });
    transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
      onsessionclosed: (id) => sessions.delete(id),
    });
    await factory().connect(transport);
  }
  return transport.handleRequest(request);
}

async function handle(request) {
  if (mode === 'sessionful' && (await isLegacyRequest(request))) return legacySessionful(request);
  return modern.fetch(request);
}

/** node:http to the web-standard face and back. */
const server = http.createServer(async (req, res) => {
  try {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Readable.toWeb(req);
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body, duplex: 'half' });
    const response = await handle(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.flushHeaders(); // a stream (a GET listening for server messages) may not write for a while
    if (!response.body) return res.end();
    const reader = response.body.getReader();
    res.on('close', () => reader.cancel().catch(() => {}));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  } catch (e) {
    process.stderr.write(`ts-server: ${e?.stack ?? e}\n`);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
});
