"""Type stubs of the native module; the public API is re-exported by ``mcpgen``."""

from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Tuple, Union, final, overload

from ._types import (
    AcceptedRequest,
    BytesLike,
    DecodedResult,
    Era,
    ErrorResponse,
    Fetcher,
    Finding,
    IconInfo,
    IconPolicy,
    Limits,
    Message,
    MetaKey,
    MethodInfo,
    Policy,
    Resolver,
    ResultResponse,
    Sender,
    SkippedItem,
    ToolReport,
)

__all__ = [
    "REVISIONS",
    "Conversation",
    "ToolChecker",
    "__version__",
    "check_icon",
    "check_icon_bytes",
    "check_meta_key",
    "check_http_headers",
    "check_request",
    "check_response",
    "check_tool",
    "check_tools",
    "decode",
    "decode_json",
    "decode_result",
    "definitions",
    "detect_era",
    "is_valid",
    "is_valid_meta_key",
    "methods",
    "negotiate_version",
    "same_origin",
    "sniff_image",
    "validate",
    "validate_message",
    "validate_structured_content",
    "validate_tool_arguments",
]

__version__: str
REVISIONS: Tuple[str, ...]
"""Schema revisions of this build, newest first (the default ``revision``)."""

def validate(
    data: object,
    def_name: Optional[str] = None,
    *,
    revision: Optional[str] = None,
    extension: Optional[str] = None,
    strict_formats: bool = False,
    policy: Optional[Policy] = None,
) -> None:
    """Validates JSON text or Python data against the definition ``def_name`` of ``revision``
    (default: the newest); without ``def_name``, as an MCP message checked against the
    definition its ``method`` (or error) selects plus the protocol rules. With ``extension``
    (an identifier such as ``"io.modelcontextprotocol/tasks"``, or its short name ``"tasks"``;
    not with ``revision``), ``def_name`` is a definition of that extension's own schema
    (``"GetTaskRequest"``).

    Raises ``ValidationError`` (``ParseError`` for text that is not JSON) listing every error
    with its JSON pointer, schema path, keyword, rule id and message;
    ``UnknownDefinitionError`` for a name the revision lacks; ``ParseError`` too for Python data
    that is not JSON data anywhere in it (a ``set``, a non-``str`` key, ``nan``, nesting deeper
    than 128 levels…), as for its text."""

def is_valid(
    data: object,
    def_name: Optional[str] = None,
    *,
    revision: Optional[str] = None,
    extension: Optional[str] = None,
    strict_formats: bool = False,
    policy: Optional[Policy] = None,
) -> bool:
    """True when ``validate`` would not raise a validation error (fail-fast: builds no error)."""

def validate_message(
    data: object,
    *,
    revision: Optional[str] = None,
    strict_formats: bool = False,
    policy: Optional[Policy] = None,
    extensions: Optional[Sequence[str]] = None,
) -> Message:
    """Method-aware validation of a whole JSON-RPC message (what ``validate`` does without
    ``def_name``); returns its kind, and its method or error code. Rule errors carry rule ids.
    ``extensions`` names the extensions negotiated: their methods and notifications
    (``notifications/tasks``) are judged by the extension instead of reported unknown (a
    request that declares an extension in its own ``_meta`` needs no such argument)."""

def decode(
    data: object,
    def_name: str,
    *,
    revision: Optional[str] = None,
    extension: Optional[str] = None,
    policy: Optional[Policy] = None,
) -> Any:
    """Decodes as ``def_name`` and returns plain Python data (dict, list, str, int, float,
    bool, None): what the typed Rust value re-encodes to under ``policy``. Integer literals
    come back as ``int`` (any size), other numbers as ``float``. Raises as ``validate``."""

def decode_json(
    data: object,
    def_name: str,
    *,
    revision: Optional[str] = None,
    extension: Optional[str] = None,
    policy: Optional[Policy] = None,
) -> str:
    """Like ``decode``, but returns compact JSON text with every number's text kept exactly."""

@overload
def decode_result(
    data: object,
    request_method: str,
    *,
    revision: Optional[str] = None,
    policy: Optional[Policy] = None,
    skip_invalid_items: Literal[False] = False,
) -> DecodedResult:
    """Decodes a result by the method of the request it answers: ``resultType`` first
    (``input_required`` → ``InputRequiredResult``; absent → complete), then the method's result
    type; unknown methods and ``resultType`` values stay raw (variant ``"Raw"``)."""

