/* ==========================================================================================
 * The API (hand-written part of the header: codegen/src/emit/c_api.h, spliced in by
 * `cargo xtask codegen`; the implementation is bindings/c/src/).
 *
 * Conventions, for every function below:
 * - Each call returns an `mcpgen_status`; `MCPGEN_OK` (0) is success. `mcpgen_status_str()`
 *   renders any status. The ranges are stable (see `mcpgen_status`).
 * - Inputs are (pointer, length) pairs and never need a terminating NUL. A NULL pointer where
 *   input is required returns `MCPGEN_NULL_ARGUMENT` (a zero length with a non-NULL pointer is
 *   the empty input). Out-parameters marked "required" must not be NULL
 *   (`MCPGEN_NULL_ARGUMENT`); those marked "optional" may be NULL when the caller does not
 *   want that output.
 * - On entry, every pointer out-parameter is set to NULL (numbers to 0) before any work, so a
 *   failed call never leaves a half-filled output. Every owned output has a matching `_free`
 *   function; every `_free` accepts NULL.
 * - Borrowed strings are returned as `mcpgen_str` (pointer + length). The bytes are UTF-8,
 *   followed by a NUL that is not counted in `len` (so `ptr` can be printed with "%s"), but
 *   they may contain NUL bytes of their own (JSON strings can hold U+0000): use `len` when that
 *   matters. They stay valid as long as the object they were read from.
 * - No Rust panic crosses this boundary: a bug inside the library returns `MCPGEN_PANIC`.
 * - Thread safety: every function may be called from any thread. A `const mcpgen_context *`
 *   may be shared by any number of threads at once, as long as no thread calls a
 *   `mcpgen_context_set_*` function on it meanwhile (configure first, then share). Result
 *   objects (`mcpgen_error`, `mcpgen_request`, `mcpgen_response`, `mcpgen_strings`) are
 *   immutable: any number of threads may read one at once; free it exactly once, after the
 *   last reader is done. `mcpgen_tool_checker` and `mcpgen_icon_policy` follow the context's
 *   rule. The only global mutable state is the cache of the default tool checker (used when a
 *   tool function gets a NULL checker), which is internally locked. Callbacks registered with
 *   `mcpgen_tool_checker_set_fetcher` run on the threads that compile tools.
 * ======================================================================================== */

/** What happened. Stable numbers, grouped in ranges:
 *  - 0: success;
 *  - 1..99: a verdict on the input: it was read and does not conform (details in the
 *    `mcpgen_error`);
 *  - 100..199: the peer sent a JSON-RPC error (a remote error, never produced locally; ERR-7);
 *  - 200..299: the call itself was wrong (NULL argument, unknown revision or definition, …);
 *    local errors that say nothing about the input;
 *  - 300..399: a bug inside mcpgen (please report it).
 *  New codes may be added inside a range; existing ones never change. */
typedef enum mcpgen_status {
    /** Success: the input conforms, or the output was produced. */
    MCPGEN_OK = 0,
    /** The JSON does not conform to the schema: see the error's entries (pointer, keyword, …). */
    MCPGEN_INVALID = 1,
    /** The input is not JSON: invalid UTF-8, truncated, bad syntax, or nested deeper than 128. */
    MCPGEN_PARSE_ERROR = 2,
    /** A protocol rule the schema cannot express is violated (the error carries its rule id). */
    MCPGEN_PROTOCOL_VIOLATION = 3,
    /** `mcpgen_check_request`: the server must refuse; the error carries the JSON-RPC error
     *  response to send, its HTTP status and the rule id. */
    MCPGEN_REQUEST_REFUSED = 4,
    /** `mcpgen_check_response`: the response must be treated as invalid (a local error about a
     *  received response, never to be mistaken for an error the peer sent; ERR-7). */
    MCPGEN_RESPONSE_INVALID = 5,
    /** `mcpgen_negotiate_version`: the requested version is not supported (-32022, HTTP 400). */
    MCPGEN_VERSION_UNSUPPORTED = 6,
    /** `mcpgen_check_meta_key`: the key does not follow the `_meta` key grammar (META-1). */
    MCPGEN_META_KEY_INVALID = 7,
    /** A tool's `inputSchema` / `outputSchema` cannot be used (unsupported dialect, network
     *  `$ref`, over a cost limit, …): one entry per problem with its kind
     *  (`mcpgen_error_kind`), JSON pointer into the tool, URI (`mcpgen_error_uri`), rule
     *  (JSCHEMA-3..9) and message. */
    MCPGEN_TOOL_SCHEMA_INVALID = 8,
    /** Validating tool arguments or structured content stopped at a cost limit (pattern
     *  backtracking, instance depth; rule JSCHEMA-8): neither valid nor invalid. */
    MCPGEN_LIMIT_EXCEEDED = 9,
    /** An icon is refused (scheme, MIME type, bytes, size or origin): one entry with its kind
     *  (`mcpgen_error_kind`), rule (ICON-*) and message. */
    MCPGEN_ICON_REFUSED = 10,
    /** `mcpgen_check_response`: the response is a well-formed JSON-RPC error sent by the peer;
     *  read its code, message and data from the `mcpgen_response`. */
    MCPGEN_REMOTE_ERROR = 100,
    /** A required pointer argument was NULL. */
    MCPGEN_NULL_ARGUMENT = 200,
    /** The revision is not one of `mcpgen_revision`, or not compiled into this library. */
    MCPGEN_UNKNOWN_REVISION = 201,
    /** The revision has no definition with that name or id. */
    MCPGEN_UNKNOWN_DEFINITION = 202,
    /** A name, method or version argument is not valid UTF-8. */
    MCPGEN_ARGUMENT_NOT_UTF8 = 203,
    /** An enum argument is out of range (policy, era, …). */
    MCPGEN_INVALID_ARGUMENT = 204,
    /** An index is not below the count of the object it reads. */
    MCPGEN_INDEX_OUT_OF_RANGE = 205,
    /** A Rust panic was caught at the boundary: a bug in mcpgen, never caused by input. */
    MCPGEN_PANIC = 300,
    /** The core reported an internal inconsistency: a bug in mcpgen, never caused by input. */
    MCPGEN_INTERNAL = 301
} mcpgen_status;

