"""Exceptions, result types and option types of the mcpgen API.

They are plain Python classes: the native module (`mcpgen._native`) builds them, and all the
deciding is done there, by the same Rust core that the Rust crate, the C library and the CLI use.
"""

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Literal, NamedTuple, Optional, Sequence, Tuple, TypedDict, Union

JSONData = Any
"""JSON data as the `json` module reads it: dict, list, str, int, float, bool, None."""

RequestId = Union[str, int]

BytesLike = Union[bytes, bytearray, memoryview]
"""Raw bytes (icon data): read in place from ``bytes``, copied from the mutable buffers."""

# Written as a Union of single literals (same type) so that stubtest can compare it at runtime.
Policy = Union[Literal["strict"], Literal["lenient"], Literal["lossless"]]
"""Unknown-key policy: reject undeclared keys, accept and drop them, or accept and keep them
(the default)."""


class ErrorDetail(NamedTuple):
    """One reason an instance does not conform."""

    pointer: str
    """JSON pointer (RFC 6901) into the instance; ``""`` is the root."""
    schema_path: str
    """Location of the failing keyword in the schema (``#/$defs/Tool/properties/name/type``)."""
    keyword: str
    """The JSON Schema keyword that failed (``type``, ``required``, ``const``, ``anyOf``, …)."""
    rule: Optional[str]
    """Protocol rule id (``META-3``, ``POLICY-STRICT``, …) when a rule, not the schema, failed."""
    message: str
    """What was expected and what was found."""
    arms: Tuple["ArmFailure", ...] = ()
    """For unions: why each candidate arm failed, closest first."""

    def __str__(self) -> str:
        at = self.pointer or "(root)"
        rule = f", {self.rule}" if self.rule else ""
        return f"{at}: {self.message} [{self.keyword}{rule} at {self.schema_path}]"


class ArmFailure(NamedTuple):
    """Why one arm of a union rejected the instance."""

    arm: str
    errors: Tuple[ErrorDetail, ...]


class McpgenError(Exception):
    """Base class of every error mcpgen raises about its input."""


class ValidationError(McpgenError, ValueError):
    """The data does not conform.

    ``kind`` says why: ``"invalid"`` (schema), ``"protocol"`` (a protocol rule the schema cannot
    express), ``"parse"`` (not JSON; raised as the subclass :class:`ParseError`) or
    ``"limit_exceeded"`` (a tool-call instance whose validation stopped at a cost limit; raised
    as the subclass :class:`LimitExceededError`).
    """

    errors: List[ErrorDetail]
    kind: str

    def __init__(self, message: str, errors: Sequence[ErrorDetail] = (), kind: str = "invalid") -> None:
        super().__init__(message)
        self.errors = list(errors)
        self.kind = kind


class ParseError(ValidationError):
    """The bytes or text are not JSON (or not UTF-8), or Python data has a value with no JSON form.

    Positions are 1-based, ``offset`` in bytes; all three are 0 for Python data (no text)."""

    offset: int
    line: int
    column: int

    def __init__(self, message: str, errors: Sequence[ErrorDetail] = (), *, offset: int = 0, line: int = 0, column: int = 0) -> None:
        super().__init__(message, errors, "parse")
        self.offset = offset
        self.line = line
        self.column = column


class UnknownDefinitionError(McpgenError, LookupError):
    """The revision has no definition of that name."""

    revision: str
    name: str

    def __init__(self, message: str, *, revision: str, name: str) -> None:
        super().__init__(message)
        self.revision = revision
        self.name = name


