// What the Node drivers of `cargo xtask interop` share: the operation report on stdout and the
// answers a client without a user gives (the same as mcpgen-reference-client's).

/** Prints one operation: `@@op {"op", "target", "status", "detail"}`, and `code` when a
 *  JSON-RPC error ended it. */
export function report(name, target, status, detail, code) {
  const fields = { op: name, target, status, detail: detail ?? '' };
  if (Number.isInteger(code)) fields.code = code;
  process.stdout.write(`@@op ${JSON.stringify(fields)}\n`);
}

/**
 * Runs one operation and reports it. `fn` returns a value (reported `ok`; a tool result with
 * `isError: true` is `tool_error`, never `ok`), a string (`ok` with that detail), or
 * `{ skipped: reason }`; a throw is `failed`. Returns the value, or null unless `ok`.
 */
export async function op(name, target, fn) {
  try {
    const value = await fn();
    if (value && typeof value === 'object' && 'skipped' in value && Object.keys(value).length === 1) {
      report(name, target, 'skipped', value.skipped);
      return null;
    }
    if (value && typeof value === 'object' && value.isError === true) {
      report(name, target, 'tool_error', value.content?.[0]?.text ?? '');
      return value;
    }
    report(name, target, 'ok', typeof value === 'string' ? value : '');
    return value ?? true;
  } catch (e) {
    report(name, target, 'failed', String(e?.message ?? e), e?.code);
    return null;
  }
}

/** Waits until `cond()` holds or `ms` pass. */
export async function waitFor(cond, ms) {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

export const SAMPLING_REPLY = {
  role: 'assistant',
  content: { type: 'text', text: 'This is a reply from the interop driver.' },
  model: 'interop-driver',
  stopReason: 'endTurn',
};

/** Arguments from a tool's `inputSchema`: every required property gets its default, its first
 *  enum value, or a small value of its type. */
/** The names a schema requires: its `required`, every `anyOf` alternative's and the first
 *  `oneOf` alternative's, and the `else` branch's (the `if` is not met: its members are not
 *  filled unless required) — in it and its `allOf` parts. */
function requiredNames(schema) {
  const names = [...(schema?.required ?? [])];
  for (const part of [schema, ...(schema?.allOf ?? [])]) {
    for (const alt of part?.anyOf ?? []) names.push(...(alt.required ?? []));
    if (part?.oneOf?.[0]) names.push(...(part.oneOf[0].required ?? []));
    if (part?.else) names.push(...(part.else.required ?? []));
  }
  return [...new Set(names)];
}

export function sampleArguments(schema) {
  const out = {};
  const props = schema?.properties ?? {};
  for (const name of requiredNames(schema)) {
    const p = props[name] ?? {};
    if ('default' in p) out[name] = p.default;
    else if (Array.isArray(p.enum) && p.enum.length) out[name] = p.enum[0];
    else if (p.type === 'integer') out[name] = 2;
    else if (p.type === 'number') out[name] = 3;
    else if (p.type === 'boolean') out[name] = true;
    else if (p.type === 'object') out[name] = sampleArguments(p);
    else if (p.type === 'array') out[name] = [];
    else out[name] = 'example';
  }
  return out;
}

/** SEP-1034: the form a user who changes nothing submits (defaults; placeholders for required
 *  properties without one). */
export function formDefaults(schema) {
  const content = {};
  const required = schema.required ?? [];
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    if ('default' in p) content[name] = p.default;
    else if (required.includes(name)) {
      if (Array.isArray(p.enum) && p.enum.length) content[name] = p.enum[0];
      else if (Array.isArray(p.oneOf) && p.oneOf[0]?.const !== undefined) content[name] = p.oneOf[0].const;
      else if (p.type === 'integer' || p.type === 'number') content[name] = 0;
      else if (p.type === 'boolean') content[name] = false;
      else if (p.type === 'array') content[name] = [];
      else content[name] = 'example';
    }
  }
  return content;
}