/** True for statuses in the verdict range (1..99): the input was read and rejected. */
#define MCPGEN_STATUS_IS_VERDICT(s) ((s) >= 1 && (s) <= 99)
/** True for the remote-error range (100..199). */
#define MCPGEN_STATUS_IS_REMOTE(s) ((s) >= 100 && (s) <= 199)
/** True for the local call-error range (200..299). */
#define MCPGEN_STATUS_IS_CALL_ERROR(s) ((s) >= 200 && (s) <= 299)
/** True for the internal-bug range (300..399). */
#define MCPGEN_STATUS_IS_INTERNAL(s) ((s) >= 300 && (s) <= 399)

/** A borrowed UTF-8 string: `len` bytes at `ptr`. As an output, `ptr[len]` is a NUL and the
 *  bytes live as long as the object they came from; as an input, no NUL is needed and the
 *  bytes are only read during the call. */
typedef struct mcpgen_str {
    const char *ptr;
    size_t len;
} mcpgen_str;

/** What to do with object keys the schema does not declare. */
typedef enum mcpgen_policy {
    /** Accept, keep and re-emit them (the default). */
    MCPGEN_POLICY_LOSSLESS = 0,
    /** Accept and drop them. */
    MCPGEN_POLICY_LENIENT = 1,
    /** Reject them (keyword `additionalProperties`, rule `POLICY-STRICT`); `_meta` objects and
     *  declared maps still accept their keys. */
    MCPGEN_POLICY_STRICT = 2
} mcpgen_policy;

/** What a message is (`mcpgen_validate_message`). */
typedef enum mcpgen_message_kind {
    MCPGEN_MESSAGE_REQUEST = 1,
    MCPGEN_MESSAGE_NOTIFICATION = 2,
    MCPGEN_MESSAGE_RESULT = 3,
    MCPGEN_MESSAGE_ERROR = 4
} mcpgen_message_kind;

/** Which protocol era a peer speaks (`mcpgen_detect_era_*`). */
typedef enum mcpgen_era {
    /** Per-request `_meta` (2026-07-28 and later). */
    MCPGEN_ERA_MODERN = 1,
    /** `initialize` handshake (2025-11-25 and earlier). */
    MCPGEN_ERA_LEGACY = 2
} mcpgen_era;

/** Options and settings shared by calls: unknown-key policy, format checks, client leniency,
 *  the protocol versions a server supports, the extension result types a client accepts.
 *  Create with `mcpgen_context_new`, configure with `mcpgen_context_set_*`, then pass it as
 *  `const` to any number of threads. Owned by the caller; free with `mcpgen_context_free`. */
typedef struct mcpgen_context mcpgen_context;

/** Why a call failed: a summary, the list of validation errors (each with a JSON pointer,
 *  schema path, keyword, rule id and message) and, for refused requests, the JSON-RPC error
 *  response to send. Owned by the caller; free with `mcpgen_error_free`. */
typedef struct mcpgen_error mcpgen_error;

/** A request `mcpgen_check_request` accepted. Owned by the caller; free with
 *  `mcpgen_request_free`. */
typedef struct mcpgen_request mcpgen_request;

/** A response `mcpgen_check_response` read: a result or the peer's JSON-RPC error. Owned by the
 *  caller; free with `mcpgen_response_free`. */
typedef struct mcpgen_response mcpgen_response;

/** A list of strings (versions a modern server named). Owned by the caller; free with
 *  `mcpgen_strings_free`. */
typedef struct mcpgen_strings mcpgen_strings;

/** Options for tool schemas (cost limits, format assertion) plus a cache of compiled tools, so
 *  validating many `tools/call`s of one tool compiles its schema once. Create with
 *  `mcpgen_tool_checker_new`, configure with `mcpgen_tool_checker_set_*`, then pass it as
 *  `const` to any number of threads (the cache is internally locked). Owned by the caller; free
 *  with `mcpgen_tool_checker_free`. Every tool function also accepts NULL: the default options
 *  and one process-wide cache. Non-local `$ref`s are never fetched (JSCHEMA-5) unless a fetch
 *  callback is registered with `mcpgen_tool_checker_set_fetcher` (JSCHEMA-6). */
typedef struct mcpgen_tool_checker mcpgen_tool_checker;

/** A fetch the opt-in resolver vetted (JSCHEMA-6), handed to a `mcpgen_fetch_fn`; every
 *  pointer is valid only during the callback. */
typedef struct mcpgen_fetch_request {
    /** The URI to fetch (`https:`, or `http:` when allowed). */
    mcpgen_str uri;
    /** Its host, lower-cased, without brackets. */
    mcpgen_str host;
    /** The port to connect to (443 / 80 by default). */
    uint16_t port;
    /** The only addresses to connect to (text: `93.184.216.34`, `2606:2800::1`), every one
     *  checked to be public; connecting to these pins the checked DNS answer. */
    const mcpgen_str *addrs;
    size_t addr_count;
    /** Give up after this long. */
    uint32_t timeout_ms;
    /** Read at most this many bytes; more is refused. */
    size_t max_bytes;
} mcpgen_fetch_request;

/** The body being received by a `mcpgen_fetch_fn`; append with `mcpgen_buffer_append`.
 *  Owned by the library; valid only during the callback. */
typedef struct mcpgen_buffer mcpgen_buffer;

/** The addresses a `mcpgen_resolve_fn` finds; add with `mcpgen_addresses_add`. Owned by the
 *  library; valid only during the callback. */
typedef struct mcpgen_addresses mcpgen_addresses;

/** Fetches a vetted URI: connect only to `request->addrs` on `request->port`, honour the
 *  timeout, send no credentials, follow no redirects, append the body to `body` and stop past
 *  `request->max_bytes`. Return 0 on success, anything else on failure (the `$ref` is then
 *  refused, kind `ref_refused`). Called on the thread that compiles the tool, possibly on
 *  several threads at once; it must not unwind (no C++ exception or longjmp out of it). */
typedef int (*mcpgen_fetch_fn)(void *user_data, const mcpgen_fetch_request *request, mcpgen_buffer *body);

/** Resolves `host` (not NUL-terminated: `host_len` bytes) for `port`, adding each address with
 *  `mcpgen_addresses_add`. Return 0 on success. Same threading rules as `mcpgen_fetch_fn`. */
typedef int (*mcpgen_resolve_fn)(void *user_data, const char *host, size_t host_len, uint16_t port,
                                 mcpgen_addresses *addresses);

