// An official TypeScript SDK client (v1: @modelcontextprotocol/sdk, v2: @modelcontextprotocol/client)
// against an MCP server, for `cargo xtask interop` (docs/reference.md). It uses everything the
// server offers and prints one line per operation on stdout:
//   @@op {"op": "tools/call", "target": "name", "status": "ok|tool_error|skipped|failed", "detail": "…"}
//
//   node ts-client.mjs --sdk v1|v2 --mode legacy|auto|2026-07-28 --url URL
//   node ts-client.mjs --sdk v1|v2 --mode … --command PROGRAM [ARG…]      (stdio)
//   node ts-client.mjs --sdk v1|v2 --mode … --calls JSON --url URL | --command …
//
// With `--calls '[["add", {"a": 2, "b": 3}], …]'` it lists the tools, makes exactly those calls,
// in order, with exactly those arguments (the SDK does not check them against the listed
// schema: it sends what it is given), and closes; a JSON-RPC error answering a call is
// reported `failed` with its `code`.
//
// The SDKs are imported from the directory in MCPGEN_INTEROP_NODE_MODULES (target/interop/node_modules).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { op, report, sampleArguments, formDefaults, waitFor, SAMPLING_REPLY } from './common.mjs';

const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';

function parseArgs(argv) {
  const out = { sdk: 'v2', mode: 'legacy' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--command') {
      out.command = argv[i + 1];
      out.args = argv.slice(i + 2);
      break;
    }
    if (a === '--sdk' || a === '--mode' || a === '--url') out[a.slice(2)] = argv[++i];
    else if (a === '--calls') out.calls = JSON.parse(argv[++i]);
    else throw new Error(`unknown argument ${a}`);
  }
  if (!out.url && !out.command) throw new Error('give --url URL or --command PROGRAM [ARG…]');
  return out;
}

const modules = process.env.MCPGEN_INTEROP_NODE_MODULES;
if (!modules) throw new Error('MCPGEN_INTEROP_NODE_MODULES is not set');
const load = (path) => import(pathToFileURL(join(modules, path)).href);

