"""The official Python SDK client (PyPI `mcp`) against an MCP server, for `cargo xtask interop`
(docs/reference.md). It uses everything the server offers and prints one line per operation:

    @@op {"op": "tools/call", "target": "name", "status": "ok|tool_error|skipped|failed", "detail": "..."}

    python py-client.py --mode legacy|auto|2026-07-28 --url URL
    python py-client.py --mode ... --command PROGRAM [ARG...]      (stdio)
    python py-client.py --mode ... --calls JSON --url URL | --command ...

With `--calls '[["add", {"a": 2, "b": 3}], ...]'` it lists the tools, makes exactly those calls,
in order, with exactly those arguments (unchecked: the SDK sends what it is given), and closes;
a JSON-RPC error answering a call is reported `failed` with its `code`.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any, Awaitable, Callable, Optional
from urllib.parse import quote

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters

LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"
MODERN = "2026-07-28"


def report(name: str, target: Optional[str], status: str, detail: str = "", code: Optional[int] = None) -> None:
    fields: dict[str, Any] = {"op": name, "target": target, "status": status, "detail": detail}
    if code is not None:
        fields["code"] = code
    line = json.dumps(fields)
    sys.stdout.write(f"@@op {line}\n")
    sys.stdout.flush()


class Skip(Exception):
    """An operation not attempted, with the reason."""


def error_code(e: BaseException) -> Optional[int]:
    """The JSON-RPC error code an SDK exception carries, if any."""
    code = getattr(e, "code", None)
    if code is None:
        code = getattr(getattr(e, "error", None), "code", None)
    return code if isinstance(code, int) else None


def needs_tasks(e: BaseException) -> bool:
    """A -32021 naming the Tasks extension (TASK-4): the extension has no per-tool declaration,
    so a tool that needs a task says so when called."""
    err = getattr(e, "error", None)
    code = error_code(e)
    data = getattr(e, "data", None)
    if data is None:
        data = getattr(err, "data", None)
    if code != -32021 or not isinstance(data, dict):
        return False
    return "io.modelcontextprotocol/tasks" in (data.get("requiredCapabilities") or {}).get("extensions", {})


async def op(name: str, target: Optional[str], fn: Callable[[], Awaitable[Any]]) -> Any:
    """Runs one operation and reports it (a tool result with isError is `tool_error`, never ok)."""
    try:
        value = await fn()
    except Skip as s:
        report(name, target, "skipped", str(s))
        return None
    except BaseException as e:  # noqa: BLE001 - every failure is reported, the run goes on
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        report(name, target, "failed", f"{type(e).__name__}: {e}", error_code(e))
        return None
    if isinstance(value, types.CallToolResult) and value.is_error:
        text = value.content[0].text if value.content and isinstance(value.content[0], types.TextContent) else ""
        report(name, target, "tool_error", text)
        return value
    report(name, target, "ok", value if isinstance(value, str) else "")
    return value if value is not None else True


def first_value(done: Any, fallback: str) -> str:
    """The first value of a `completion/complete` result, else `fallback`."""
    values = done.completion.values if isinstance(done, types.CompleteResult) else []
    return values[0] if values else fallback


def required_names(schema: dict[str, Any]) -> list[str]:
    """The names a schema requires: its `required`, every `anyOf` alternative's and the first
    `oneOf` alternative's, and the `else` branch's (the `if` is not met: its members are not
    filled unless required) -- in it and its `allOf` parts."""
    names = list(schema.get("required") or [])
    for part in [schema, *(schema.get("allOf") or [])]:
        for alt in part.get("anyOf") or []:
            names.extend(alt.get("required") or [])
        if part.get("oneOf"):
            names.extend(part["oneOf"][0].get("required") or [])
        if isinstance(part.get("else"), dict):
            names.extend(part["else"].get("required") or [])
    return list(dict.fromkeys(names))


def sample_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    props = schema.get("properties") or {}
    for name in required_names(schema):
        p = props.get(name) or {}
        if "default" in p:
            out[name] = p["default"]
        elif p.get("enum"):
            out[name] = p["enum"][0]
        else:
            t = p.get("type")
            out[name] = {"integer": 2, "number": 3, "boolean": True, "array": [], "null": None}.get(t, "example")
            if t == "object":
                out[name] = sample_arguments(p)
    return out


def form_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    content: dict[str, Any] = {}
    required = schema.get("required") or []
    for name, p in (schema.get("properties") or {}).items():
        if "default" in p:
            content[name] = p["default"]
        elif name in required:
            if p.get("enum"):
                content[name] = p["enum"][0]
            elif p.get("oneOf") and "const" in p["oneOf"][0]:
                content[name] = p["oneOf"][0]["const"]
            else:
                content[name] = {"integer": 0, "number": 0, "boolean": False, "array": []}.get(p.get("type"), "example")
    return content


async def sampling(_ctx: Any, _params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="This is a reply from the interop driver."),
        model="interop-driver",
        stop_reason="endTurn",
    )


async def elicitation(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    schema = getattr(params, "requested_schema", None)
    if schema is None:
        return types.ElicitResult(action="decline")
    as_dict = schema if isinstance(schema, dict) else schema.model_dump(by_alias=True, exclude_none=True)
    return types.ElicitResult(action="accept", content=form_defaults(as_dict))


async def roots(_ctx: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[])


async def main() -> None:
    argv = sys.argv[1:]
    command: list[str] = []
    if "--command" in argv:  # everything after it is the server's command line, `--` included
        at = argv.index("--command")
        argv, command = argv[:at], argv[at + 1 :]
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--url")
    parser.add_argument("--calls", type=json.loads)
    args = parser.parse_args(argv)
    if not args.url and not command:
        parser.error("give --url URL or --command PROGRAM [ARG...]")
    seen = {"logs": 0}

    async def on_log(_params: types.LoggingMessageNotificationParams) -> None:
        seen["logs"] += 1

    if args.url:
        server: Any = args.url
    else:
        server = StdioServerParameters(command=command[0], args=command[1:])
    client = Client(
        server,
        mode=args.mode,
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
        logging_callback=on_log,
        cache=None,
    )
    async with client:
        modern = client.protocol_version == MODERN
        pinned = ""
        if args.mode == MODERN:
            # A pinned client adopts the version without a probe (and knows no capabilities):
            # it learns them from server/discover, as an application would.
            raw = await client.session.send_discover(MODERN)
            client.session.adopt(types.DiscoverResult.model_validate(raw))
            pinned = ", then server/discover"
        era = "modern" if modern else "legacy"
        report("connect", None, "ok", f"mcp {args.mode}: {era} {client.protocol_version}{pinned}")
        caps = client.server_capabilities
        if args.calls is not None:
            await op("tools/list", None, client.list_tools)
            for name, arguments in args.calls:
                await op("tools/call", name, lambda n=name, a=arguments: client.call_tool(n, a))
            report("close", None, "ok")
            return

        async def ping() -> None:
            if modern:
                raise Skip("ping is not part of 2026-07-28")
            await client.send_ping()

        await op("ping", None, ping)

        tools: list[types.Tool] = []
        if caps.tools is not None:
            listed = await op("tools/list", None, client.list_tools)
            tools = listed.tools if listed else []
        logging_tool = next((t for t in tools if t.name in ("test_tool_with_logging", "log")), None)

        async def logging() -> str:
            if logging_tool is None:
                raise Skip("no logging tool")
            if not modern and caps.logging is None:
                raise Skip("the server declares no logging")
            before = seen["logs"]
            meta = None
            if modern:
                meta = {LOG_LEVEL_KEY: "debug"}
            else:
                await client.set_logging_level("debug")
            await client.call_tool(logging_tool.name, sample_arguments(logging_tool.input_schema), meta=meta)
            if caps.logging is not None:
                with anyio.move_on_after(2):
                    while seen["logs"] == before:
                        await anyio.sleep(0.02)
                if seen["logs"] == before:
                    raise RuntimeError("no notifications/message arrived")
            undeclared = "" if caps.logging is not None else ", the server declares no logging"
            return f"{seen['logs'] - before} log notification(s){undeclared}"

        await op("logging", logging_tool.name if logging_tool else None, logging)

        for tool in tools:

            async def call(tool: types.Tool = tool) -> Any:
                if tool.execution is not None and tool.execution.task_support == "required":
                    raise Skip("the tool requires task-augmented execution; this driver does not run tasks")
                try:
                    return await client.call_tool(tool.name, sample_arguments(tool.input_schema))
                except Exception as e:  # noqa: BLE001 - re-raised unless it is the Tasks refusal
                    if needs_tasks(e):
                        raise Skip("the tool needs the Tasks extension (-32021); this driver does not run tasks")
                    raise

            await op("tools/call", tool.name, call)

        async def suggest(ref: Any, target: str, name: str, context: dict[str, str], fallback: str) -> str:
            """The first value `completion/complete` suggests for `name` (an operation of its own),
            else `fallback` (also when the server offers no completions)."""
            if caps.completions is None:
                return fallback
            done = await op(
                "completion/complete", target, lambda: client.complete(ref, {"name": name, "value": ""}, dict(context))
            )
            return first_value(done, fallback)

        if caps.prompts is not None:
            listed = await op("prompts/list", None, client.list_prompts)
            for prompt in listed.prompts if listed else []:
                # Required arguments: the first completion the server suggests, else a placeholder.
                arguments: dict[str, str] = {}
                ref = types.PromptReference(type="ref/prompt", name=prompt.name)
                for a in [a for a in prompt.arguments or [] if a.required]:
                    arguments[a.name] = await suggest(ref, f"{prompt.name}/{a.name}", a.name, arguments, "example")
                await op("prompts/get", prompt.name, lambda p=prompt, args=dict(arguments): client.get_prompt(p.name, args))

        if caps.resources is not None:
            listed = await op("resources/list", None, client.list_resources)
            for r in listed.resources if listed else []:
                await op("resources/read", str(r.uri), lambda r=r: client.read_resource(str(r.uri)))
            templates = await op("resources/templates/list", None, client.list_resource_templates)
            for t in templates.resource_templates if templates else []:
                uri = t.uri_template
                template = types.ResourceTemplateReference(type="ref/resource", uri=t.uri_template)
                for name in [part.split("}")[0] for part in t.uri_template.split("{")[1:]]:
                    value = await suggest(template, f"{t.uri_template}/{name}", name, {}, "1")
                    uri = uri.replace("{" + name + "}", quote(value, safe=""))
                await op("resources/read", uri, lambda uri=uri: client.read_resource(uri))

        async def subscriptions() -> str:
            if modern:
                trigger = next((t for t in tools if t.name == "test_trigger_tool_change"), None)
                if trigger is None:
                    raise Skip("no tool announces a tools/list change")
                got = 0
                async with client.listen(tools_list_changed=True) as sub:
                    await client.call_tool(trigger.name, {})
                    with anyio.move_on_after(5):
                        async for _event in sub:
                            got += 1
                            break
                if not got:
                    raise RuntimeError("no tools/list change event on the listen stream")
                return "subscriptions/listen: acknowledged, tools/list_changed received, closed"
            if caps.resources is None or not caps.resources.subscribe:
                raise Skip("the server offers no resource subscriptions")
            uri = "test://watched-resource"
            await client.subscribe_resource(uri)
            await client.unsubscribe_resource(uri)
            return f"resources/subscribe and resources/unsubscribe {uri}"

        await op("subscriptions", None, subscriptions)
    report("close", None, "ok")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    try:
        anyio.run(main)
    except BaseException as e:  # noqa: BLE001 - reported as the driver's failure
        report("driver", None, "failed", f"{type(e).__name__}: {e}")