/** A cost limit of a `mcpgen_tool_checker` (JSCHEMA-8); the defaults admit real tool schemas
 *  and refuse hostile ones. */
typedef enum mcpgen_tool_limit {
    /** Maximum nesting depth of subschemas (default 64). */
    MCPGEN_TOOL_LIMIT_MAX_DEPTH = 1,
    /** Maximum number of subschemas, booleans included (default 10000). */
    MCPGEN_TOOL_LIMIT_MAX_SUBSCHEMAS = 2,
    /** Maximum length of one `enum` (default 10000). */
    MCPGEN_TOOL_LIMIT_MAX_ENUM_VALUES = 3,
    /** Maximum length of one `pattern`, in characters (default 1000). */
    MCPGEN_TOOL_LIMIT_MAX_PATTERN_LENGTH = 4,
    /** Maximum compiled size of a linear-time pattern, in bytes (default 1 MiB). */
    MCPGEN_TOOL_LIMIT_REGEX_SIZE = 5,
    /** Backtracking steps a look-around / back-reference pattern may take per match (default
     *  100000); reaching it is `MCPGEN_LIMIT_EXCEEDED`. */
    MCPGEN_TOOL_LIMIT_BACKTRACK = 6,
    /** Maximum subschema evaluations at one instance location, references unfolded (default
     *  1000000). */
    MCPGEN_TOOL_LIMIT_MAX_STEPS = 7,
    /** Maximum nesting depth of a validated instance (default 128). */
    MCPGEN_TOOL_LIMIT_MAX_INSTANCE_DEPTH = 8,
    /** Validation errors collected per call at most (default 100). */
    MCPGEN_TOOL_LIMIT_MAX_ERRORS = 9
} mcpgen_tool_limit;

/** What an icon consumer accepts (ICON-1, -3, -6, -7, -8, -9). Create with
 *  `mcpgen_icon_policy_new` (defaults: `https:` and `data:` only; PNG, JPEG, WebP; 1 MiB; no
 *  trusted origins besides the server's), configure, then share as `const`. Owned by the
 *  caller; free with `mcpgen_icon_policy_free`. Every icon function accepts NULL for the
 *  defaults. */
typedef struct mcpgen_icon_policy mcpgen_icon_policy;

/** A yes/no option of a `mcpgen_icon_policy`. */
typedef enum mcpgen_icon_option {
    /** Accept plain `http:` icons (default off; AMB-3). */
    MCPGEN_ICON_ALLOW_HTTP = 1,
    /** Accept SVG (default off). SVG is active content (ICON-9): render it only sandboxed, as an
     *  image, never inline in a page. */
    MCPGEN_ICON_ALLOW_SVG = 2,
    /** Accept WebP (default on). */
    MCPGEN_ICON_ALLOW_WEBP = 3,
    /** Accept GIF (default off; not in the spec's list). */
    MCPGEN_ICON_ALLOW_GIF = 4
} mcpgen_icon_option;

/** An image type recognised by its bytes (ICON-8). */
typedef enum mcpgen_image_type {
    /** No image (a remote icon not fetched yet, or bytes of no known type). */
    MCPGEN_IMAGE_NONE = 0,
    MCPGEN_IMAGE_PNG = 1,
    MCPGEN_IMAGE_JPEG = 2,
    MCPGEN_IMAGE_GIF = 3,
    MCPGEN_IMAGE_WEBP = 4,
    /** Active content (ICON-9): scripts and external references; sandbox it. */
    MCPGEN_IMAGE_SVG = 5
} mcpgen_image_type;

/* ---- Library information ------------------------------------------------------------------ */

/** The library's version, `"MAJOR.MINOR.PATCH"`: a static NUL-terminated string, never freed.
 *  Compare with `MCPGEN_VERSION_STRING` to detect a header/library mismatch. */
const char *mcpgen_version(void);

/** The library's version as `MCPGEN_VERSION_NUMBER` computes it
 *  (major * 1000000 + minor * 1000 + patch). */
uint32_t mcpgen_version_number(void);

/** A short English description of `status` (any value, even unknown ones): a static
 *  NUL-terminated string, never freed. */
const char *mcpgen_status_str(uint32_t status);

/** The stable name of `status` (`"MCPGEN_INVALID"`), or `"MCPGEN_UNKNOWN_STATUS"`: a static
 *  NUL-terminated string, never freed. */
const char *mcpgen_status_name(uint32_t status);

/** The name of `revision` (`"2026-07-28"`) into `*name_out` (required; static storage, never
 *  freed). `MCPGEN_UNKNOWN_REVISION` when the value is not a revision of this header, or the
 *  library was built without it. */
mcpgen_status mcpgen_revision_name(uint32_t revision, mcpgen_str *name_out);

/** Parses a revision name (`"2026-07-28"`, `name_len` bytes at `name`) into `*revision_out`
 *  (required). `MCPGEN_UNKNOWN_REVISION` when this library does not have it. */
mcpgen_status mcpgen_revision_parse(const char *name, size_t name_len, mcpgen_revision *revision_out);

/** Finds the id of definition `name` (`"CallToolRequest"`) in `revision` into `*id_out`
 *  (required). The ids are the `MCPGEN_DEF_<REVISION>_<NAME>` constants of this header. */
mcpgen_status mcpgen_def_lookup(uint32_t revision, const char *name, size_t name_len, mcpgen_def_id *id_out);

/** The spec name of definition `id` into `*name_out` (required; static storage, never freed),
 *  and its revision into `*revision_out` (optional). */
mcpgen_status mcpgen_def_name(mcpgen_def_id id, mcpgen_str *name_out, mcpgen_revision *revision_out);

/** Who sends a method (`mcpgen_method_info.direction`). */
typedef enum mcpgen_direction {
    MCPGEN_DIRECTION_CLIENT_TO_SERVER = 1,
    MCPGEN_DIRECTION_SERVER_TO_CLIENT = 2,
    /** Either side (e.g. `ping` before 2026-07-28). */
    MCPGEN_DIRECTION_BOTH = 3,
    /** An input request embedded in `InputRequiredResult.inputRequests`, never a JSON-RPC
     *  request of its own (2026-07-28). */
    MCPGEN_DIRECTION_EMBEDDED_INPUT = 4,
    /** The schema's direction unions do not list it. */
    MCPGEN_DIRECTION_UNSPECIFIED = 5
} mcpgen_direction;

/** One row of a revision's method table. Filled by the library; `method` points to static
 *  storage (never freed). */
