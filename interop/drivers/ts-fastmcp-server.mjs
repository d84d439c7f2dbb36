// A FastMCP server (npm `fastmcp`, on @modelcontextprotocol/sdk 1.x) written the way its README
// shows, for the real-server panel of `cargo xtask interop` (docs/testing.md): `mcpgen probe` is
// pointed at it with default settings over both transports.
//
//   node ts-fastmcp-server.mjs --mode stdio|http
//
// Over HTTP it listens on 127.0.0.1 and prints `listening on http://127.0.0.1:PORT/mcp`.
// FastMCP is imported from MCPGEN_INTEROP_NODE_MODULES (target/interop/panel/node_modules).
import net from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.env.MCPGEN_INTEROP_NODE_MODULES;
if (!modules) throw new Error('MCPGEN_INTEROP_NODE_MODULES is not set');
const load = (path) => import(pathToFileURL(join(modules, path)).href);
const { FastMCP } = await load('fastmcp/dist/FastMCP.js');
const { z } = await load('zod/index.js');

const mode = process.argv[process.argv.indexOf('--mode') + 1];
if (!['stdio', 'http'].includes(mode)) throw new Error('--mode stdio|http');

const server = new FastMCP({ name: 'interop-ts-fastmcp-server', version: '1.0.0' });

// Both tools are read-only and closed-world, so the probe's default policy calls them.
const SAFE = { readOnlyHint: true, openWorldHint: false };

server.addTool({
  name: 'echo',
  description: 'Echoes its text.',
  annotations: SAFE,
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => text,
});

server.addTool({
  name: 'add',
  description: 'Adds two numbers (structured output).',
  annotations: SAFE,
  parameters: z.object({ a: z.number(), b: z.number() }),
  outputSchema: z.object({ a: z.number(), b: z.number(), sum: z.number() }),
  execute: async ({ a, b }) => ({ a, b, sum: a + b }),
});

server.addPrompt({
  name: 'greeting',
  description: 'A greeting in a color.',
  arguments: [{ name: 'color', description: 'The color', required: true }],
  load: async ({ color }) => `Say hello in ${color}.`,
});

server.addResource({
  uri: 'demo://readme',
  name: 'readme',
  mimeType: 'text/plain',
  load: async () => ({ text: 'Panel demo resource.' }),
});

/** A free loopback port (FastMCP takes a port number; it does not report the one port 0 got). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

if (mode === 'stdio') {
  await server.start({ transportType: 'stdio' });
} else {
  const port = await freePort();
  await server.start({ transportType: 'httpStream', httpStream: { host: '127.0.0.1', port, endpoint: '/mcp' } });
  process.stdout.write(`listening on http://127.0.0.1:${port}/mcp\n`);
}
