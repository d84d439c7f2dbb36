"""Exceptions and result types of the mcpgen API.

They are plain Python classes: the native module (`mcpgen._native`) builds them, and all the
deciding is done there, by the same Rust core that the Rust crate, the C library and the CLI use.
"""

from typing import Any, Dict, List, Literal, NamedTuple, Optional, Sequence, Tuple, Union

JSONData = Any
"""JSON data as the `json` module reads it: dict, list, str, int, float, bool, None."""

RequestId = Union[str, int]

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
    express) or ``"parse"`` (not JSON; raised as the subclass :class:`ParseError`).
    """

    errors: List[ErrorDetail]
    kind: str

    def __init__(self, message: str, errors: Sequence[ErrorDetail] = (), kind: str = "invalid") -> None:
        super().__init__(message)
        self.errors = list(errors)
        self.kind = kind


class ParseError(ValidationError):
    """The bytes or text are not JSON (or not UTF-8). Positions are 1-based; ``offset`` in bytes."""

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


class MetaKey(NamedTuple):
    """A ``_meta`` key split by the META-1 grammar."""

    prefix: Optional[str]
    """Prefix without the trailing ``/`` (``io.modelcontextprotocol``), if any."""
    name: str
    reserved: bool
    """META-3: the prefix's second label is ``modelcontextprotocol`` or ``mcp``."""