typedef struct mcpgen_method_info {
    /** The method name (`"tools/call"`). */
    mcpgen_str method;
    /** Definition of the whole request or notification (`CallToolRequest`). */
    mcpgen_def_id request_def;
    /** Definition of its complete result (`CallToolResult`); 0 for notifications. */
    mcpgen_def_id result_def;
    /** True for a notification, false for a request. */
    bool is_notification;
    /** True when the method may answer `resultType: "input_required"` (RESULT-5). */
    bool input_required;
    /** An `mcpgen_direction` value. */
    uint32_t direction;
} mcpgen_method_info;

/** The number of methods of `revision` into `*count_out` (required). */
mcpgen_status mcpgen_method_count(uint32_t revision, size_t *count_out);

/** Row `index` of the method table of `revision` into `*info_out` (required).
 *  `MCPGEN_INDEX_OUT_OF_RANGE` past the count. */
mcpgen_status mcpgen_method_at(uint32_t revision, size_t index, mcpgen_method_info *info_out);

/** The row of `method` (`method_len` bytes) into `*info_out` (required).
 *  `MCPGEN_INVALID_ARGUMENT` when the revision has no such method. */
mcpgen_status mcpgen_method_lookup(uint32_t revision, const char *method, size_t method_len,
                                   mcpgen_method_info *info_out);

/* ---- Context ------------------------------------------------------------------------------ */

/** Creates a context with the defaults: lossless policy, formats as annotations, no client
 *  leniency, `resultType` discrimination off for plain validation, every revision of this
 *  library as the supported versions (newest first), no extension result types. Passing NULL
 *  where a function takes a `const mcpgen_context *` means these defaults. `*ctx_out` (required) receives a new
 *  object owned by the caller: free it with `mcpgen_context_free` once no call uses it. */
mcpgen_status mcpgen_context_new(mcpgen_context **ctx_out);

/** Frees a context (NULL is a no-op). No call may be using it. */
void mcpgen_context_free(mcpgen_context *ctx);

/** Sets the unknown-key policy (an `mcpgen_policy` value) for validation and decoding.
 *  Not synchronized: do not call while other threads use `ctx`. */
mcpgen_status mcpgen_context_set_policy(mcpgen_context *ctx, uint32_t policy);

/** Checks `format` (`uri`, `uri-template`, `byte`) as assertions instead of annotations in
 *  `mcpgen_validate*` and `mcpgen_validate_message`. Not synchronized (see above). */
mcpgen_status mcpgen_context_set_strict_formats(mcpgen_context *ctx, bool on);

/** Client-side leniency for results in `mcpgen_validate*` and `mcpgen_validate_message`:
 *  a result without `resultType` reads as complete (RESULT-2); absent `ttlMs`/`cacheScope` are
 *  tolerated (CACHE-3). Not synchronized (see above). */
mcpgen_status mcpgen_context_set_client_leniency(mcpgen_context *ctx, bool on);

/** Tells `InputRequiredResult` unions apart by `resultType` alone in `mcpgen_validate*`
 *  (RESULT-6; decoding always does). Not synchronized (see above). */
mcpgen_status mcpgen_context_set_discriminate_results(mcpgen_context *ctx, bool on);

/** Sets the protocol versions the server supports, preferred first (`count` strings at
 *  `versions`; each is copied, nothing is kept). Used by `mcpgen_check_request` and
 *  `mcpgen_negotiate_version`. A legacy version (2025-11-25 or older) makes the server
 *  dual-era (ERA-1). `versions` may be NULL only when `count` is 0.
 *  Not synchronized (see above). */
mcpgen_status mcpgen_context_set_supported_versions(mcpgen_context *ctx, const mcpgen_str *versions, size_t count);

/** Sets the `resultType` values (besides `complete` and `input_required`) that extensions the
 *  client negotiated define (RESULT-3/4): `mcpgen_check_response` keeps such results raw instead
 *  of rejecting them. Each string is copied. `result_types` may be NULL only when `count` is 0.
 *  Not synchronized (see above). */
mcpgen_status mcpgen_context_set_extension_result_types(mcpgen_context *ctx, const mcpgen_str *result_types,
                                                       size_t count);

/* ---- Validation and decoding -------------------------------------------------------------- */

/** Validates `json` (`json_len` bytes) against definition `def` (`def_len` bytes, the spec name)
 *  of `revision`, with the context's options. `ctx` may be NULL for the defaults.
 *  Returns `MCPGEN_OK`, or a verdict (`MCPGEN_INVALID`, `MCPGEN_PARSE_ERROR`) or a call error.
 *  `*error_out` (optional) receives, on any failure, a new `mcpgen_error` owned by the caller
 *  (free with `mcpgen_error_free`), else NULL. Pass NULL to only learn the verdict: that is
 *  faster, as no error details are collected. */
mcpgen_status mcpgen_validate(const mcpgen_context *ctx, uint32_t revision, const char *def, size_t def_len,
                              const uint8_t *json, size_t json_len, mcpgen_error **error_out);

/** Like `mcpgen_validate`, with the definition (and its revision) named by a generated id
 *  (`MCPGEN_DEF_2026_07_28_CALL_TOOL_REQUEST`). */
mcpgen_status mcpgen_validate_id(const mcpgen_context *ctx, mcpgen_def_id def, const uint8_t *json, size_t json_len,
                                 mcpgen_error **error_out);

/** Method-aware validation of one JSON-RPC message under `revision`: checked against the exact
 *  definition its `method` (or error `code`) selects, plus the protocol rules; unknown methods
 *  are reported as such. `ctx` may be NULL for the defaults.
 *  Outputs (all optional): `*kind_out` what the message is; `*method_out` a new NUL-terminated
 *  string with the method of a request or notification (else NULL), owned by the caller (free
 *  with `mcpgen_string_free`), its length in `*method_len_out`; `*error_code_out` the code of
 *  an error message (else 0); `*error_out` as in `mcpgen_validate`. */
mcpgen_status mcpgen_validate_message(const mcpgen_context *ctx, uint32_t revision, const uint8_t *json, size_t json_len,
                                      mcpgen_message_kind *kind_out, char **method_out, size_t *method_len_out,
                                      int64_t *error_code_out, mcpgen_error **error_out);