@overload
def decode_result(
    data: object,
    request_method: str,
    *,
    revision: Optional[str] = None,
    policy: Optional[Policy] = None,
    skip_invalid_items: Literal[True],
) -> Tuple[DecodedResult, List[SkippedItem]]:
    """With ``skip_invalid_items=True``: the invalid items of a list result (``tools/list``,
    ``prompts/list``, ``resources/list``, ``resources/templates/list``, ``tasks/list``) are left
    out and returned beside the result, one ``SkippedItem`` each; anything else fails as
    without the option."""

@overload
def decode_result(
    data: object,
    request_method: str,
    *,
    revision: Optional[str] = None,
    policy: Optional[Policy] = None,
    skip_invalid_items: bool,
) -> Union[DecodedResult, Tuple[DecodedResult, List[SkippedItem]]]: ...

def check_request(
    data: object,
    *,
    supported_versions: Optional[Sequence[str]] = None,
    extensions: Optional[Sequence[str]] = None,
) -> AcceptedRequest:
    """Server side: returns the request to serve, or raises ``ProtocolError`` with the JSON-RPC
    error, HTTP status and rule id to answer with. ``supported_versions`` defaults to every
    revision of this build. ``extensions`` are the extensions the server serves: with
    ``"io.modelcontextprotocol/tasks"``, ``tasks/*`` are served to requests that declare it and
    refused -32021 otherwise (TASK-24, TASK-23). Python data is serialized to JSON first."""

def check_response(
    data: object,
    request_method: str,
    *,
    revision: Optional[str] = None,
    extension_result_types: Optional[Sequence[str]] = None,
) -> Union[ResultResponse, ErrorResponse]:
    """Client side: checks a response to a request of ``request_method``; raises
    ``ResponseError`` when the response itself is invalid (a local error). A JSON-RPC error from
    the peer is returned as ``ErrorResponse``. ``extension_result_types``: ``resultType``
    values of extensions negotiated for that request (kept raw instead of rejected)."""

def check_http_headers(headers: Union[Mapping[str, str], Iterable[Tuple[str, str]]], data: object) -> None:
    """Streamable HTTP: a modern request's ``MCP-Protocol-Version``, ``Mcp-Method`` and
    ``Mcp-Name`` headers (``Mcp-Name`` after decoding its Base64 sentinel form) against its
    body, before ``check_request``; raises the -32020 ``ProtocolError`` (HTTP 400) on a
    mismatch. Header names compare case-insensitively."""

def negotiate_version(requested: str, supported: Sequence[str]) -> str:
    """VER-1: returns ``requested`` when supported, else raises the -32022 ``ProtocolError``."""

def is_valid_meta_key(key: str) -> bool:
    """META-1: True when ``key`` follows the ``_meta`` key grammar."""

def check_meta_key(key: str) -> MetaKey:
    """META-1: splits a ``_meta`` key; raises ``MetaKeyError`` (a ``ValueError``) with the
    ``kind`` of the problem (``label_start``, ``name_char``…), rule ``META-1`` and the core's
    message."""

def detect_era(
    probe_response: Union[bytes, str, object, None] = None,
    *,
    http_400_body: Union[bytes, str, object, None] = None,
) -> Era:
    """Which protocol era a peer speaks: from its answer to a ``server/discover`` probe (None:
    no answer or a timeout, which means legacy), or from the body of an HTTP 400."""

def definitions(revision: Optional[str] = None) -> List[str]:
    """Every definition name of a revision (default: the newest)."""

def methods(revision: Optional[str] = None) -> List[MethodInfo]:
    """The method table of a revision (default: the newest)."""

# ---- tool schemas (JSCHEMA-*, TOOL-4, TOOL-5) -------------------------------------------------

def check_tool(tool: object, *, limits: Optional[Limits] = None, validate_formats: bool = False) -> None:
    """Checks and compiles a tool's ``inputSchema`` and ``outputSchema`` (JSCHEMA-1..10):
    dialect, meta-schema, references (a non-local ``$ref`` is refused and never fetched) and
    cost limits. ``tool`` is a ``Tool`` as Python data or JSON text.

    Raises ``ToolSchemaError`` listing every problem (``kind``, ``pointer`` into the tool,
    ``uri``, ``rule``, ``message``); ``ParseError`` for text that is not JSON (a tool nesting
    arrays and objects deeper than 128 levels, the parser's limit, is a ``too_deep`` problem,
    not a parse error); ``LimitError`` for an unknown limit name, ``ValueError`` for a negative
    limit. Without options it uses the core's process-wide checker,
    which keeps compiled tools; with options the tool is compiled for this call only (keep a
    ``ToolChecker`` to reuse them)."""

