"""mcpgen: validate, decode and check Model Context Protocol messages.

Every check runs in the mcpgen Rust core (the same one behind the Rust crate, the C library and
the ``mcpgen`` command), so all surfaces give the same verdict and the same error.

``data`` arguments take JSON text (``bytes``, ``str``, ``bytearray``, ``memoryview``; parsed and
checked with the GIL released) or already-parsed Python data (``dict``, ``list``, ``str`` inside
containers, ``int``, ``float``, ``bool``, ``None``; read in place, without a JSON round trip).
A top-level ``str`` is always JSON text.

Tool schemas (``check_tool``, ``check_tools``, ``validate_tool_arguments``,
``validate_structured_content``, ``ToolChecker``) and icons (``check_icon``,
``check_icon_bytes``, ``same_origin``, ``sniff_image``, ``IconPolicy``) run the core's
``mcpgen::tools`` and ``mcpgen::icons`` checks: a tool's ``$ref`` to another document is refused,
never fetched, unless a ``ToolChecker`` is given a ``fetch`` callable (JSCHEMA-6; see
``ToolChecker`` and ``FetchRequest``).

Whole sessions go through ``Conversation``: ``Conversation().observe("server", data)``
returns the ``Finding`` list of each message, checked against the messages before it.

Typed dictionaries for every definition of every revision live in ``mcpgen.rev_2026_07_28``,
``mcpgen.rev_2025_11_25``, … (generated from the schema).
"""

from ._native import REVISIONS as REVISIONS
from ._native import Conversation as Conversation
from ._native import ToolChecker as ToolChecker
from ._native import __version__ as __version__
from ._native import check_icon as check_icon
from ._native import check_icon_bytes as check_icon_bytes
from ._native import check_meta_key as check_meta_key
from ._native import check_http_headers as check_http_headers
from ._native import check_request as check_request
from ._native import check_response as check_response
from ._native import check_tool as check_tool
from ._native import check_tools as check_tools
from ._native import decode as decode
from ._native import decode_json as decode_json
from ._native import decode_result as decode_result
from ._native import definitions as definitions
from ._native import detect_era as detect_era
from ._native import is_valid as is_valid
from ._native import is_valid_meta_key as is_valid_meta_key
from ._native import methods as methods
from ._native import negotiate_version as negotiate_version
from ._native import same_origin as same_origin
from ._native import sniff_image as sniff_image
from ._native import validate as validate
from ._native import validate_message as validate_message
from ._native import validate_structured_content as validate_structured_content
from ._native import validate_tool_arguments as validate_tool_arguments
from ._types import AcceptedRequest as AcceptedRequest
from ._types import ArmFailure as ArmFailure
from ._types import DecodedResult as DecodedResult
from ._types import Era as Era
from ._types import ErrorDetail as ErrorDetail
from ._types import ErrorResponse as ErrorResponse
from ._types import Finding as Finding
from ._types import Fetcher as Fetcher
from ._types import FetchRequest as FetchRequest
from ._types import IconError as IconError
from ._types import IconInfo as IconInfo
from ._types import IconPolicy as IconPolicy
from ._types import LimitError as LimitError
from ._types import Level as Level
from ._types import LimitExceededError as LimitExceededError
from ._types import Limits as Limits
from ._types import McpgenError as McpgenError
from ._types import Message as Message
from ._types import MetaKey as MetaKey
from ._types import MetaKeyError as MetaKeyError
from ._types import MethodInfo as MethodInfo
from ._types import ParseError as ParseError
from ._types import ProtocolError as ProtocolError
from ._types import Resolver as Resolver
from ._types import ResponseError as ResponseError
from ._types import ResultResponse as ResultResponse
from ._types import SchemaProblem as SchemaProblem
from ._types import Sender as Sender
from ._types import SkippedItem as SkippedItem
from ._types import ToolDocumentError as ToolDocumentError
from ._types import PinFileError as PinFileError
from ._types import ToolReport as ToolReport
from ._types import ToolSchemaError as ToolSchemaError
from ._types import UnknownDefinitionError as UnknownDefinitionError
from ._types import ValidationError as ValidationError

__all__ = [
    "REVISIONS",
    "AcceptedRequest",
    "ArmFailure",
    "Conversation",
    "DecodedResult",
    "Era",
    "ErrorDetail",
    "ErrorResponse",
    "FetchRequest",
    "Fetcher",
    "Finding",
    "IconError",
    "IconInfo",
    "IconPolicy",
    "Level",
    "LimitError",
    "LimitExceededError",
    "Limits",
    "McpgenError",
    "Message",
    "MetaKey",
    "MetaKeyError",
    "MethodInfo",
    "ParseError",
    "ProtocolError",
    "Resolver",
    "ResponseError",
    "ResultResponse",
    "SchemaProblem",
    "Sender",
    "SkippedItem",
    "ToolChecker",
    "ToolDocumentError",
    "PinFileError",
    "ToolReport",
    "ToolSchemaError",
    "UnknownDefinitionError",
    "ValidationError",
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