/** Decodes `json` as definition `def` of `revision` with the context's unknown-key policy, and
 *  re-encodes it: `*json_out` (required) receives a new NUL-terminated compact JSON text owned
 *  by the caller (free with `mcpgen_string_free`), `*json_len_out` (optional) its length.
 *  Under the lossless policy unknown keys, number texts and empty objects survive.
 *  `ctx` may be NULL for the defaults. `*error_out` as in `mcpgen_validate`. */
mcpgen_status mcpgen_decode(const mcpgen_context *ctx, uint32_t revision, const char *def, size_t def_len,
                            const uint8_t *json, size_t json_len, char **json_out, size_t *json_len_out,
                            mcpgen_error **error_out);

/** Like `mcpgen_decode`, with the definition named by a generated id. */
mcpgen_status mcpgen_decode_id(const mcpgen_context *ctx, mcpgen_def_id def, const uint8_t *json, size_t json_len,
                               char **json_out, size_t *json_len_out, mcpgen_error **error_out);

/** Decodes a result (the `result` member of a response) given the method of the request it
 *  answers: `resultType` first, then the method; unknown ones are kept raw. Outputs as in
 *  `mcpgen_decode`, plus `*variant_out` (optional): the definition it was read as, or `"Raw"`
 *  (static storage, never freed). */
mcpgen_status mcpgen_decode_result(const mcpgen_context *ctx, uint32_t revision, const char *method, size_t method_len,
                                   const uint8_t *json, size_t json_len, char **json_out, size_t *json_len_out,
                                   mcpgen_str *variant_out, mcpgen_error **error_out);

/** Frees a string this library returned through a `char **` output (NULL is a no-op). Never
 *  pass it memory from elsewhere, nor `free()` these strings. */
void mcpgen_string_free(char *s);

/* ---- Protocol rules ----------------------------------------------------------------------- */

/** Server side: decides whether a request (or notification) should be served, in the check
 *  order parse → envelope → `_meta` → version → method → params, with the context's supported
 *  versions (`ctx` may be NULL for the defaults).
 *  `MCPGEN_OK`: `*request_out` (required) receives a new `mcpgen_request` owned by the caller
 *  (free with `mcpgen_request_free`).
 *  `MCPGEN_REQUEST_REFUSED`: `*error_out` (optional) receives a new `mcpgen_error` with the
 *  JSON-RPC error response to send (`mcpgen_error_response_json`), its HTTP status, code and
 *  rule id. */
mcpgen_status mcpgen_check_request(const mcpgen_context *ctx, const uint8_t *json, size_t json_len,
                                   mcpgen_request **request_out, mcpgen_error **error_out);

/** Client side: checks a response received for a request of `method` under `revision`, with the
 *  context's extension result types (`ctx` may be NULL for none).
 *  `MCPGEN_OK` (a result) or `MCPGEN_REMOTE_ERROR` (the peer's JSON-RPC error): `*response_out`
 *  (required) receives a new `mcpgen_response` owned by the caller (free with
 *  `mcpgen_response_free`). `MCPGEN_RESPONSE_INVALID`: the response must be treated as invalid;
 *  `*error_out` (optional) says why. */
mcpgen_status mcpgen_check_response(const mcpgen_context *ctx, uint32_t revision, const char *method, size_t method_len, const uint8_t *json,
                                    size_t json_len, mcpgen_response **response_out, mcpgen_error **error_out);

/** Version negotiation (VER-1): `requested` against the context's supported versions (`ctx` may
 *  be NULL for the defaults). `MCPGEN_OK`: `*version_out` (optional) receives the agreed version
 *  as a new string (free with `mcpgen_string_free`). `MCPGEN_VERSION_UNSUPPORTED`: `*error_out`
 *  (optional) carries the -32022 error response (`data.supported`, `data.requested`, HTTP 400). */
mcpgen_status mcpgen_negotiate_version(const mcpgen_context *ctx, const char *requested, size_t requested_len,
                                       char **version_out, mcpgen_error **error_out);

/** Checks a `_meta` key against the META-1 grammar. `MCPGEN_OK`: `*reserved_out` (optional) is
 *  true when the prefix is reserved (META-3); `*prefix_out` (optional) receives the prefix
 *  without its `/` as a new string, or NULL when there is none, and `*name_out` (optional) the
 *  name (free both with `mcpgen_string_free`). `MCPGEN_META_KEY_INVALID`: `*error_out`
 *  (optional) has one entry with the kind (`label_start`, `name_char`, …), rule META-1 and the
 *  message saying what is wrong. */
mcpgen_status mcpgen_check_meta_key(const char *key, size_t key_len, bool *reserved_out, char **prefix_out,
                                    char **name_out, mcpgen_error **error_out);

/** Era detection from the answer to a stdio `server/discover` probe (ERA-2/3). `response` NULL
 *  with `response_len` 0 means no answer (a timeout), which means legacy. `*era_out`
 *  (required) receives the era; `*supported_out` (optional) receives, for a modern peer, a new
 *  list of the versions it named (free with `mcpgen_strings_free`), else NULL. */
mcpgen_status mcpgen_detect_era_from_probe(const uint8_t *response, size_t response_len, mcpgen_era *era_out,
                                           mcpgen_strings **supported_out);

/** Era detection from the body of an HTTP 400 answering a modern request (ERA-5). Outputs as in
 *  `mcpgen_detect_era_from_probe`. */
mcpgen_status mcpgen_detect_era_from_http_400(const uint8_t *body, size_t body_len, mcpgen_era *era_out,
                                              mcpgen_strings **supported_out);

/* ---- Errors ------------------------------------------------------------------------------- */

/** Frees an error (NULL is a no-op); every string read from it becomes invalid. */
void mcpgen_error_free(mcpgen_error *error);

/** The status of the call that produced `error` into `*status_out` (required). */
mcpgen_status mcpgen_error_status(const mcpgen_error *error, mcpgen_status *status_out);

/** The whole failure as text a person can act on (every entry, with pointers and rule ids) into
 *  `*text_out` (required; valid until the error is freed). */
mcpgen_status mcpgen_error_text(const mcpgen_error *error, mcpgen_str *text_out);

/** The number of entries into `*count_out` (required). Entries are the validation errors
 *  depth-first: each top-level error (depth 0) is followed by the errors of each union arm it
 *  tried (depth 1, 2, …; see `mcpgen_error_arm`). A parse error or a protocol violation is one
 *  entry; a refusal without schema details, or a call error, has none (read the text). */
