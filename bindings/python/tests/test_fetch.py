"""JSCHEMA-6 from Python: `ToolChecker(fetch=...)`, the opt-in fetching of non-local `$ref`s.

No test touches the network: every checker gets a fake `resolve` (a table) and a fake `fetch`
that records its calls; the private-address cases also assert that neither was consulted
more than allowed. The Rust counterparts are in generated/src/tools/tests.rs."""

import gc
import math
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import pytest

import mcpgen

PUBLIC = "93.184.216.34"
HOST = "schemas.example.com"
URI = f"https://{HOST}/s.json"
STRING_SCHEMA = b'{"type": "string"}'


class FakeFetch:
    """A `fetch` callable that records every request and serves a fixed body (or raises)."""

    def __init__(self, body: Any = STRING_SCHEMA, error: Optional[BaseException] = None) -> None:
        self.body = body
        self.error = error
        self.calls: List[mcpgen.FetchRequest] = []

    def __call__(self, request: mcpgen.FetchRequest) -> Union[bytes, bytearray]:
        self.calls.append(request)
        if self.error is not None:
            raise self.error
        body: Union[bytes, bytearray] = self.body
        return body


class FakeDns:
    """A `resolve` callable over a fixed table; an unknown name raises (as getaddrinfo would)."""

    def __init__(self, table: Dict[str, Any]) -> None:
        self.table = table
        self.calls: List[Tuple[str, int]] = []

    def __call__(self, host: str, port: int) -> Sequence[str]:
        self.calls.append((host, port))
        if host not in self.table:
            raise OSError(f"no such host {host}")
        answer: Sequence[str] = self.table[host]
        return answer


def tool_with_ref(uri: str, name: str = "t") -> Dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": {"x": {"$ref": uri}}}}


def refusal(checker: mcpgen.ToolChecker, uri: str, kind: str = "ref_refused") -> mcpgen.SchemaProblem:
    """The one problem `check_tool` reports for a tool whose only `$ref` is `uri`."""
    with pytest.raises(mcpgen.ToolSchemaError) as e:
        checker.check_tool(tool_with_ref(uri))
    problems = e.value.errors
    assert [(p.kind, p.uri, p.pointer) for p in problems] == [(kind, uri, "/inputSchema/properties/x/$ref")], problems
    assert uri in problems[0].message
    return problems[0]


# ---- addresses: refused before anything is fetched ----------------------------------------------

PRIVATE_LITERALS = [
    "127.0.0.1",
    "127.1.2.3",
    "[::1]",
    "169.254.169.254",
    "10.0.0.8",
    "192.168.1.1",
    "172.16.0.1",
    "172.31.255.254",
    "0.0.0.0",
    "[fe80::1]",
    "[fd00::1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:10.1.1.1]",
    "100.64.0.1",
]


@pytest.mark.parametrize("host", PRIVATE_LITERALS)
def test_private_ip_literals_are_refused_before_fetching(host: str) -> None:
    fetch, dns = FakeFetch(), FakeDns({})
    checker = mcpgen.ToolChecker(fetch=fetch, resolve=dns)
    problem = refusal(checker, f"https://{host}/s.json")
    assert problem.rule == "JSCHEMA-6"
    assert "address" in problem.message, problem.message
    assert fetch.calls == []
    assert dns.calls == [], "an IP literal needs no resolving"
    assert checker.fetched == ()
    assert checker.cached == 0