def check_tools(data: object, *, limits: Optional[Limits] = None, validate_formats: bool = False) -> List[ToolReport]:
    """Checks every tool of a document that is a ``Tool``, a ``tools/list`` result
    (``{"tools": [...]}``) or a JSON-RPC response carrying one: one report per tool, in order;
    a bad tool does not stop the others (a tool nested past the parser's limit is reported as
    ``too_deep``). Raises ``ParseError`` for text that is not JSON and ``ToolDocumentError``
    (``kind`` ``not_a_tool_document`` or ``tools_not_an_array``, ``pointer``) when the document
    is none of these."""

def validate_tool_arguments(
    tool: object,
    arguments: object,
    *,
    limits: Optional[Limits] = None,
    validate_formats: bool = False,
) -> None:
    """TOOL-5: validates ``tools/call`` arguments against the tool's ``inputSchema`` (pass
    ``{}`` when the request has none).

    Raises ``ValidationError`` (errors with a ``pointer`` into the arguments, ``schema_path``,
    ``keyword``, rule ``TOOL-5``) when they do not conform; ``LimitExceededError`` (rule
    ``JSCHEMA-8``) when validation stopped at a cost limit; ``ToolSchemaError`` when the tool's
    own schema is unusable."""

def validate_structured_content(
    tool: object,
    value: object,
    *,
    limits: Optional[Limits] = None,
    validate_formats: bool = False,
) -> None:
    """TOOL-4: validates a result's ``structuredContent`` against the tool's ``outputSchema``
    (a tool without one accepts any value). Raises as ``validate_tool_arguments``, with rule
    ``TOOL-4``."""

@final
class ToolChecker:
    """Compiles tools once and keeps them (keyed by name and schema text; bounded), so many
    calls pay the compile step once per tool. Thread-safe: share one across threads; compiling
    and validating release the GIL.

    By default a ``$ref`` to another document is refused (kind ``network_ref``) without any
    I/O. ``fetch`` opts in to fetching it (JSCHEMA-6): for each such ``$ref`` mcpgen checks the
    scheme (``https``; ``http`` too with ``allow_http``), the host against ``allow_hosts``
    (exact, case-insensitive; None: any host), resolves the host with ``resolve`` (default: the
    system resolver; an IP literal is not resolved) and refuses it when ANY address is not
    public (loopback, private, link-local, unique-local, shared, unspecified, multicast, or an
    IPv4-mapped form of those). Only then is ``fetch`` called, with the GIL held, with a
    ``FetchRequest`` naming the vetted addresses; the URI is logged in ``fetched``, a body over
    ``fetch_max_bytes`` or not JSON is refused. Every refusal, and any exception ``fetch`` or
    ``resolve`` raises, fails the tool with a ``ToolSchemaError`` of kind ``ref_refused``
    naming the URI and the reason (the exception's type and text); a ``KeyboardInterrupt``,
    ``SystemExit`` or other non-``Exception`` is re-raised instead. Fetched documents are kept
    with the compiled tool (a cached tool is not fetched again), not shared across tools.

    Raises ``TypeError`` when ``fetch`` or ``resolve`` is not callable, ``ValueError`` for
    ``fetch_timeout <= 0``, ``fetch_max_bytes < 0``, or a fetch option set to a non-default
    value without ``fetch`` (it would do nothing)."""

    def __new__(
        cls,
        *,
        limits: Optional[Limits] = None,
        validate_formats: bool = False,
        fetch: Optional[Fetcher] = None,
        resolve: Optional[Resolver] = None,
        allow_hosts: Optional[Iterable[str]] = None,
        allow_http: bool = False,
        fetch_timeout: float = 5.0,
        fetch_max_bytes: int = 1048576,
    ) -> "ToolChecker": ...
    def check_tool(self, tool: object) -> None:
        """As ``mcpgen.check_tool``; a usable tool is kept in the cache."""
    def validate_arguments(self, tool: object, arguments: object) -> None:
        """As ``mcpgen.validate_tool_arguments``, with this checker's options and cache."""
    def validate_structured_content(self, tool: object, value: object) -> None:
        """As ``mcpgen.validate_structured_content``, with this checker's options and cache."""
    @property
    def cached(self) -> int:
        """Number of compiled tools in the cache."""
    @property
    def limits(self) -> Dict[str, int]:
        """The limits in force, every key of ``Limits`` filled in."""
    @property
    def validate_formats(self) -> bool:
        """Whether ``format`` is checked as an assertion."""
    @property
    def fetched(self) -> Tuple[str, ...]:
        """JSCHEMA-6: every URI handed to ``fetch`` so far, in order (the log of fetches;
        empty without ``fetch``)."""