mcpgen_status mcpgen_error_count(const mcpgen_error *error, size_t *count_out);

/** Entry `index`: the JSON pointer into the input (RFC 6901; empty for the root) into `*out`
 *  (required; valid until the error is freed). `MCPGEN_INDEX_OUT_OF_RANGE` past the count. */
mcpgen_status mcpgen_error_pointer(const mcpgen_error *error, size_t index, mcpgen_str *out);

/** Entry `index`: the location of the failing keyword in the schema
 *  (`#/$defs/Tool/properties/name/type`; empty when none) into `*out` (required). */
mcpgen_status mcpgen_error_schema_path(const mcpgen_error *error, size_t index, mcpgen_str *out);

/** Entry `index`: the JSON Schema keyword that failed (`type`, `required`, `const`, `anyOf`, …;
 *  empty when none) into `*out` (required). */
mcpgen_status mcpgen_error_keyword(const mcpgen_error *error, size_t index, mcpgen_str *out);

/** Entry `index`: the protocol rule id (`META-6`) when a rule rather than the schema raised it,
 *  else empty, into `*out` (required). */
mcpgen_status mcpgen_error_rule(const mcpgen_error *error, size_t index, mcpgen_str *out);

/** Entry `index`: what was expected and what was found, into `*out` (required). */
mcpgen_status mcpgen_error_message(const mcpgen_error *error, size_t index, mcpgen_str *out);

/** Entry `index`: for a tool-schema problem or a refused icon, its stable snake_case kind
 *  (`network_ref`, `unsupported_dialect`, `too_deep`, `type_mismatch`, `scheme_not_allowed`, …;
 *  the list is in README "Validating tool schemas and icons"), else empty, into `*out`
 *  (required). */
mcpgen_status mcpgen_error_kind(const mcpgen_error *error, size_t index, mcpgen_str *out);

/** Entry `index`: the URI a tool-schema problem is about (the unsupported dialect, the refused
 *  `$ref`), else empty, into `*out` (required). */
mcpgen_status mcpgen_error_uri(const mcpgen_error *error, size_t index, mcpgen_str *out);

/** Entry `index`: its nesting depth (0 for a top-level error) into `*depth_out` (required), and
 *  the union arm whose attempt produced it (empty at depth 0) into `*arm_out` (optional). */
mcpgen_status mcpgen_error_arm(const mcpgen_error *error, size_t index, size_t *depth_out, mcpgen_str *arm_out);

/** The rule id of the whole failure (`VER-1`, `MSG-1`, …; empty when none) into `*out`
 *  (required). */
mcpgen_status mcpgen_error_protocol_rule(const mcpgen_error *error, mcpgen_str *out);

/** For a refused request or an unsupported version: the JSON-RPC error response to send
 *  (`{"jsonrpc":"2.0","id":…,"error":{…}}`) into `*out` (required); empty otherwise. */
mcpgen_status mcpgen_error_response_json(const mcpgen_error *error, mcpgen_str *out);

/** For a refused request or an unsupported version: the JSON-RPC error code into `*code_out`
 *  (required), and the HTTP status the spec requires on Streamable HTTP into `*http_status_out`
 *  (optional); both 0 otherwise. */
mcpgen_status mcpgen_error_jsonrpc_code(const mcpgen_error *error, int64_t *code_out, uint16_t *http_status_out);

/** True into `*legacy_out` (required) when the refused request was a legacy `initialize` that a
 *  dual-era server would route instead (ERA-8). */
mcpgen_status mcpgen_error_legacy_initialize(const mcpgen_error *error, bool *legacy_out);

/* ---- Tool schemas and tool calls ---------------------------------------------------------- */

/** A new checker with the default options and an empty cache into `*checker_out` (required). */
mcpgen_status mcpgen_tool_checker_new(mcpgen_tool_checker **checker_out);

/** Frees a checker (NULL is a no-op) and its cache. */
void mcpgen_tool_checker_free(mcpgen_tool_checker *checker);

/** Sets cost limit `limit` (a `mcpgen_tool_limit`) to `value`; empties the cache. Not while
 *  another thread uses the checker. `MCPGEN_INVALID_ARGUMENT` for an unknown limit or a value
 *  that does not fit in `size_t`. */
mcpgen_status mcpgen_tool_checker_set_limit(mcpgen_tool_checker *checker, uint32_t limit, uint64_t value);

/** Sets the cost limit named `name` (not NUL-terminated: `name_len` bytes; the names of the
 *  Rust `Limits` and Python's `limits=`: `max_depth`, `max_steps`, …) to `value`; empties the
 *  cache. `MCPGEN_INVALID_ARGUMENT` with `*error_out` (optional) of kind `unknown_limit` or
 *  `limit_too_large` and the core's message. Not while another thread uses the checker. */
mcpgen_status mcpgen_tool_checker_set_limit_by_name(mcpgen_tool_checker *checker, const char *name, size_t name_len,
                                                    uint64_t value, mcpgen_error **error_out);

/** The current value of cost limit `limit` into `*value_out` (required). `checker` may be NULL
 *  (the defaults). */
mcpgen_status mcpgen_tool_checker_get_limit(const mcpgen_tool_checker *checker, uint32_t limit, uint64_t *value_out);

/** Checks `format` as an assertion when `on` (default off: an annotation in 2020-12); empties
 *  the cache. Not while another thread uses the checker. */
mcpgen_status mcpgen_tool_checker_set_validate_formats(mcpgen_tool_checker *checker, bool on);

/** The number of compiled tools in the cache into `*count_out` (required). */
mcpgen_status mcpgen_tool_checker_cached(const mcpgen_tool_checker *checker, size_t *count_out);

/** Opts in to fetching non-local `$ref`s (JSCHEMA-6) through `fetch` (NULL: back to never
 *  fetching), resolving host names with `resolve` (NULL: the system resolver) and passing
 *  `user_data` to both; they must stay valid, and be callable from any thread, until the
 *  checker is freed or reconfigured. Before `fetch` is called the library requires `https:`
 *  (see `mcpgen_tool_checker_set_fetch_options`), checks the host allowlist
 *  (`mcpgen_tool_checker_allow_host`), resolves the name and refuses it when **any** address is
 *  loopback, unspecified, private, shared, link-local, unique-local, multicast or broadcast
 *  (127/8, 10/8, 172.16/12, 192.168/16, 169.254/16, 100.64/10, ::1, fe80::/10, fc00::/7, their
 *  IPv4-mapped forms, …): no connection is attempted for those. Empties the cache and the
 *  fetch log. Not while another thread uses the checker. */