/** The SDK behind one small face: the client class, transports and handler registration. */
async function loadSdk(version) {
  if (version === 'v1') {
    const [{ Client }, { StreamableHTTPClientTransport }, { StdioClientTransport }, types] = await Promise.all([
      load('@modelcontextprotocol/sdk/dist/esm/client/index.js'),
      load('@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js'),
      load('@modelcontextprotocol/sdk/dist/esm/client/stdio.js'),
      load('@modelcontextprotocol/sdk/dist/esm/types.js'),
    ]);
    const requests = {
      'sampling/createMessage': types.CreateMessageRequestSchema,
      'elicitation/create': types.ElicitRequestSchema,
      'roots/list': types.ListRootsRequestSchema,
    };
    const notifications = {
      'notifications/message': types.LoggingMessageNotificationSchema,
      'notifications/tools/list_changed': types.ToolListChangedNotificationSchema,
      'notifications/resources/updated': types.ResourceUpdatedNotificationSchema,
    };
    return {
      name: '@modelcontextprotocol/sdk',
      newClient: (info, caps) => new Client(info, { capabilities: caps }),
      onRequest: (c, method, f) => c.setRequestHandler(requests[method], f),
      onNotification: (c, method, f) => c.setNotificationHandler(notifications[method], f),
      HTTP: StreamableHTTPClientTransport,
      Stdio: StdioClientTransport,
      era: () => 'legacy',
    };
  }
  const [{ Client, StreamableHTTPClientTransport }, { StdioClientTransport }] = await Promise.all([
    load('@modelcontextprotocol/client/dist/index.mjs'),
    load('@modelcontextprotocol/client/dist/stdio.mjs'),
  ]);
  return {
    name: '@modelcontextprotocol/client',
    newClient: (info, caps, mode) =>
      new Client(info, {
        capabilities: caps,
        versionNegotiation: { mode: mode === 'legacy' || mode === 'auto' ? mode : { pin: mode } },
      }),
    onRequest: (c, method, f) => c.setRequestHandler(method, f),
    onNotification: (c, method, f) => c.setNotificationHandler(method, f),
    HTTP: StreamableHTTPClientTransport,
    Stdio: StdioClientTransport,
    era: (c) => c.getProtocolEra?.() ?? 'legacy',
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const sdk = await loadSdk(args.sdk);
  const caps = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };
  const client = sdk.newClient({ name: `interop-ts-${args.sdk}`, version: '1.0.0' }, caps, args.mode);
  const seen = { logs: 0, toolsChanged: 0 };
  sdk.onRequest(client, 'sampling/createMessage', async () => SAMPLING_REPLY);
  sdk.onRequest(client, 'elicitation/create', async (req) =>
    req.params?.mode === 'url'
      ? { action: 'decline' }
      : { action: 'accept', content: formDefaults(req.params?.requestedSchema ?? {}) },
  );
  sdk.onRequest(client, 'roots/list', async () => ({ roots: [] }));
  sdk.onNotification(client, 'notifications/message', async () => {
    seen.logs += 1;
  });
  sdk.onNotification(client, 'notifications/tools/list_changed', async () => {
    seen.toolsChanged += 1;
  });

  const transport = args.url
    ? new sdk.HTTP(new URL(args.url))
    : new sdk.Stdio({ command: args.command, args: args.args, stderr: 'inherit' });
  const connected = await op('connect', null, async () => {
    await client.connect(transport);
    const version = client.getNegotiatedProtocolVersion?.() ?? '';
    return `${sdk.name} ${args.mode}: ${sdk.era(client)} ${version}`.trim();
  });
  if (!connected) return;
  const modern = sdk.era(client) === 'modern';
  const server = client.getServerCapabilities() ?? {};
  if (args.calls) {
    await op('tools/list', null, async () => (await client.listTools()).tools);
    for (const [name, callArgs] of args.calls) {
      await op('tools/call', name, () => client.callTool({ name, arguments: callArgs }));
    }
    await op('close', null, () => client.close());
    return;
  }

  await op('ping', null, async () => {
    if (modern) return { skipped: 'ping is not part of 2026-07-28' };
    await client.ping();
  });

  const tools = server.tools ? await op('tools/list', null, async () => (await client.listTools()).tools) : null;
  const logging = tools?.find((t) => t.name === 'test_tool_with_logging' || t.name === 'log');
  await op('logging', logging?.name ?? null, async () => {
    if (!logging) return { skipped: 'no logging tool' };
    // Modern requests opt in per request (whatever the server declared: what it then sends is
    // checked against its capabilities); logging/setLevel needs the server's `logging`.
    if (!modern && !server.logging) return { skipped: 'the server declares no logging' };
    const before = seen.logs;
    const params = { name: logging.name, arguments: sampleArguments(logging.inputSchema) };
    if (modern) params._meta = { [LOG_LEVEL_KEY]: 'debug' };
    else await client.setLoggingLevel('debug');
    await client.callTool(params);
    if (server.logging) await waitFor(() => seen.logs > before, 2000);
    if (server.logging && seen.logs === before) throw new Error('no notifications/message arrived');
    return `${seen.logs - before} log notification(s)${server.logging ? '' : ', the server declares no logging'}`;
  });
  for (const tool of tools ?? []) {
    await op('tools/call', tool.name, async () => {
      if (tool.execution?.taskSupport === 'required') {
        return { skipped: 'the tool requires task-augmented execution; this driver does not run tasks' };
      }
      try {
        return await client.callTool({ name: tool.name, arguments: sampleArguments(tool.inputSchema) });
      } catch (e) {
        // The Tasks extension has no per-tool declaration: a tool that needs a task says so with
        // -32021 naming the extension (TASK-4), which this driver does not declare.
        if (e?.code === -32021 && e?.data?.requiredCapabilities?.extensions?.['io.modelcontextprotocol/tasks']) {
          return { skipped: 'the tool needs the Tasks extension (-32021); this driver does not run tasks' };
        }
        throw e;
      }
    });
  }

  if (server.prompts) {
    const prompts = await op('prompts/list', null, async () => (await client.listPrompts()).prompts);
    for (const p of prompts ?? []) {
      // Required arguments: the first completion the server suggests, else a placeholder.
      const args = {};
      for (const a of (p.arguments ?? []).filter((a) => a.required)) {
        const ref = { type: 'ref/prompt', name: p.name };
        const done = server.completions
          ? await op('completion/complete', `${p.name}/${a.name}`, () =>
              client.complete({ ref, argument: { name: a.name, value: '' }, context: { arguments: { ...args } } }),
            )
          : null;
        args[a.name] = done?.completion?.values?.[0] ?? 'example';
      }
      await op('prompts/get', p.name, () => client.getPrompt({ name: p.name, arguments: args }));
    }
  }

  if (server.resources) {
    const resources = await op('resources/list', null, async () => (await client.listResources()).resources);
    for (const r of resources ?? []) await op('resources/read', r.uri, () => client.readResource({ uri: r.uri }));
    const templates = await op(
      'resources/templates/list',
      null,
      async () => (await client.listResourceTemplates()).resourceTemplates,
    );
    for (const t of templates ?? []) {
      let uri = t.uriTemplate;
      for (const [, name] of t.uriTemplate.matchAll(/\{([^}]+)\}/g)) {
        const ref = { type: 'ref/resource', uri: t.uriTemplate };
        const done = server.completions
          ? await op('completion/complete', `${t.uriTemplate}/${name}`, () =>
              client.complete({ ref, argument: { name, value: '' } }),
            )
          : null;
        uri = uri.replace(`{${name}}`, encodeURIComponent(done?.completion?.values?.[0] ?? '1'));
      }
      await op('resources/read', uri, () => client.readResource({ uri }));
    }
  }

  await op('subscriptions', null, async () => {
    if (modern) {
      const trigger = tools?.find((t) => t.name === 'test_trigger_tool_change');
      if (!trigger) return { skipped: 'no tool announces a tools/list change' };
      const sub = await client.listen({ toolsListChanged: true });
      const before = seen.toolsChanged;
      await client.callTool({ name: trigger.name, arguments: {} });
      await waitFor(() => seen.toolsChanged > before, 5000);
      await sub.close();
      if (seen.toolsChanged === before) throw new Error('no notifications/tools/list_changed on the listen stream');
      return 'subscriptions/listen: acknowledged, tools/list_changed received, closed';
    }
    if (!server.resources?.subscribe) return { skipped: 'the server offers no resource subscriptions' };
    const uri = 'test://watched-resource';
    await client.subscribeResource({ uri });
    await client.unsubscribeResource({ uri });
    return `resources/subscribe and resources/unsubscribe ${uri}`;
  });

  await op('close', null, () => client.close());
}

main()
  .catch((e) => report('driver', null, 'failed', String(e?.stack ?? e)))
  .finally(() => process.exit(0));