# ---- conversations -----------------------------------------------------------------------------

@final
class Conversation:
    """The checker of one MCP session: feed it every message in order, each with its sender; it
    returns the findings of each message: per-message validation plus the rules that span
    messages (a result against its request, the negotiated revision and capabilities, MRTR,
    subscriptions, progress, cancellation, logging). One object per session; calls on one
    object are serialised (thread-safe), and checking releases the GIL.

    ``strict_formats`` and ``policy`` apply to every message as in ``validate``;
    ``extension_result_types`` lists the ``resultType`` values of negotiated extensions to
    accept (RESULT-3). ``tools_baseline`` is a tools pin file (``mcpgen tools pin``; its text,
    or parsed data): every ``tools/list`` result is compared with it, each tool added, removed
    or changed a TOOL-12 warning. ``max_tools`` caps the tool definitions remembered (default
    1024; past it calls of further tools are not judged, and POLICY-STATE says so), and
    ``max_tool_schema_bytes`` the bytes of their schemas as canonical JSON (default 4 MiB; a
    tool that does not fit is not kept, likewise). Raises
    ``ValueError`` for an unknown policy and :class:`PinFileError` for a pin file that cannot
    be used."""

    def __new__(
        cls,
        *,
        strict_formats: bool = False,
        policy: Optional[Policy] = None,
        extension_result_types: Optional[Sequence[str]] = None,
        tools_baseline: Optional[object] = None,
        max_tools: Optional[int] = None,
        max_tool_schema_bytes: Optional[int] = None,
    ) -> "Conversation": ...
    def observe(self, sender: Sender, data: object) -> List[Finding]:
        """Checks the next message, sent by ``sender`` (``"client"`` or ``"server"``); returns
        its findings, empty when it has none. ``data`` is the exact text sent (``bytes``,
        ``str``, ``bytearray``, ``memoryview``: text that is not JSON is a finding, MSG-8) or
        parsed data (``dict``, …). Raises ``ValueError`` for another sender and ``ParseError``
        for Python data that is not JSON data; the session is then unchanged."""
    @property
    def revision(self) -> Optional[str]:
        """The revision the session negotiated (legacy ``initialize``) or last used (modern
        ``_meta``), or None while unknown."""

# ---- icons (ICON-*) ----------------------------------------------------------------------------

def check_icon(
    src: str,
    mime_type: Optional[str] = None,
    *,
    server: Optional[str] = None,
    policy: Optional[IconPolicy] = None,
) -> IconInfo:
    """Checks an ``Icon.src`` and its declared ``mimeType`` against the policy (default
    ``IconPolicy()``): scheme (ICON-3), type allowlist (ICON-1, SVG ICON-9), and for ``data:``
    URIs the size before decoding (ICON-7) and the bytes against the declared type (ICON-8).
    With ``server`` (the server's URL) a remote icon must also share its origin or come from a
    trusted one (ICON-6). Raises ``IconError`` with ``kind``, ``rule`` and ``message``."""

def check_icon_bytes(data: BytesLike, mime_type: Optional[str] = None, *, policy: Optional[IconPolicy] = None) -> str:
    """ICON-7/8: checks icon bytes (fetched, or from a ``data:`` URI): size, sniffed type
    against the allowlist and against the declared type (``mimeType``, else ``Content-Type``).
    Returns the canonical MIME type; raises ``IconError`` (``type_mismatch`` for a PNG
    labelled as JPEG)."""

def same_origin(a: str, b: str) -> bool:
    """ICON-6: whether two URIs share an origin (scheme, host, port; RFC 6454)."""

def sniff_image(data: BytesLike) -> Optional[str]:
    """The image type of the bytes by their magic number (PNG, JPEG, GIF, WebP, SVG), as a
    MIME type; None when unrecognised. Says nothing about whether a policy allows it."""