mcpgen_status mcpgen_tool_checker_set_fetcher(mcpgen_tool_checker *checker, mcpgen_fetch_fn fetch,
                                              mcpgen_resolve_fn resolve, void *user_data);

/** Restricts fetching to the hosts added (exact, case-insensitive; the text is copied); without
 *  any, every host with only public addresses may be fetched. Empties the cache and the log. */
mcpgen_status mcpgen_tool_checker_allow_host(mcpgen_tool_checker *checker, const char *host, size_t host_len);

/** Fetch options: also allow plain `http:` (default false), the timeout in milliseconds
 *  (default 5000; 0 is `MCPGEN_INVALID_ARGUMENT`) and the size cap (default 1 MiB). Empties the
 *  cache and the log. */
mcpgen_status mcpgen_tool_checker_set_fetch_options(mcpgen_tool_checker *checker, bool allow_http, uint32_t timeout_ms,
                                                    size_t max_bytes);

/** The URIs fetched so far, in order (the JSCHEMA-6 log), into `*uris_out` (required; free with
 *  `mcpgen_strings_free`); empty when fetching is off. */
mcpgen_status mcpgen_tool_checker_fetched(const mcpgen_tool_checker *checker, mcpgen_strings **uris_out);

/** Inside a `mcpgen_fetch_fn`: appends `len` bytes to the body. Bytes past the request's
 *  `max_bytes` are dropped and `MCPGEN_LIMIT_EXCEEDED` says to stop reading (the `$ref` is then
 *  refused). */
mcpgen_status mcpgen_buffer_append(mcpgen_buffer *buffer, const uint8_t *bytes, size_t len);

/** Inside a `mcpgen_resolve_fn`: adds an address given as text (`203.0.113.7`, `2001:db8::1`,
 *  brackets allowed). `MCPGEN_INVALID_ARGUMENT` for text that is not an IP address. */
mcpgen_status mcpgen_addresses_add(mcpgen_addresses *addresses, const char *ip, size_t ip_len);

/** Checks a `Tool` object (JSON text, `tool_len` bytes) and compiles its schemas into the
 *  checker's cache: dialect (none = 2020-12; draft-07, 2019-09, 2020-12 supported; JSCHEMA-3),
 *  meta-schema (JSCHEMA-4), local `$ref`s only (a network `$ref` is refused without any
 *  connection, naming the URI; JSCHEMA-5), cost limits (JSCHEMA-8), root `type: "object"` for
 *  `inputSchema` (JSCHEMA-9). `MCPGEN_OK`, `MCPGEN_PARSE_ERROR` (text that is not JSON), or
 *  `MCPGEN_TOOL_SCHEMA_INVALID` with every problem of both schemas in `*error_out` (optional;
 *  pointers into the tool); a tool nesting arrays and objects deeper than 128 levels (the
 *  parser's limit) is `too_deep` (JSCHEMA-8), not a parse error. `checker` may be NULL. */
mcpgen_status mcpgen_check_tool(const mcpgen_tool_checker *checker, const uint8_t *tool, size_t tool_len,
                                mcpgen_error **error_out);

/** Checks every tool of a document that is a `Tool`, a `tools/list` result
 *  (`{"tools": [...]}`) or a JSON-RPC response carrying one; a bad tool does not stop the
 *  others. The number of tools into `*tool_count_out` (optional). `MCPGEN_OK`;
 *  `MCPGEN_TOOL_SCHEMA_INVALID` with the problems of all tools in `*error_out` (pointers into
 *  the document: `/tools/3/inputSchema/...`; a tool nested past the parser's limit is
 *  `too_deep`); `MCPGEN_PARSE_ERROR` (kind `parse`) for text that is not JSON; or
 *  `MCPGEN_INVALID` (kind `not_a_tool_document` or `tools_not_an_array`) when the document is
 *  none of these. Compiled schemas are not cached by this call. */
mcpgen_status mcpgen_check_tools(const mcpgen_tool_checker *checker, const uint8_t *json, size_t json_len,
                                 size_t *tool_count_out, mcpgen_error **error_out);

/** Validates `tools/call` arguments (JSON text) against the tool's `inputSchema` (TOOL-5),
 *  compiling the tool once per checker. `arguments` NULL with length 0 means the request had
 *  no `arguments` (validated as `{}`). `MCPGEN_OK`; `MCPGEN_INVALID` with entries pointing
 *  into the arguments (keyword, schema path, rule TOOL-5); `MCPGEN_LIMIT_EXCEEDED` (rule
 *  JSCHEMA-8); `MCPGEN_TOOL_SCHEMA_INVALID` when the tool's schema is unusable;
 *  `MCPGEN_PARSE_ERROR`. Thread-safe on a shared `const` checker. */
mcpgen_status mcpgen_validate_tool_arguments(const mcpgen_tool_checker *checker, const uint8_t *tool, size_t tool_len,
                                             const uint8_t *arguments, size_t arguments_len, mcpgen_error **error_out);

/** Validates a `CallToolResult.structuredContent` (JSON text) against the tool's
 *  `outputSchema` (TOOL-4); a tool without one accepts any value. Statuses as
 *  `mcpgen_validate_tool_arguments` (rule TOOL-4). */
mcpgen_status mcpgen_validate_structured_content(const mcpgen_tool_checker *checker, const uint8_t *tool,
                                                 size_t tool_len, const uint8_t *value, size_t value_len,
                                                 mcpgen_error **error_out);

/* ---- Icons -------------------------------------------------------------------------------- */

/** A new policy with the defaults into `*policy_out` (required). */
mcpgen_status mcpgen_icon_policy_new(mcpgen_icon_policy **policy_out);

/** Frees a policy (NULL is a no-op). */
void mcpgen_icon_policy_free(mcpgen_icon_policy *policy);

/** Turns option `option` (a `mcpgen_icon_option`) on or off. Not while the policy is shared. */
mcpgen_status mcpgen_icon_policy_set(mcpgen_icon_policy *policy, uint32_t option, bool on);

/** Sets the maximum icon size in bytes (ICON-7; default 1 MiB). */
mcpgen_status mcpgen_icon_policy_set_max_bytes(mcpgen_icon_policy *policy, size_t max_bytes);

