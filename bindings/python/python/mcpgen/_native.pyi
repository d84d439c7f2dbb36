"""Type stubs of the native module; the public API is re-exported by ``mcpgen``."""

from typing import Any, List, Optional, Sequence, Tuple, Union

from ._types import AcceptedRequest, DecodedResult, Era, ErrorResponse, Message, MetaKey, MethodInfo, Policy, ResultResponse

__all__ = [
    "REVISIONS",
    "__version__",
    "check_meta_key",
    "check_request",
    "check_response",
    "decode",
    "decode_json",
    "decode_result",
    "definitions",
    "detect_era",
    "is_valid",
    "is_valid_meta_key",
    "methods",
    "negotiate_version",
    "validate",
    "validate_message",
]

__version__: str
REVISIONS: Tuple[str, ...]
"""Schema revisions of this build, newest first (the default ``revision``)."""

def validate(
    data: object,
    def_name: Optional[str] = None,
    *,
    revision: Optional[str] = None,
    strict_formats: bool = False,
    policy: Optional[Policy] = None,
) -> None:
    """Validates JSON text or Python data against the definition ``def_name`` of ``revision``
    (default: the newest); without ``def_name``, as an MCP message checked against the
    definition its ``method`` (or error) selects plus the protocol rules.

    Raises ``ValidationError`` (``ParseError`` for text that is not JSON) listing every error
    with its JSON pointer, schema path, keyword, rule id and message;
    ``UnknownDefinitionError`` for a name the revision lacks; ``TypeError``/``ValueError`` for
    Python data that is not JSON data (a ``set``, a non-``str`` key, ``nan``…)."""

def is_valid(
    data: object,
    def_name: Optional[str] = None,
    *,
    revision: Optional[str] = None,
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
) -> Message:
    """Method-aware validation of a whole JSON-RPC message (what ``validate`` does without
    ``def_name``); returns its kind, and its method or error code. Rule errors carry rule ids."""

def decode(
    data: object,
    def_name: str,
    *,
    revision: Optional[str] = None,
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
    policy: Optional[Policy] = None,
) -> str:
    """Like ``decode``, but returns compact JSON text with every number's text kept exactly."""

def decode_result(
    data: object,
    request_method: str,
    *,
    revision: Optional[str] = None,
    policy: Optional[Policy] = None,
) -> DecodedResult:
    """Decodes a result by the method of the request it answers: ``resultType`` first
    (``input_required`` → ``InputRequiredResult``; absent → complete), then the method's result
    type; unknown methods and ``resultType`` values stay raw (variant ``"Raw"``)."""

def check_request(data: object, *, supported_versions: Optional[Sequence[str]] = None) -> AcceptedRequest:
    """Server side: returns the request to serve, or raises ``ProtocolError`` with the JSON-RPC
    error, HTTP status and rule id to answer with. ``supported_versions`` defaults to every
    revision of this build. Python data is serialized to JSON first."""

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

def negotiate_version(requested: str, supported: Sequence[str]) -> str:
    """VER-1: returns ``requested`` when supported, else raises the -32022 ``ProtocolError``."""

def is_valid_meta_key(key: str) -> bool:
    """META-1: True when ``key`` follows the ``_meta`` key grammar."""

def check_meta_key(key: str) -> MetaKey:
    """META-1: splits a ``_meta`` key; raises ``ValueError`` saying what is wrong."""

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