@pytest.mark.parametrize(
    "ip, why",
    [
        ("127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("169.254.1.1", "link-local"),
        ("::1", "loopback"),
        ("192.168.0.10", "private"),
        ("172.20.0.1", "private"),
    ],
)
def test_a_name_with_any_private_address_is_refused(ip: str, why: str) -> None:
    fetch, dns = FakeFetch(), FakeDns({HOST: [PUBLIC, ip]})
    checker = mcpgen.ToolChecker(fetch=fetch, resolve=dns)
    problem = refusal(checker, URI)
    assert why in problem.message and ip in problem.message, problem.message
    assert dns.calls == [(HOST, 443)]
    assert fetch.calls == []
    assert checker.fetched == ()


# ---- scheme, allowlist, the fetch itself ----------------------------------------------------------


def test_allowlist_scheme_and_a_vetted_fetch() -> None:
    fetch = FakeFetch()
    dns = FakeDns({HOST: [PUBLIC], "evil.example.net": ["93.184.216.35"]})
    checker = mcpgen.ToolChecker(fetch=fetch, resolve=dns, allow_hosts=["Schemas.Example.COM"])

    assert "allowlist" in refusal(checker, "https://evil.example.net/s.json").message
    assert "scheme" in refusal(checker, f"http://{HOST}/s.json").message
    assert "scheme" in refusal(checker, f"ftp://{HOST}/s.json").message
    assert fetch.calls == [] and dns.calls == [] and not checker.fetched

    tool = tool_with_ref(URI)
    checker.check_tool(tool)
    assert checker.fetched == (URI,)
    assert fetch.calls == [mcpgen.FetchRequest(uri=URI, host=HOST, port=443, addrs=((PUBLIC, 443),), timeout=5.0, max_bytes=1 << 20)]
    assert dns.calls == [(HOST, 443)]
    # The fetched schema is the one used: `x` must be a string.
    checker.validate_arguments(tool, {"x": "s"})
    with pytest.raises(mcpgen.ValidationError) as e:
        checker.validate_arguments(tool, {"x": 1})
    assert [(d.pointer, d.keyword) for d in e.value.errors] == [("/x", "type")]
    # Compiled once: the cached tool does not fetch again.
    assert len(fetch.calls) == 1 and checker.fetched == (URI,) and checker.cached == 1


def test_http_port_and_options_reach_the_request() -> None:
    fetch = FakeFetch(body=bytearray(b'{"type": "integer"}'))
    dns = FakeDns({HOST: [PUBLIC, "2606:4700::1111"]})
    checker = mcpgen.ToolChecker(fetch=fetch, resolve=dns, allow_http=True, fetch_timeout=0.25, fetch_max_bytes=100)
    uri = f"http://{HOST}:8080/s.json"
    tool = tool_with_ref(uri)
    checker.validate_arguments(tool, {"x": 3})
    with pytest.raises(mcpgen.ValidationError):
        checker.validate_arguments(tool, {"x": "3"})
    assert dns.calls == [(HOST, 8080)]
    [request] = fetch.calls
    assert (request.uri, request.host, request.port) == (uri, HOST, 8080)
    assert request.addrs == ((PUBLIC, 8080), ("2606:4700::1111", 8080))
    assert (request.timeout, request.max_bytes) == (0.25, 100)
    assert checker.fetched == (uri,)


def test_body_size_cap() -> None:
    dns = FakeDns({HOST: [PUBLIC]})
    big = mcpgen.ToolChecker(fetch=FakeFetch(body=b" " * 2048), resolve=dns, fetch_max_bytes=1024)
    assert "cap" in refusal(big, URI).message
    # Exactly at the cap is fine.
    exact = mcpgen.ToolChecker(fetch=FakeFetch(), resolve=dns, fetch_max_bytes=len(STRING_SCHEMA))
    exact.check_tool(tool_with_ref(URI))
    nothing = mcpgen.ToolChecker(fetch=FakeFetch(), resolve=dns, fetch_max_bytes=0)
    assert "cap" in refusal(nothing, URI).message


def test_a_fetch_that_raises_refuses_the_reference() -> None:
    fetch = FakeFetch(error=ConnectionResetError("reset by the fake peer"))
    checker = mcpgen.ToolChecker(fetch=fetch, resolve=FakeDns({HOST: [PUBLIC]}))
    message = refusal(checker, URI).message
    assert "ConnectionResetError: reset by the fake peer" in message, message
    assert len(fetch.calls) == 1
    assert list(checker.fetched) == [URI], "the log lists every URI handed to fetch"
    # The exception was consumed, not left pending: the next call behaves normally.
    fetch.error = None
    checker.check_tool(tool_with_ref(URI))
    assert checker.fetched == (URI, URI)


@pytest.mark.parametrize(
    "body, why",
    [
        ("text", "fetch must return bytes or bytearray, returned `str`"),
        (memoryview(b"{}"), "returned `memoryview`"),
        (None, "returned `NoneType`"),
        (b"not json", "is not JSON"),
    ],
)
def test_a_bad_body_refuses_the_reference(body: Any, why: str) -> None:
    checker = mcpgen.ToolChecker(fetch=FakeFetch(body=body), resolve=FakeDns({HOST: [PUBLIC]}))
    message = refusal(checker, URI).message
    assert why in message, message


@pytest.mark.parametrize(
    "answer, why",
    [
        (["not-an-ip"], '"not-an-ip", which is not an IP address'),
        ([PUBLIC, "fe80::1%eth0"], "not an IP address"),
        ([PUBLIC, 7], "resolve must return IP address strings, returned a `int`"),
        (PUBLIC, "returned a `str`"),
        (None, "TypeError"),
        ([], "has no address"),
    ],
)
def test_a_bad_resolver_answer_refuses_the_reference(answer: Any, why: str) -> None:
    fetch = FakeFetch()
    checker = mcpgen.ToolChecker(fetch=fetch, resolve=FakeDns({HOST: answer}))
    message = refusal(checker, URI).message
    assert why in message, message
    assert fetch.calls == []


def test_a_resolver_that_raises_refuses_the_reference() -> None:
    fetch = FakeFetch()
    checker = mcpgen.ToolChecker(fetch=fetch, resolve=FakeDns({}))
    message = refusal(checker, URI).message
    assert f"cannot resolve `{HOST}`: OSError: no such host {HOST}" in message, message
    assert fetch.calls == []


def test_ip_address_results_from_the_resolver_are_vetted_too() -> None:
    # A resolver answering with an IPv4-mapped loopback is not fooled by the notation.
    fetch = FakeFetch()
    checker = mcpgen.ToolChecker(fetch=fetch, resolve=FakeDns({HOST: ["::ffff:127.0.0.1"]}))
    assert "loopback" in refusal(checker, URI).message
    assert fetch.calls == []


# ---- concurrency, reentrancy, garbage collection ---------------------------------------------


def test_fetching_from_many_threads() -> None:
    # Compilation runs without the GIL; each fetch re-acquires it. Distinct tools, one checker.
    fetch = FakeFetch()
    checker = mcpgen.ToolChecker(fetch=fetch, resolve=FakeDns({HOST: [PUBLIC]}))
    errors: List[BaseException] = []

    def work(i: int) -> None:
        try:
            for j in range(5):
                tool = tool_with_ref(f"{URI}?t={i}-{j}", name=f"t{i}-{j}")
                checker.validate_arguments(tool, {"x": "ok"})
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "deadlock"
    assert errors == []
    assert len(fetch.calls) == 20
    assert sorted(checker.fetched) == sorted(f"{URI}?t={i}-{j}" for i in range(4) for j in range(5))


def test_fetch_may_call_mcpgen() -> None:
    inner = mcpgen.ToolChecker()

    def fetch(request: mcpgen.FetchRequest) -> bytes:
        inner.check_tool({"name": "inner", "inputSchema": {"type": "object"}})
        return STRING_SCHEMA

    checker = mcpgen.ToolChecker(fetch=fetch, resolve=FakeDns({HOST: [PUBLIC]}))
    checker.check_tool(tool_with_ref(URI))
    assert inner.cached == 1


def test_a_checker_in_a_cycle_with_its_fetcher_is_collected() -> None:
    class Owner:
        def __init__(self) -> None:
            self.checker = mcpgen.ToolChecker(fetch=self.fetch, resolve=self.resolve)

        def fetch(self, request: mcpgen.FetchRequest) -> bytes:
            return STRING_SCHEMA

        def resolve(self, host: str, port: int) -> List[str]:
            return [PUBLIC]

    owner = Owner()
    owner.checker.check_tool(tool_with_ref(URI))
    alive = weakref.ref(owner)
    del owner
    gc.collect()
    assert alive() is None


# ---- arguments -------------------------------------------------------------------------------


def never(request: mcpgen.FetchRequest) -> bytes:
    raise AssertionError("must not be called")


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"fetch": 42}, TypeError, "fetch must be callable, found `int`"),
        ({"fetch": b"https://x"}, TypeError, "fetch must be callable"),
        ({"fetch": never, "resolve": "dns"}, TypeError, "resolve must be callable, found `str`"),
        ({"fetch": never, "allow_hosts": "example.com"}, TypeError, "allow_hosts must be an iterable of str"),
        ({"fetch": never, "allow_hosts": 3}, TypeError, "allow_hosts must be an iterable of str"),
        ({"fetch": never, "allow_hosts": ["a.example", 1]}, TypeError, "allow_hosts must contain str"),
        ({"fetch": never, "fetch_timeout": 0}, ValueError, "fetch_timeout must be"),
        ({"fetch": never, "fetch_timeout": -1.0}, ValueError, "fetch_timeout must be"),
        ({"fetch": never, "fetch_timeout": math.nan}, ValueError, "fetch_timeout must be"),
        ({"fetch": never, "fetch_timeout": math.inf}, ValueError, "fetch_timeout must be"),
        ({"fetch": never, "fetch_max_bytes": -1}, ValueError, "fetch_max_bytes must be >= 0"),
        ({"fetch": never, "fetch_max_bytes": 1.5}, TypeError, "fetch_max_bytes"),
        ({"resolve": FakeDns({})}, ValueError, "resolve only apply with fetch="),
        ({"allow_hosts": ["a.example"]}, ValueError, "allow_hosts only apply with fetch="),
        ({"allow_http": True}, ValueError, "allow_http only apply with fetch="),
        ({"fetch_timeout": 1.0}, ValueError, "fetch_timeout only apply with fetch="),
        ({"fetch_max_bytes": 10, "allow_http": True}, ValueError, "allow_http, fetch_max_bytes only apply with fetch="),
        ({"fetch": None, "resolve": FakeDns({})}, ValueError, "only apply with fetch="),
    ],
)
def test_argument_errors(kwargs: Dict[str, Any], exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        mcpgen.ToolChecker(**kwargs)


def test_default_values_without_fetch_are_accepted() -> None:
    checker = mcpgen.ToolChecker(fetch=None, allow_http=False, fetch_timeout=5.0, fetch_max_bytes=1 << 20)
    assert checker.fetched == ()
    # A huge cap is as good as none.
    mcpgen.ToolChecker(fetch=never, fetch_max_bytes=1 << 80, allow_hosts=())


def test_an_empty_allowlist_refuses_every_host() -> None:
    fetch = FakeFetch()
    checker = mcpgen.ToolChecker(fetch=fetch, resolve=FakeDns({HOST: [PUBLIC]}), allow_hosts=iter(()))
    assert "allowlist" in refusal(checker, URI).message
    assert fetch.calls == []


# ---- the default stays "never fetch" ---------------------------------------------------------


def test_without_fetch_nothing_is_fetched() -> None:
    checker = mcpgen.ToolChecker()
    problem = refusal(checker, URI, kind="network_ref")
    assert problem.rule == "JSCHEMA-5"
    assert checker.fetched == ()
    tool = tool_with_ref(URI)
    calls: List[Callable[[], None]] = [
        lambda: mcpgen.check_tool(tool),
        lambda: mcpgen.validate_tool_arguments(tool, {"x": "s"}),
        lambda: mcpgen.validate_structured_content({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"$ref": URI}}, {}),
        lambda: mcpgen.check_tool(tool, limits={"max_depth": 10}),
    ]
    for call in calls:
        with pytest.raises(mcpgen.ToolSchemaError) as e:
            call()
        assert [p.kind for p in e.value.errors] == ["network_ref"]
    [report] = mcpgen.check_tools(tool)
    assert [p.kind for p in report.errors] == ["network_ref"]


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt(), SystemExit(3)])
def test_an_interrupt_in_a_callable_is_raised_not_turned_into_a_refusal(interrupt: BaseException) -> None:
    # Ctrl-C during a slow fetch or lookup must stop the program, not refuse one `$ref`.
    for fetch, dns in [(FakeFetch(error=interrupt), FakeDns({HOST: [PUBLIC]})), (FakeFetch(), FakeDns({HOST: RaisingAnswer(interrupt)}))]:
        checker = mcpgen.ToolChecker(fetch=fetch, resolve=dns)
        with pytest.raises(type(interrupt)):
            checker.check_tool(tool_with_ref(URI))
        assert checker.cached == 0
        # Nothing is left pending for the next call (on this checker or another).
        assert "allowlist" in refusal(mcpgen.ToolChecker(fetch=never, allow_hosts=()), URI).message


class RaisingAnswer:
    """A resolver answer whose iteration raises (as a lookup interrupted midway)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __iter__(self) -> Any:
        raise self.error