/** Trusts an origin (`https://cdn.example.com`) besides the server's own (ICON-6, AMB-4); the
 *  text is copied. */
mcpgen_status mcpgen_icon_policy_add_trusted_origin(mcpgen_icon_policy *policy, const char *origin,
                                                    size_t origin_len);

/** Checks an `Icon.src` and its optional `mimeType` (`mime_type` NULL: absent). Only `https:`
 *  (and `http:` when allowed) and `data:` URIs are accepted (ICON-3; `javascript:`, `file:`,
 *  `ftp:`, `ws:` and custom schemes are refused); the MIME type must be allowed (ICON-1); a
 *  `data:` URI is decoded, size-capped (ICON-7) and its bytes must be the declared type
 *  (ICON-8). The image type into `*image_out` (optional): the sniffed type of a `data:` URI,
 *  `MCPGEN_IMAGE_NONE` for a remote icon (fetch it without credentials, then pass the bytes to
 *  `mcpgen_check_icon_bytes`). `MCPGEN_OK` or `MCPGEN_ICON_REFUSED` with `*error_out`
 *  (optional). `policy` may be NULL. */
mcpgen_status mcpgen_check_icon(const mcpgen_icon_policy *policy, const char *src, size_t src_len,
                                const char *mime_type, size_t mime_type_len, uint32_t *image_out,
                                mcpgen_error **error_out);

/** Checks fetched icon bytes: size cap (ICON-7), type by magic number (ICON-8), allowed type
 *  (ICON-1), and the declared `mime_type` (NULL: none) must match what the bytes are (a PNG
 *  labelled as JPEG is refused). The type into `*image_out` (optional). `MCPGEN_OK` or
 *  `MCPGEN_ICON_REFUSED`. */
mcpgen_status mcpgen_check_icon_bytes(const mcpgen_icon_policy *policy, const uint8_t *bytes, size_t bytes_len,
                                      const char *mime_type, size_t mime_type_len, uint32_t *image_out,
                                      mcpgen_error **error_out);

/** ICON-6: a remote icon must come from the server's origin (`server` is the server's URL) or a
 *  trusted origin; `data:` icons always pass. `MCPGEN_OK` or `MCPGEN_ICON_REFUSED` (kind
 *  `cross_origin`). */
mcpgen_status mcpgen_check_icon_origin(const mcpgen_icon_policy *policy, const char *src, size_t src_len,
                                       const char *server, size_t server_len, mcpgen_error **error_out);

/** True into `*same_out` (required) when both URIs have the same scheme, host and port
 *  (default ports and case normalised). */
mcpgen_status mcpgen_icon_same_origin(const char *a, size_t a_len, const char *b, size_t b_len, bool *same_out);

/** The image type of `bytes` by magic number into `*image_out` (required;
 *  `MCPGEN_IMAGE_NONE` when unknown). */
mcpgen_status mcpgen_image_sniff(const uint8_t *bytes, size_t bytes_len, uint32_t *image_out);

/** The canonical MIME type of an image type (`image/png`, …) into `*mime_out` (required; static
 *  storage). `MCPGEN_INVALID_ARGUMENT` for `MCPGEN_IMAGE_NONE` or an unknown value. */
mcpgen_status mcpgen_image_mime(uint32_t image, mcpgen_str *mime_out);

/* ---- Accepted requests -------------------------------------------------------------------- */

/** Frees an accepted request (NULL is a no-op); every string read from it becomes invalid. */
void mcpgen_request_free(mcpgen_request *request);

/** The revision whose types decoded the request into `*revision_out` (required). */
mcpgen_status mcpgen_request_revision(const mcpgen_request *request, mcpgen_revision *revision_out);

/** The method into `*out` (required; valid until the request is freed). */
mcpgen_status mcpgen_request_method(const mcpgen_request *request, mcpgen_str *out);

/** The request id exactly as sent (JSON text: a string with its quotes, or an integer), empty
 *  for a notification, into `*out` (required). */
mcpgen_status mcpgen_request_id_json(const mcpgen_request *request, mcpgen_str *out);

/** True into `*legacy_out` (required) for a legacy `initialize` accepted by a dual-era
 *  configuration: route it to the legacy adapter (ERA-1). */
mcpgen_status mcpgen_request_is_legacy(const mcpgen_request *request, bool *legacy_out);

/** The decoded request re-encoded as compact JSON into `*out` (required). */
mcpgen_status mcpgen_request_json(const mcpgen_request *request, mcpgen_str *out);

/* ---- Checked responses -------------------------------------------------------------------- */

/** Frees a response (NULL is a no-op); every string read from it becomes invalid. */
void mcpgen_response_free(mcpgen_response *response);

/** True into `*is_error_out` (required) when the response is the peer's JSON-RPC error. */
mcpgen_status mcpgen_response_is_error(const mcpgen_response *response, bool *is_error_out);

/** The response id as JSON text (empty when the peer's error had none) into `*out` (required). */
mcpgen_status mcpgen_response_id_json(const mcpgen_response *response, mcpgen_str *out);

/** For a result: the definition it was read as (or `"Raw"`) into `*out` (required); empty for
 *  an error. */
mcpgen_status mcpgen_response_variant(const mcpgen_response *response, mcpgen_str *out);

/** For a result: the decoded result re-encoded as compact JSON into `*out` (required); empty
 *  for an error. */
mcpgen_status mcpgen_response_result_json(const mcpgen_response *response, mcpgen_str *out);

/** For the peer's error: its code into `*code_out` (required; 0 for a result), its message
 *  into `*message_out` (optional) and its `data` as JSON text (empty when absent) into
 *  `*data_json_out` (optional). */
mcpgen_status mcpgen_response_error(const mcpgen_response *response, int64_t *code_out, mcpgen_str *message_out,
                                    mcpgen_str *data_json_out);

/* ---- String lists ------------------------------------------------------------------------- */

/** Frees a string list (NULL is a no-op); every string read from it becomes invalid. */
void mcpgen_strings_free(mcpgen_strings *list);

/** The number of strings into `*count_out` (required). */
mcpgen_status mcpgen_strings_count(const mcpgen_strings *list, size_t *count_out);

/** String `index` into `*out` (required; valid until the list is freed). */
mcpgen_status mcpgen_strings_get(const mcpgen_strings *list, size_t index, mcpgen_str *out);