class ProtocolError(McpgenError, ValueError):
    """A request the server must refuse, with everything needed for the reply."""

    code: int
    """JSON-RPC error code (-32700, -32600, -32601, -32602, -32022, …)."""
    message: str
    data: JSONData
    id: Optional[RequestId]
    """The request id to echo; None when it could not be read (then the reply has no ``id``)."""
    http_status: int
    """HTTP status the spec requires for this failure on Streamable HTTP."""
    rule: str
    """Rule id from the protocol rules (``META-6``, ``VER-1``, ``MSG-1``, …)."""
    errors: List[ErrorDetail]
    legacy_initialize: bool
    """A legacy ``initialize`` refused by a modern-only server (a dual-era server would route it)."""

    def __init__(
        self,
        message: str,
        *,
        code: int,
        data: JSONData = None,
        id: Optional[RequestId] = None,
        http_status: int = 400,
        rule: str = "",
        errors: Sequence[ErrorDetail] = (),
        legacy_initialize: bool = False,
        response: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(f"{code} ({rule}, HTTP {http_status}): {message}")
        self.code = code
        self.message = message
        self.data = data
        self.id = id
        self.http_status = http_status
        self.rule = rule
        self.errors = list(errors)
        self.legacy_initialize = legacy_initialize
        self._response = response

    def to_response(self) -> Dict[str, Any]:
        """The JSON-RPC error response to send (no ``id`` member when the id is unknown)."""
        if self._response is None:
            raise RuntimeError("this ProtocolError was not raised by mcpgen and has no response")
        return self._response


class ResponseError(McpgenError, ValueError):
    """A response the client must treat as invalid: a local error, never one the peer sent."""

    rule: Optional[str]
    message: str
    errors: List[ErrorDetail]

    def __init__(self, message: str, *, rule: Optional[str] = None, errors: Sequence[ErrorDetail] = ()) -> None:
        super().__init__(f"invalid response ({rule}): {message}" if rule else f"invalid response: {message}")
        self.rule = rule
        self.message = message
        self.errors = list(errors)


class Message(NamedTuple):
    """What a valid message is (``validate_message``)."""

    kind: str
    """``"request"``, ``"notification"``, ``"result"`` or ``"error"``."""
    method: Optional[str]
    """The method of a request or notification."""
    code: Optional[int]
    """The error code of an error response."""


class MethodInfo(NamedTuple):
    """One row of a revision's method table."""

    method: str
    kind: str
    """``"request"`` or ``"notification"``."""
    direction: str
    """``"client_to_server"``, ``"server_to_client"``, ``"both"``, ``"embedded_input"`` (an input
    request inside ``InputRequiredResult.inputRequests``) or ``"unspecified"``."""
    request_def: str
    """Definition of the whole request or notification (``CallToolRequest``)."""
    params_type: Optional[str]
    params_required: bool
    result_defs: Tuple[str, ...]
    """The complete result first, then ``InputRequiredResult`` where the method may answer so."""
    input_required: bool
    """Whether the method may answer ``resultType: "input_required"`` (RESULT-5)."""


class AcceptedRequest(NamedTuple):
    """A request (or notification) the server should serve."""

    revision: str
    """The revision whose types decoded it."""
    method: str
    id: Optional[RequestId]
    """The id exactly as sent; None for notifications."""
    legacy: bool
    """A legacy ``initialize`` accepted by a dual-era server: route it to the legacy adapter."""
    request: Dict[str, Any]
    """The decoded request, as plain data."""


class DecodedResult(NamedTuple):
    """A result decoded by the method of the request it answers."""

    variant: str
    """The definition it was read as (``CallToolResult``, ``InputRequiredResult``…) or ``Raw``."""
    value: JSONData
    """The decoded result, as plain data."""
    json: str
    """The decoded result as compact JSON text, number text kept exactly."""


class SkippedItem(NamedTuple):
    """A list item that ``decode_result(..., skip_invalid_items=True)`` left out."""

    pointer: str
    """JSON pointer of the item in the result as received (``/tools/1``)."""
    position: int
    """Its index in the array as received (``index`` would hide ``tuple.index``)."""
    errors: List[ErrorDetail]
    """Why it is invalid, with pointers into the whole result (``/tools/1/inputSchema``)."""


class ResultResponse(NamedTuple):
    """A response carrying a result, decoded by the request's method."""

    id: RequestId
    variant: str
    result: JSONData


class ErrorResponse(NamedTuple):
    """A JSON-RPC error the peer sent (a remote error)."""

    id: Optional[RequestId]
    code: int
    message: str
    data: JSONData


class Era(NamedTuple):
    """Which protocol era a peer speaks."""

    modern: bool
    """True: per-request ``_meta`` (2026-07-28 and later). False: the ``initialize`` handshake."""
    supported: Tuple[str, ...]
    """Versions a modern peer named, if any."""


class MetaKeyError(McpgenError, ValueError):
    """A ``_meta`` key that breaks the META-1 grammar (``check_meta_key``). ``str(e)`` is the
    core's message, the same text every mcpgen surface shows."""

    kind: str
    """Stable name: ``empty_key``, ``empty_label``, ``label_start``, ``label_end``,
    ``label_char``, ``name_start``, ``name_end``, ``name_slash`` or ``name_char``."""
    rule: Optional[str]
    """Protocol rule id: ``META-1``."""
    pointer: Optional[str]
    """Always None: a key alone is no place in a document."""
    key: str
    """The key that was checked."""
    message: str

    def __init__(self, message: str, *, kind: str, rule: Optional[str] = "META-1", key: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.rule = rule
        self.pointer = None
        self.key = key
        self.message = message


class MetaKey(NamedTuple):
    """A ``_meta`` key split by the META-1 grammar."""

    prefix: Optional[str]
    """Prefix without the trailing ``/`` (``io.modelcontextprotocol``), if any."""
    name: str
    reserved: bool
    """META-3: the prefix's second label is ``modelcontextprotocol`` or ``mcp``."""


# ---- conversations -----------------------------------------------------------------------------


Sender = Union[Literal["client"], Literal["server"]]
"""Which side sent a message."""

Level = Union[Literal["error"], Literal["warning"]]
"""``"error"`` for MUST / MUST NOT and schema violations, ``"warning"`` for SHOULD."""


class Finding(NamedTuple):
    """One thing wrong with a message of a conversation (``Conversation.observe``)."""

    rule: Optional[str]
    """Rule id from the catalogue (``LOG-5``, ``ID-2``, …); None for a plain schema violation."""
    level: str
    """``"error"`` or ``"warning"`` (a ``Level``)."""
    pointer: str
    """JSON pointer (RFC 6901) into the message; ``""`` is the root."""
    schema_path: str
    """The failing schema location for schema violations, ``""`` for rules."""
    keyword: str
    """The JSON Schema keyword that failed or would express the rule."""
    message: str
    """A sentence a person can act on."""
    era: Optional[str] = None
    """``"modern"`` or ``"legacy"``: the era the message was judged under."""
    revision: Optional[str] = None
    """The revision the message was judged under (``"2025-11-25"``)."""

    @property
    def is_error(self) -> bool:
        """True for an error-level finding."""
        return self.level == "error"

    def __str__(self) -> str:
        at = self.pointer or "(root)"
        rule = f" ({self.rule})" if self.rule else ""
        return f"{self.level} at {at}{rule}: {self.message}"


# ---- tool schemas ------------------------------------------------------------------------------


class Limits(TypedDict, total=False):
    """Cost limits for tool schemas (JSCHEMA-8); a missing key keeps the core's default
    (``ToolChecker().limits`` lists them all)."""

    max_depth: int
    """Maximum nesting depth of subschemas (default 64)."""
    max_subschemas: int
    """Maximum number of subschemas, booleans included (default 10 000)."""
    max_enum_values: int
    """Maximum length of one ``enum`` (default 10 000)."""
    max_pattern_length: int
    """Maximum length of one pattern, in characters (default 1 000)."""
    regex_size_limit: int
    """Maximum compiled size of a linear-time pattern, in bytes (default 1 MiB)."""
    backtrack_limit: int
    """Backtracking steps a look-around / back-reference pattern may take per match (default
    100 000); reaching it raises :class:`LimitExceededError`."""
    max_steps: int
    """Maximum subschema evaluations at one instance location, references unfolded (default
    1 000 000)."""
    max_instance_depth: int
    """Maximum nesting depth of a validated instance (default 128)."""
    max_errors: int
    """Validation errors collected per call at most (default 100)."""


@dataclass(frozen=True)
class FetchRequest:
    """What a ``ToolChecker(fetch=...)`` callable is asked to fetch (JSCHEMA-6).

    mcpgen has already checked the scheme, the host allowlist and every address the host
    resolves to. The callable must connect only to ``addrs`` (never resolve ``host`` again:
    that would undo the check), send ``host`` as the TLS server name and ``Host`` header, send
    no credentials, follow no redirects, honour ``timeout`` and stop reading past ``max_bytes``.
    It returns the body (``bytes`` or ``bytearray``); raising refuses the reference."""

    uri: str
    """The absolute URI of the referenced document."""
    host: str
    """The URI's host, lower-cased, without IPv6 brackets."""
    port: int
    """The port to connect to (the URI's, else 443 for ``https``, 80 for ``http``)."""
    addrs: Tuple[Tuple[str, int], ...]
    """``(ip, port)`` pairs, ready for ``socket.create_connection``: the ONLY addresses the
    callable may connect to, each already checked to be public. IPv6 addresses have no
    brackets (``("2606:4700::1111", 443)``)."""
    timeout: float
    """Seconds the whole fetch may take (``ToolChecker(fetch_timeout=...)``)."""
    max_bytes: int
    """Read at most this many bytes (``ToolChecker(fetch_max_bytes=...)``); a longer body is
    refused."""


Fetcher = Callable[[FetchRequest], Union[bytes, bytearray]]
"""``ToolChecker(fetch=...)``: fetches one vetted ``FetchRequest`` and returns the body."""

Resolver = Callable[[str, int], Sequence[str]]
"""``ToolChecker(resolve=...)``: ``(host, port)`` → the host's IP addresses as strings
(``"93.184.216.34"``, ``"2606:4700::1111"``); every one of them is checked before any fetch."""


class SchemaProblem(NamedTuple):
    """One problem with a tool's own schemas."""

    kind: str
    """Stable name: ``invalid_tool``, ``root_not_object``, ``unsupported_dialect``,
    ``invalid_schema``, ``network_ref``, ``ref_refused``, ``unresolved_ref``, ``too_deep``,
    ``too_many_subschemas``, ``enum_too_large``, ``pattern_too_long``, ``catastrophic_pattern``,
    ``ref_cycle`` or ``step_budget_exceeded``."""
    pointer: str
    """JSON pointer into the tool (``/inputSchema/properties/user/$ref``)."""
    uri: Optional[str]
    """The URI concerned: the unsupported dialect or the refused reference."""
    rule: str
    """Protocol rule id (``JSCHEMA-5``, …)."""
    message: str

    def __str__(self) -> str:
        at = self.pointer or "(root)"
        return f"{at}: {self.message} [{self.kind}; {self.rule}]"


class ToolReport(NamedTuple):
    """The report for one tool of a ``check_tools`` document."""

    pointer: str
    """JSON pointer of the tool in the document (``""`` for a single tool, ``/tools/3``)."""
    name: str
    """The tool's ``name`` (``""`` when it has none)."""
    errors: Tuple[SchemaProblem, ...]
    """Empty when the tool's schemas are usable."""


class ToolDocumentError(McpgenError, ValueError):
    """A ``check_tools`` document that is JSON but no tool document (text that is not JSON is a
    :class:`ParseError`; a tool nested too deep is a ``too_deep`` problem of its report)."""

    kind: str
    """Stable name: ``not_a_tool_document`` (neither a ``Tool``, a ``tools/list`` result nor a
    response carrying one) or ``tools_not_an_array``."""
    rule: Optional[str]
    """Always None: no protocol rule applies."""
    pointer: Optional[str]
    """JSON pointer of the offending value (``""`` for the document, ``/tools``…)."""
    message: str

    def __init__(self, message: str, *, kind: str, pointer: Optional[str] = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.rule = None
        self.pointer = pointer
        self.message = message


class PinFileError(McpgenError, ValueError):
    """A tools pin file (``mcpgen tools pin``) given as ``Conversation(tools_baseline=…)`` that
    cannot be used: what, and where in the file."""

    kind: str
    """Stable name: ``not_json``, ``too_large``, ``unsupported_version``, ``malformed``,
    ``duplicate_tool`` or ``hash_mismatch``."""
    rule: Optional[str]
    """Always None: a pin is the user's file, no protocol rule applies."""
    pointer: Optional[str]
    """JSON pointer into the file (``""`` for the file, ``/tools/3/sha256``…)."""
    message: str

    def __init__(self, message: str, *, kind: str, pointer: Optional[str] = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.rule = None
        self.pointer = pointer
        self.message = message


class LimitError(McpgenError, ValueError):
    """A ``limits=`` key the core has no limit for (``kind`` ``unknown_limit``), or a value it
    cannot hold (``limit_too_large``). Other bad ``limits`` values (negative, not an ``int``) are
    a plain ``ValueError``; ``limits`` that is no dict is a ``TypeError``."""

    kind: str
    rule: Optional[str]
    """Always None: no protocol rule applies."""
    pointer: Optional[str]
    """Always None."""
    name: str
    """The limit name given."""
    message: str

    def __init__(self, message: str, *, kind: str, name: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.rule = None
        self.pointer = None
        self.name = name
        self.message = message


class ToolSchemaError(McpgenError, ValueError):
    """A tool whose own ``inputSchema`` / ``outputSchema`` cannot be used (JSCHEMA-*)."""

    tool: str
    """The tool's ``name`` (``""`` when it has none)."""
    errors: List[SchemaProblem]

    def __init__(self, message: str, *, tool: str = "", errors: Sequence[SchemaProblem] = ()) -> None:
        super().__init__(message)
        self.tool = tool
        self.errors = list(errors)


class LimitExceededError(ValidationError):
    """Validation of a tool-call instance stopped at a cost limit (JSCHEMA-8): the pattern
    backtrack limit or the instance depth. Its errors carry rule ``JSCHEMA-8``."""

    def __init__(self, message: str, errors: Sequence[ErrorDetail] = ()) -> None:
        super().__init__(message, errors, "limit_exceeded")


# ---- icons -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IconPolicy:
    """What an icon consumer accepts (ICON-1, -3, -6, -7, -8, -9); the defaults are the core's."""

    allow_http: bool = False
    """Accept plain ``http:`` sources (the spec disagrees with itself, AMB-3)."""
    allow_svg: bool = False
    """Accept SVG, which is active content that can carry script (ICON-9)."""
    allow_webp: bool = True
    allow_gif: bool = False
    max_bytes: int = 1048576
    """Maximum icon size in bytes (ICON-7); a ``data:`` URI is measured before decoding."""
    trusted_origins: Tuple[str, ...] = ()
    """Origins (``https://cdn.example.com``) trusted besides the server's own (ICON-6)."""

    def __post_init__(self) -> None:
        for name in ("allow_http", "allow_svg", "allow_webp", "allow_gif"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"IconPolicy.{name} must be a bool, found {getattr(self, name)!r}")
        if isinstance(self.max_bytes, bool) or not isinstance(self.max_bytes, int) or self.max_bytes < 0:
            raise ValueError(f"IconPolicy.max_bytes must be a non-negative int, found {self.max_bytes!r}")
        given: Any = self.trusted_origins
        origins = tuple(given) if isinstance(given, (list, tuple)) else None
        if origins is None or not all(isinstance(o, str) for o in origins):
            raise TypeError(f"IconPolicy.trusted_origins must be a tuple or list of str, found {given!r}")
        # Frozen and hashable: keep a tuple even when a list was given.
        object.__setattr__(self, "trusted_origins", origins)


IconKind = Union[Literal["data"], Literal["remote"]]


class IconInfo(NamedTuple):
    """An accepted ``Icon.src``."""

    kind: IconKind
    """``"data"``: inline bytes, decoded and checked. ``"remote"``: to be fetched by the caller
    (no credentials, same-origin redirects only; ICON-4/5), then checked with
    ``check_icon_bytes``."""
    mime: Optional[str]
    """The sniffed type of inline bytes (``image/png``…); None for a remote icon."""
    origin: Optional[str]
    """``scheme://host[:port]`` of a remote icon (lower-cased, default port dropped); None for
    inline data."""
    active_content: bool
    """True for SVG (it can carry script, ICON-9): inline SVG bytes, or a remote icon declared
    as ``image/svg+xml``. Render it sandboxed, never inline in a privileged document."""


class IconError(McpgenError, ValueError):
    """An icon refused by the policy."""

    kind: str
    """Stable name: ``invalid_uri``, ``scheme_not_allowed``, ``http_not_allowed``,
    ``invalid_data_uri``, ``mime_not_allowed``, ``unrecognized_image``, ``type_mismatch``,
    ``too_large`` or ``cross_origin``."""
    rule: str
    """Protocol rule id (``ICON-3``, ``ICON-8``, …)."""
    message: str

    def __init__(self, text: str, *, kind: str, rule: str, message: str = "") -> None:
        super().__init__(text)
        self.kind = kind
        self.rule = rule
        self.message = message or text
