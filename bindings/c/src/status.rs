//! `mcpgen_status`: the one table of status codes.
//!
//! Each line of the [`statuses!`] call below names a status once: the Rust variant, its stable
//! code, the C constant and the text `mcpgen_status_str` returns. The enum, [`Status::ALL`],
//! [`Status::from_u32`], [`Status::name`] (`mcpgen_status_name`) and [`Status::describe`]
//! (`mcpgen_status_str`) are all derived from it. The C enum in `include/mcpgen.h` carries the
//! documentation of each status; a test (`tests.rs`) fails unless its enumerators are exactly
//! this table's names and codes, in this order.
//!
//! To add a status: one line here, inside its range (0 ok, 1–99 verdict, 100–199 remote error,
//! 200–299 call error, 300–399 internal), and the documented enumerator in `mcpgen.h`. Codes
//! never change once released.

/// Defines [`Status`] and its tables from `Variant = code => C_NAME, "description";` lines.
macro_rules! statuses {
    ($($variant:ident = $code:literal => $c_name:ident, $describe:literal;)+) => {
        /// `mcpgen_status`: stable codes, grouped in ranges (see `mcpgen.h`).
        #[repr(C)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Status {
            $($variant = $code,)+
        }

        impl Status {
            /// Every status, in code order.
            pub const ALL: &'static [Status] = &[$(Status::$variant,)+];

            pub fn from_u32(v: u32) -> Option<Status> {
                match v {
                    $($code => Some(Status::$variant),)+
                    _ => None,
                }
            }

            /// The C constant's name; NUL-terminated for `mcpgen_status_name`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Status::$variant => concat!(stringify!($c_name), "\0"),)+
                }
            }

            /// A short English description; NUL-terminated for `mcpgen_status_str`.
            pub fn describe(self) -> &'static str {
                match self {
                    $(Status::$variant => concat!($describe, "\0"),)+
                }
            }
        }

        // Every code inside a documented range, listed in ascending order.
        const _: () = {
            let codes: &[u32] = &[$($code,)+];
            let mut i = 0;
            while i < codes.len() {
                assert!(codes[i] <= 399, "a status code outside the documented ranges");
                assert!(i == 0 || codes[i - 1] < codes[i], "status codes out of order");
                i += 1;
            }
        };
    };
}

statuses! {
    Ok = 0 => MCPGEN_OK, "ok";
    Invalid = 1 => MCPGEN_INVALID, "the JSON does not conform to the schema";
    ParseError = 2 => MCPGEN_PARSE_ERROR, "the input is not JSON (bad syntax, truncated, not UTF-8, or nested too deep)";
    ProtocolViolation = 3 => MCPGEN_PROTOCOL_VIOLATION, "a protocol rule is violated";
    RequestRefused = 4 => MCPGEN_REQUEST_REFUSED, "the server must refuse the request (send the error response)";
    ResponseInvalid = 5 => MCPGEN_RESPONSE_INVALID, "the response is invalid (local error)";
    VersionUnsupported = 6 => MCPGEN_VERSION_UNSUPPORTED, "the requested protocol version is not supported";
    MetaKeyInvalid = 7 => MCPGEN_META_KEY_INVALID, "the _meta key does not follow the key grammar";
    ToolSchemaInvalid = 8 => MCPGEN_TOOL_SCHEMA_INVALID, "the tool's inputSchema or outputSchema cannot be used";
    LimitExceeded = 9 => MCPGEN_LIMIT_EXCEEDED, "validation stopped at a cost limit";
    IconRefused = 10 => MCPGEN_ICON_REFUSED, "the icon is refused";
    PinFileInvalid = 11 => MCPGEN_PIN_FILE_INVALID, "the tools pin file cannot be used";
    RemoteError = 100 => MCPGEN_REMOTE_ERROR, "the peer answered with a JSON-RPC error";
    NullArgument = 200 => MCPGEN_NULL_ARGUMENT, "a required pointer argument is NULL";
    UnknownRevision = 201 => MCPGEN_UNKNOWN_REVISION, "unknown schema revision";
    UnknownDefinition = 202 => MCPGEN_UNKNOWN_DEFINITION, "the revision has no such definition";
    ArgumentNotUtf8 = 203 => MCPGEN_ARGUMENT_NOT_UTF8, "a name argument is not valid UTF-8";
    InvalidArgument = 204 => MCPGEN_INVALID_ARGUMENT, "an argument is out of range";
    IndexOutOfRange = 205 => MCPGEN_INDEX_OUT_OF_RANGE, "index out of range";
    UnknownExtension = 206 => MCPGEN_UNKNOWN_EXTENSION, "unknown extension";
    Panic = 300 => MCPGEN_PANIC, "internal error: a panic was caught (please report)";
    Internal = 301 => MCPGEN_INTERNAL, "internal error (please report)";
}
