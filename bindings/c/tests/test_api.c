/* The C test suite of libmcpgen: the official examples and the project vectors with the same
 * verdicts as the Rust tests, every function's NULL handling, hostile inputs (invalid UTF-8,
 * truncated JSON, 100 MB, deep nesting), the error getters and the protocol functions.
 *
 * Usage: test_api EXAMPLES_DIR VECTORS_DIR
 *   EXAMPLES_DIR = schema/2026-07-28/examples (filled by `cargo xtask schema pull`),
 *   VECTORS_DIR = vectors/
 * Built with gcc -std=c99 -Wall -Wextra -Werror against libmcpgen.a and libmcpgen.so (run.sh).
 * Exit status 0 only when every check passed; each failure is printed with its location. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcpgen.h"
#include "jsonscan.h"
#include "testutil.h"

static const uint32_t REV = MCPGEN_REVISION_2026_07_28;

/* ---- library information ----------------------------------------------------------------- */

static void test_info(void) {
    uint32_t s;
    mcpgen_str name;
    mcpgen_revision rev;
    mcpgen_def_id id;

    CHECK(strcmp(mcpgen_version(), MCPGEN_VERSION_STRING) == 0, "library %s, header %s", mcpgen_version(),
          MCPGEN_VERSION_STRING);
    CHECK(mcpgen_version_number() == MCPGEN_VERSION_NUMBER, "version number %u", (unsigned)mcpgen_version_number());
    for (s = 0; s < 400; s++) CHECK(mcpgen_status_str(s) != NULL && mcpgen_status_name(s) != NULL, "status %u", (unsigned)s);
    CHECK(strcmp(mcpgen_status_name(MCPGEN_INVALID), "MCPGEN_INVALID") == 0, "name of MCPGEN_INVALID");
    CHECK(strcmp(mcpgen_status_name(12345), "MCPGEN_UNKNOWN_STATUS") == 0, "unknown status name");
    CHECK(MCPGEN_STATUS_IS_VERDICT(MCPGEN_INVALID) && MCPGEN_STATUS_IS_REMOTE(MCPGEN_REMOTE_ERROR) &&
              MCPGEN_STATUS_IS_CALL_ERROR(MCPGEN_NULL_ARGUMENT) && MCPGEN_STATUS_IS_INTERNAL(MCPGEN_PANIC) &&
              !MCPGEN_STATUS_IS_VERDICT(MCPGEN_OK),
          "status ranges");

    CHECK_STATUS(mcpgen_revision_parse(S("2026-07-28"), &rev), MCPGEN_OK);
    CHECK(rev == MCPGEN_REVISION_2026_07_28, "parsed revision %d", (int)rev);
    CHECK_STATUS(mcpgen_revision_parse(S("2026-07-28 "), &rev), MCPGEN_UNKNOWN_REVISION);
    CHECK(rev == 0, "revision_out cleared on failure");
    for (s = 1; s <= MCPGEN_REVISION_COUNT; s++) {
        mcpgen_revision back;
        CHECK_STATUS(mcpgen_revision_name(s, &name), MCPGEN_OK);
        CHECK_STATUS(mcpgen_revision_parse(name.ptr, name.len, &back), MCPGEN_OK);
        CHECK(back == s, "revision %u round trip", (unsigned)s);
    }
    CHECK_STATUS(mcpgen_revision_name(MCPGEN_REVISION_LATEST, &name), MCPGEN_OK);
    CHECK(str_is(name, "2026-07-28"), "latest is %s", name.ptr);
    CHECK_STATUS(mcpgen_revision_name(0, &name), MCPGEN_UNKNOWN_REVISION);
    CHECK_STATUS(mcpgen_revision_name(MCPGEN_REVISION_COUNT + 1, &name), MCPGEN_UNKNOWN_REVISION);
    /* The generated extension constants (schema/sources.toml [[extension]]). */
    CHECK(MCPGEN_EXTENSION_COUNT >= 1 && MCPGEN_EXTENSION_TASKS == 1, "extension codes");
    CHECK(strcmp(MCPGEN_EXTENSION_TASKS_ID, "io.modelcontextprotocol/tasks") == 0, "tasks extension id");
    CHECK(MCPGEN_EXTENSION_TASKS_LAYERS_ON == MCPGEN_REVISION_2026_07_28, "tasks layers on 2026-07-28");
    CHECK(strcmp(MCPGEN_METHOD_NOTIFICATIONS_TASKS, "notifications/tasks") == 0, "tasks status notification name");

    CHECK_STATUS(mcpgen_def_lookup(REV, S("CallToolRequest"), &id), MCPGEN_OK);
    CHECK(id == MCPGEN_DEF_2026_07_28_CALL_TOOL_REQUEST, "lookup gives 0x%X", (unsigned)id);
    CHECK_STATUS(mcpgen_def_name(MCPGEN_DEF_2025_11_25_INITIALIZE_REQUEST, &name, &rev), MCPGEN_OK);
    CHECK(str_is(name, "InitializeRequest") && rev == MCPGEN_REVISION_2025_11_25, "def_name");
    CHECK_STATUS(mcpgen_def_lookup(REV, S("InitializeRequest"), &id), MCPGEN_UNKNOWN_DEFINITION);
    CHECK_STATUS(mcpgen_def_name(0x05FFFF, &name, NULL), MCPGEN_UNKNOWN_DEFINITION);
    CHECK_STATUS(mcpgen_def_name(0x050000, &name, NULL), MCPGEN_UNKNOWN_DEFINITION);
    CHECK_STATUS(mcpgen_def_name(0x630001, &name, NULL), MCPGEN_UNKNOWN_DEFINITION);
    {
        mcpgen_method_info info;
        size_t count = 0;
        CHECK_STATUS(mcpgen_method_lookup(REV, S(MCPGEN_METHOD_TOOLS_CALL), &info), MCPGEN_OK);
        CHECK(str_is(info.method, "tools/call") && info.request_def == MCPGEN_DEF_2026_07_28_CALL_TOOL_REQUEST &&
                  info.result_def == MCPGEN_DEF_2026_07_28_CALL_TOOL_RESULT && !info.is_notification &&
                  info.direction == MCPGEN_DIRECTION_CLIENT_TO_SERVER,
              "tools/call row");
        CHECK_STATUS(mcpgen_method_lookup(REV, S(MCPGEN_METHOD_NOTIFICATIONS_CANCELLED), &info), MCPGEN_OK);
        CHECK(info.is_notification && info.result_def == 0, "notifications/cancelled row");
        CHECK_STATUS(mcpgen_method_lookup(REV, S("initialize"), &info), MCPGEN_INVALID_ARGUMENT);
        CHECK(info.method.ptr == NULL && info.request_def == 0, "info cleared");
        CHECK_STATUS(mcpgen_method_lookup(MCPGEN_REVISION_2025_11_25, S("initialize"), &info), MCPGEN_OK);
        CHECK_STATUS(mcpgen_method_count(REV, &count), MCPGEN_OK);
        CHECK_STATUS(mcpgen_method_at(REV, count - 1, &info), MCPGEN_OK);
        CHECK_STATUS(mcpgen_method_at(REV, count, &info), MCPGEN_INDEX_OUT_OF_RANGE);
        CHECK_STATUS(mcpgen_method_count(REV, NULL), MCPGEN_NULL_ARGUMENT);
        CHECK_STATUS(mcpgen_method_at(REV, 0, NULL), MCPGEN_NULL_ARGUMENT);
        CHECK_STATUS(mcpgen_method_lookup(REV, NULL, 0, &info), MCPGEN_NULL_ARGUMENT);
        CHECK_STATUS(mcpgen_method_count(0, &count), MCPGEN_UNKNOWN_REVISION);
    }
    CHECK(strcmp(MCPGEN_METHOD_TOOLS_CALL, "tools/call") == 0 && MCPGEN_ERROR_CODE_PARSE_ERROR == -32700 &&
              MCPGEN_ERROR_CODE_UNSUPPORTED_PROTOCOL_VERSION_ERROR == -32022,
          "generated constants");
}

/* ---- NULL arguments ---------------------------------------------------------------------- */

static void test_null_arguments(void) {
    mcpgen_context *ctx = NULL;
    mcpgen_error *err = (mcpgen_error *)&ctx; /* a non-NULL junk value: must be cleared */
    char *out = (char *)&ctx;
    mcpgen_str str;
    size_t n;
    int64_t code;
    bool flag;
    mcpgen_era era;
    mcpgen_def_id id;
    mcpgen_revision rev;
    mcpgen_status st;
    mcpgen_message_kind kind;
    const char *msg = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}";

    CHECK_STATUS(mcpgen_context_new(NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_context_set_policy(NULL, MCPGEN_POLICY_STRICT), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_context_set_strict_formats(NULL, true), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_context_set_client_leniency(NULL, true), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_context_set_discriminate_results(NULL, true), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_context_set_supported_versions(NULL, NULL, 0), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_context_set_extension_result_types(NULL, NULL, 0), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_context_new(&ctx), MCPGEN_OK);
    CHECK_STATUS(mcpgen_context_set_supported_versions(ctx, NULL, 2), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_context_set_policy(ctx, 7), MCPGEN_INVALID_ARGUMENT);

    CHECK_STATUS(mcpgen_revision_name(REV, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_revision_parse(NULL, 3, &rev), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_revision_parse(S("2026-07-28"), NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_def_lookup(REV, NULL, 0, &id), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_def_lookup(REV, S("Tool"), NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_def_name(MCPGEN_DEF_2026_07_28_TOOL, NULL, NULL), MCPGEN_NULL_ARGUMENT);

    CHECK_STATUS(mcpgen_validate(ctx, REV, NULL, 4, B("{}"), &err), MCPGEN_NULL_ARGUMENT);
    CHECK(err != NULL, "error object for a NULL argument");
    CHECK_STATUS(mcpgen_error_text(err, &str), MCPGEN_OK);
    CHECK(contains(str.ptr, str.len, S("`def` is NULL")), "text: %s", str.ptr);
    mcpgen_error_free(err);
    err = (mcpgen_error *)&ctx;
    CHECK_STATUS(mcpgen_validate(ctx, REV, S("Tool"), NULL, 0, &err), MCPGEN_NULL_ARGUMENT);
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("Tool"), NULL, 5, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_validate_id(ctx, MCPGEN_DEF_2026_07_28_TOOL, NULL, 1, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_validate_message(ctx, REV, NULL, 0, &kind, NULL, NULL, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK(kind == 0, "kind_out cleared");
    CHECK_STATUS(mcpgen_decode(ctx, REV, S("Tool"), B("{}"), NULL, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_decode(ctx, REV, S("Tool"), NULL, 2, &out, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK(out == NULL, "json_out cleared");
    CHECK_STATUS(mcpgen_decode_id(ctx, MCPGEN_DEF_2026_07_28_TOOL, B("{}"), NULL, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_decode_result(ctx, REV, NULL, 0, B("{}"), &out, NULL, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_check_request(ctx, B("{}"), NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_check_request(ctx, NULL, 2, (mcpgen_request **)&out, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_check_response(ctx, REV, S("tools/list"), (const uint8_t *)msg, strlen(msg), NULL, NULL),
                 MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_check_response(ctx, REV, NULL, 0, (const uint8_t *)msg, strlen(msg),
                                       (mcpgen_response **)&out, NULL),
                 MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_negotiate_version(ctx, NULL, 0, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_check_http_headers(NULL, NULL, 1, B("{}"), NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_check_http_headers(NULL, NULL, 0, NULL, 2, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_check_http_headers(NULL, NULL, 0, B("{}"), NULL), MCPGEN_OK);
    CHECK_STATUS(mcpgen_check_meta_key(NULL, 0, NULL, NULL, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_detect_era_from_probe(NULL, 0, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_detect_era_from_probe(NULL, 5, &era, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_detect_era_from_http_400(NULL, 0, &era, NULL), MCPGEN_NULL_ARGUMENT);

    CHECK_STATUS(mcpgen_error_status(NULL, &st), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_text(NULL, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_count(NULL, &n), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_pointer(NULL, 0, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_schema_path(NULL, 0, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_keyword(NULL, 0, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_rule(NULL, 0, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_message(NULL, 0, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_arm(NULL, 0, &n, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_protocol_rule(NULL, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_response_json(NULL, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_jsonrpc_code(NULL, &code, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_error_legacy_initialize(NULL, &flag), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_request_revision(NULL, &rev), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_request_method(NULL, &str), MCPGEN_NULL_ARGUMENT);
    CHECK(str.ptr == NULL && str.len == 0, "str cleared");
    CHECK_STATUS(mcpgen_request_id_json(NULL, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_request_is_legacy(NULL, &flag), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_request_json(NULL, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_response_is_error(NULL, &flag), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_response_id_json(NULL, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_response_variant(NULL, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_response_result_json(NULL, &str), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_response_error(NULL, &code, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_strings_count(NULL, &n), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_strings_get(NULL, 0, &str), MCPGEN_NULL_ARGUMENT);

    /* Every _free accepts NULL. */
    mcpgen_context_free(NULL);
    mcpgen_error_free(NULL);
    mcpgen_request_free(NULL);
    mcpgen_response_free(NULL);
    mcpgen_strings_free(NULL);
    mcpgen_string_free(NULL);
    mcpgen_context_free(ctx);
}

/* ---- hostile input ----------------------------------------------------------------------- */

static const char CALL_HEAD[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{"
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"t\",\"arguments\":{\"a\":";
static const char CALL_TAIL[] = "}}}";

/* A tools/call request whose argument `a` is `depth` nested arrays around 0. */
static char *nested_call(size_t depth, size_t *len) {
    size_t head = sizeof CALL_HEAD - 1, tail = sizeof CALL_TAIL - 1, i;
    char *buf = (char *)malloc(head + 2 * depth + 1 + tail + 1);
    char *p = buf;
    memcpy(p, CALL_HEAD, head);
    p += head;
    for (i = 0; i < depth; i++) *p++ = '[';
    *p++ = '0';
    for (i = 0; i < depth; i++) *p++ = ']';
    memcpy(p, CALL_TAIL, tail);
    p += tail;
    *p = 0;
    *len = (size_t)(p - buf);
    return buf;
}

static void test_hostile_input(void) {
    mcpgen_error *err = NULL;
    mcpgen_request *req = NULL;
    char *out = NULL;
    size_t len, n, big_len, i;
    char *buf;
    mcpgen_str str;

    /* Invalid UTF-8 in the JSON: a verdict. In a name argument: a call error. */
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("TextContent"), B("{\"type\":\"text\",\"text\":\"\xff\xfe\"}"), &err),
                 MCPGEN_PARSE_ERROR);
    CHECK_STATUS(mcpgen_error_count(err, &n), MCPGEN_OK);
    CHECK(n == 1, "a parse error is one entry, got %zu", n);
    CHECK_STATUS(mcpgen_error_message(err, 0, &str), MCPGEN_OK);
    CHECK(str.len > 0, "parse error message");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("Text\xff"), B("{}"), NULL), MCPGEN_ARGUMENT_NOT_UTF8);
    CHECK_STATUS(mcpgen_check_meta_key(S("com.example/\xc3"), NULL, NULL, NULL, NULL), MCPGEN_ARGUMENT_NOT_UTF8);

    /* Truncated JSON, empty input, a NUL byte inside. */
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("TextContent"), B("{\"type\":\"text\",\"te"), NULL), MCPGEN_PARSE_ERROR);
    CHECK_STATUS(mcpgen_decode(NULL, REV, S("TextContent"), B(""), &out, NULL, NULL), MCPGEN_PARSE_ERROR);
    CHECK(out == NULL, "no output on failure");
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("TextContent"), B("{\"type\":\"text\",\"text\":\"a\"}\0"), NULL),
                 MCPGEN_PARSE_ERROR);
    /* Not NUL-terminated: only `len` bytes are read (the rest is garbage). */
    {
        static const char text[] = "{\"type\":\"text\",\"text\":\"a\"}GARBAGE";
        CHECK_STATUS(mcpgen_validate(NULL, REV, "TextContentGARBAGE", 11, (const uint8_t *)text, sizeof text - 1 - 7, NULL),
                     MCPGEN_OK);
    }
    CHECK_STATUS(mcpgen_check_request(NULL, B("{\"jsonrpc\":"), &req, &err), MCPGEN_REQUEST_REFUSED);
    CHECK(req == NULL, "no request on refusal");
    mcpgen_error_free(err);

    /* Deep nesting: 120 levels inside arguments is fine; 200 is refused by the parser; a
     * million opening brackets are too, without exhausting the stack. */
    buf = nested_call(120, &len);
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("CallToolRequest"), (const uint8_t *)buf, len, NULL), MCPGEN_OK);
    CHECK_STATUS(mcpgen_decode(NULL, REV, S("CallToolRequest"), (const uint8_t *)buf, len, &out, NULL, NULL), MCPGEN_OK);
    mcpgen_string_free(out);
    free(buf);
    buf = nested_call(200, &len);
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("CallToolRequest"), (const uint8_t *)buf, len, &err), MCPGEN_PARSE_ERROR);
    CHECK_STATUS(mcpgen_error_text(err, &str), MCPGEN_OK);
    CHECK(contains(str.ptr, str.len, S("nesting")), "deep nesting message: %s", str.ptr);
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_validate_message(NULL, REV, (const uint8_t *)buf, len, NULL, NULL, NULL, NULL, NULL),
                 MCPGEN_PARSE_ERROR);
    free(buf);
    big_len = 1000000;
    buf = (char *)malloc(big_len);
    memset(buf, '[', big_len);
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("JSONValue"), (const uint8_t *)buf, big_len, NULL), MCPGEN_PARSE_ERROR);
    CHECK_STATUS(mcpgen_check_request(NULL, (const uint8_t *)buf, big_len, &req, NULL), MCPGEN_REQUEST_REFUSED);
    free(buf);

    /* 100 MB: a tools/call whose argument is one 100 MB string: valid; then cut in half (each
     * pass costs about a second in a debug build, thirty under valgrind, so only two). */
    big_len = 100u * 1024u * 1024u;
    buf = (char *)malloc(big_len);
    CHECK(buf != NULL, "100 MB buffer");
    if (buf) {
        size_t head = sizeof CALL_HEAD - 1, tail = sizeof CALL_TAIL - 1;
        memcpy(buf, CALL_HEAD, head);
        buf[head] = '"';
        for (i = head + 1; i < big_len - tail - 1; i++) buf[i] = (char)('a' + i % 26);
        buf[big_len - tail - 1] = '"';
        memcpy(buf + big_len - tail, CALL_TAIL, tail);
        CHECK_STATUS(mcpgen_validate(NULL, REV, S("CallToolRequest"), (const uint8_t *)buf, big_len, NULL), MCPGEN_OK);
        CHECK_STATUS(mcpgen_validate(NULL, REV, S("CallToolRequest"), (const uint8_t *)buf, big_len / 2, &err),
                     MCPGEN_PARSE_ERROR);
        CHECK_STATUS(mcpgen_error_text(err, &str), MCPGEN_OK);
        CHECK(str.len > 0 && str.len < 1000, "a short message for a huge input (%zu bytes)", str.len);
        mcpgen_error_free(err);
        free(buf);
    }
}

/* ---- error objects ----------------------------------------------------------------------- */

static void test_error_object(void) {
    static const char bad[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{"
                              "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                              "\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":5}}";
    mcpgen_error *err = NULL;
    mcpgen_status st;
    mcpgen_str str, arm;
    size_t n, i, depth;
    int found = 0;
    int64_t code;
    uint16_t http;
    bool legacy;

    CHECK_STATUS(mcpgen_validate(NULL, REV, S("CallToolRequest"), B(bad), NULL), MCPGEN_INVALID);
    CHECK_STATUS(mcpgen_validate_id(NULL, MCPGEN_DEF_2026_07_28_CALL_TOOL_REQUEST, B(bad), &err), MCPGEN_INVALID);
    CHECK(err != NULL, "error object");
    CHECK_STATUS(mcpgen_error_status(err, &st), MCPGEN_OK);
    CHECK(st == MCPGEN_INVALID, "error status");
    CHECK_STATUS(mcpgen_error_count(err, &n), MCPGEN_OK);
    CHECK(n >= 1, "entries: %zu", n);
    for (i = 0; i < n; i++) {
        mcpgen_str ptr, sp, kw, rule, msg;
        CHECK_STATUS(mcpgen_error_pointer(err, i, &ptr), MCPGEN_OK);
        CHECK_STATUS(mcpgen_error_schema_path(err, i, &sp), MCPGEN_OK);
        CHECK_STATUS(mcpgen_error_keyword(err, i, &kw), MCPGEN_OK);
        CHECK_STATUS(mcpgen_error_rule(err, i, &rule), MCPGEN_OK);
        CHECK_STATUS(mcpgen_error_message(err, i, &msg), MCPGEN_OK);
        CHECK_STATUS(mcpgen_error_arm(err, i, &depth, &arm), MCPGEN_OK);
        CHECK(ptr.ptr && sp.ptr && kw.ptr && rule.ptr && msg.ptr && arm.ptr && msg.len > 0, "entry %zu fields", i);
        CHECK((depth == 0) == (arm.len == 0), "entry %zu: depth %zu, arm %s", i, depth, arm.ptr);
        if (str_is(ptr, "/params/name") && str_is(kw, "type")) {
            found = 1;
            CHECK(contains(sp.ptr, sp.len, S("CallToolRequest")), "schema path %s", sp.ptr);
        }
    }
    CHECK(found, "an entry at /params/name with keyword type");
    CHECK_STATUS(mcpgen_error_pointer(err, n, &str), MCPGEN_INDEX_OUT_OF_RANGE);
    CHECK_STATUS(mcpgen_error_arm(err, n, &depth, NULL), MCPGEN_INDEX_OUT_OF_RANGE);
    CHECK_STATUS(mcpgen_error_text(err, &str), MCPGEN_OK);
    CHECK(contains(str.ptr, str.len, S("/params/name")), "text: %s", str.ptr);
    CHECK_STATUS(mcpgen_error_jsonrpc_code(err, &code, &http), MCPGEN_OK);
    CHECK(code == 0 && http == 0, "no JSON-RPC code for a validation failure");
    CHECK_STATUS(mcpgen_error_response_json(err, &str), MCPGEN_OK);
    CHECK(str.len == 0 && str.ptr && str.ptr[0] == 0, "no response for a validation failure");
    CHECK_STATUS(mcpgen_error_legacy_initialize(err, &legacy), MCPGEN_OK);
    CHECK(!legacy, "legacy flag");
    CHECK_STATUS(mcpgen_error_count(err, NULL), MCPGEN_NULL_ARGUMENT);
    mcpgen_error_free(err);

    /* Union arms: a message that is none of the envelopes says why each arm failed. */
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("JSONRPCMessage"), B("{\"jsonrpc\":\"2.0\",\"id\":1}"), &err), MCPGEN_INVALID);
    CHECK_STATUS(mcpgen_error_count(err, &n), MCPGEN_OK);
    CHECK_STATUS(mcpgen_error_keyword(err, 0, &str), MCPGEN_OK);
    CHECK(n > 1 && str_is(str, "anyOf"), "%zu entries, first keyword %s", n, str.ptr);
    found = 0;
    for (i = 0; i < n; i++) {
        mcpgen_str kw;
        CHECK_STATUS(mcpgen_error_arm(err, i, &depth, &arm), MCPGEN_OK);
        CHECK_STATUS(mcpgen_error_keyword(err, i, &kw), MCPGEN_OK);
        if (depth == 1 && str_is(arm, "JSONRPCRequest") && str_is(kw, "required")) found = 1;
    }
    CHECK(found, "an arm entry: JSONRPCRequest misses a required property");
    mcpgen_error_free(err);

    /* Unknown revision and definition: call errors with a message. */
    CHECK_STATUS(mcpgen_validate(NULL, 99, S("Tool"), B("{}"), &err), MCPGEN_UNKNOWN_REVISION);
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("NoSuchDef"), B("{}"), &err), MCPGEN_UNKNOWN_DEFINITION);
    CHECK_STATUS(mcpgen_error_text(err, &str), MCPGEN_OK);
    CHECK(contains(str.ptr, str.len, S("NoSuchDef")), "text: %s", str.ptr);
    CHECK_STATUS(mcpgen_error_count(err, &n), MCPGEN_OK);
    CHECK(n == 0, "no entries for a call error");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("NoSuchDef"), B("{}"), NULL), MCPGEN_UNKNOWN_DEFINITION);
    CHECK_STATUS(mcpgen_validate_id(NULL, 0x05FFFF, B("{}"), NULL), MCPGEN_UNKNOWN_DEFINITION);
}

/* ---- policies and decoding --------------------------------------------------------------- */

static void test_decode_policies(void) {
    static const char text[] = "{\"type\":\"text\",\"text\":\"hi\",\"x\":1.50}";
    mcpgen_context *strict = NULL, *lenient = NULL;
    char *out = NULL;
    size_t len = 0;
    mcpgen_str variant;

    CHECK_STATUS(mcpgen_decode(NULL, REV, S("TextContent"), B(text), &out, &len, NULL), MCPGEN_OK);
    CHECK(out && strlen(out) == len && contains(out, len, S("\"x\":1.50")), "lossless keeps x: %s", out);
    mcpgen_string_free(out);
    CHECK_STATUS(mcpgen_context_new(&strict), MCPGEN_OK);
    CHECK_STATUS(mcpgen_context_set_policy(strict, MCPGEN_POLICY_STRICT), MCPGEN_OK);
    CHECK_STATUS(mcpgen_context_new(&lenient), MCPGEN_OK);
    CHECK_STATUS(mcpgen_context_set_policy(lenient, MCPGEN_POLICY_LENIENT), MCPGEN_OK);
    CHECK_STATUS(mcpgen_decode(strict, REV, S("TextContent"), B(text), &out, NULL, NULL), MCPGEN_INVALID);
    CHECK_STATUS(mcpgen_validate(strict, REV, S("TextContent"), B(text), NULL), MCPGEN_INVALID);
    CHECK_STATUS(mcpgen_decode_id(lenient, MCPGEN_DEF_2026_07_28_TEXT_CONTENT, B(text), &out, &len, NULL), MCPGEN_OK);
    CHECK(out && !contains(out, len, S("\"x\"")), "lenient drops x: %s", out);
    mcpgen_string_free(out);

    CHECK_STATUS(mcpgen_decode_result(NULL, REV, S("tools/call"), B("{\"resultType\":\"complete\",\"content\":[]}"), &out,
                                      &len, &variant, NULL),
                 MCPGEN_OK);
    CHECK(str_is(variant, "CallToolResult"), "variant %s", variant.ptr);
    mcpgen_string_free(out);
    /* A result for a method the revision does not have is refused (MSG-9), never kept raw. */
    out = NULL;
    CHECK_STATUS(mcpgen_decode_result(NULL, REV, S("x/unknown"), B("{\"a\":1}"), &out, &len, &variant, NULL),
                 MCPGEN_PROTOCOL_VIOLATION);
    CHECK(out == NULL, "no output for a refused result");
    mcpgen_context_free(strict);
    mcpgen_context_free(lenient);
}

/* ---- official examples ------------------------------------------------------------------- */

/* The official examples expected to fail a check ("decode" or "protocol"): the lists of
 * vectors/official-examples.json, which every surface reads. A listed example must fail. */
static char *official_examples_text;
static size_t official_examples_len;

static js_span expected_failures(const char *vectors, const char *check) {
    js_span file, failures, list = {NULL, 0};
    if (!official_examples_text) {
        char path[2048];
        snprintf(path, sizeof path, "%s/official-examples.json", vectors);
        official_examples_text = read_file(path, &official_examples_len);
        CHECK(official_examples_text != NULL, "cannot read %s", path);
        if (!official_examples_text) return list;
    }
    file = js_value((js_span){official_examples_text, official_examples_len});
    CHECK(js_get(file, "expected_failures", &failures) && js_get(failures, check, &list) && js_kind(list) == '[',
          "official-examples.json: no list expected_failures.%s", check);
    return list;
}

/* Whether `def`/`file` (`file` ends in .json) is in `list`. */
static int expected_failure(js_span list, const char *def, const char *file) {
    const char *cur = NULL;
    js_span k, entry, example;
    char key[512];
    size_t n = strlen(file);
    snprintf(key, sizeof key, "%s/%.*s", def, (int)(n > 5 ? n - 5 : n), file);
    if (!list.p) return 0;
    while (js_next(list, &cur, &k, &entry)) {
        size_t len;
        char *name = js_get(entry, "example", &example) ? js_string(example, &len) : NULL;
        int hit = name && strcmp(name, key) == 0;
        CHECK(name != NULL, "official-examples.json: an entry without a string `example`");
        free(name);
        if (hit) return 1;
    }
    return 0;
}

/* Decode lossless and compare; decode lenient; validate by id with decoding's options. */
static int run_example(mcpgen_context *lenient, mcpgen_context *decoding, const char *def, const char *bytes, size_t len,
                       char *why, size_t why_len) {
    mcpgen_error *err = NULL;
    mcpgen_def_id id;
    mcpgen_str text;
    char *out = NULL;
    size_t out_len = 0;
    mcpgen_status st = mcpgen_decode(NULL, REV, def, strlen(def), (const uint8_t *)bytes, len, &out, &out_len, &err);
    if (st != MCPGEN_OK) {
        mcpgen_error_text(err, &text);
        snprintf(why, why_len, "decode: %s: %s", mcpgen_status_name(st), text.ptr ? text.ptr : "");
        mcpgen_error_free(err);
        st = mcpgen_def_lookup(REV, def, strlen(def), &id);
        if (st == MCPGEN_OK && mcpgen_validate_id(decoding, id, (const uint8_t *)bytes, len, NULL) == MCPGEN_OK)
            snprintf(why, why_len, "validate_id accepts what decode rejects");
        return 0;
    }
    {
        js_span a = js_value((js_span){bytes, len}), b = js_value((js_span){out, out_len});
        int eq = js_equal(a, b);
        if (!eq) snprintf(why, why_len, "re-encoded JSON differs: %s", out);
        mcpgen_string_free(out);
        if (!eq) return 0;
    }
    st = mcpgen_decode(lenient, REV, def, strlen(def), (const uint8_t *)bytes, len, &out, NULL, NULL);
    mcpgen_string_free(out);
    if (st != MCPGEN_OK) {
        snprintf(why, why_len, "lenient decode: %s", mcpgen_status_name(st));
        return 0;
    }
    if (mcpgen_def_lookup(REV, def, strlen(def), &id) != MCPGEN_OK ||
        mcpgen_validate_id(decoding, id, (const uint8_t *)bytes, len, NULL) != MCPGEN_OK) {
        snprintf(why, why_len, "validate_id rejects what decode accepts");
        return 0;
    }
    return 1;
}

static void test_examples(const char *dir, const char *vectors) {
    size_t ndefs, nfiles, i, j, total = 0, expected = 0;
    js_span xfail_list = expected_failures(vectors, "decode");
    char **defs = list_dir(dir, NULL, &ndefs);
    mcpgen_context *lenient = NULL, *decoding = NULL;
    mcpgen_context_new(&lenient);
    mcpgen_context_set_policy(lenient, MCPGEN_POLICY_LENIENT);
    mcpgen_context_new(&decoding);
    mcpgen_context_set_discriminate_results(decoding, true);
    CHECK(ndefs > 0, "no example folders in %s", dir);
    for (i = 0; i < ndefs; i++) {
        char sub[1024];
        char **files;
        snprintf(sub, sizeof sub, "%s/%s", dir, defs[i]);
        files = list_dir(sub, ".json", &nfiles);
        for (j = 0; j < nfiles; j++) {
            char path[2048], why[4096] = "";
            size_t len;
            char *bytes;
            int ok, xfail = expected_failure(xfail_list, defs[i], files[j]);
            snprintf(path, sizeof path, "%s/%s", sub, files[j]);
            bytes = read_file(path, &len);
            CHECK(bytes != NULL, "cannot read %s", path);
            if (!bytes) continue;
            ok = run_example(lenient, decoding, defs[i], bytes, len, why, sizeof why);
            if (xfail) {
                expected++;
                CHECK(!ok, "example %s is listed as an expected failure but passes: remove it", path);
            } else {
                CHECK(ok, "example %s: %s", path, why);
            }
            total++;
            free(bytes);
        }
        free_list(files, nfiles);
    }
    free_list(defs, ndefs);
    mcpgen_context_free(lenient);
    mcpgen_context_free(decoding);
    CHECK(total >= 100, "only %zu official examples found in %s", total, dir);
    printf("official examples: %zu run (%zu expected failures)\n", total, expected);
}

/* ---- project vectors (vectors/decode) ---------------------------------------------------- */

/* The failure kind names of vectors/README.md. */
static const char *error_kind(mcpgen_status st) {
    switch (st) {
    case MCPGEN_PARSE_ERROR: return "parse";
    case MCPGEN_INVALID: return "invalid";
    case MCPGEN_PROTOCOL_VIOLATION: return "protocol";
    case MCPGEN_UNKNOWN_DEFINITION: return "unknown_definition";
    case MCPGEN_INTERNAL: return "internal";
    default: return mcpgen_status_name(st);
    }
}

/* Does some entry's field equal `want` (the Rust runner's rule: an error with no entries
 * matches the empty string)? */
static int any_entry(const mcpgen_error *err, mcpgen_status (*get)(const mcpgen_error *, size_t, mcpgen_str *),
                     const char *want, size_t want_len) {
    size_t n = 0, i;
    mcpgen_str s;
    mcpgen_error_count(err, &n);
    if (n == 0) return want_len == 0;
    for (i = 0; i < n; i++)
        if (get(err, i, &s) == MCPGEN_OK && s.len == want_len && memcmp(s.ptr, want, want_len) == 0) return 1;
    return 0;
}

/* `expect.pointer` / `keyword` / `rule` (vectors/README.md): some entry of `err` carries each
 * one given. Returns 0 with the reason in `why` when one does not. */
static int expected_entries(const mcpgen_error *err, mcpgen_status st, js_span expect, char *why, size_t why_len) {
    static const struct {
        const char *field;
        mcpgen_status (*get)(const mcpgen_error *, size_t, mcpgen_str *);
    } fields[] = {{"pointer", mcpgen_error_pointer}, {"keyword", mcpgen_error_keyword}, {"rule", mcpgen_error_rule}};
    size_t f, slen;
    js_span want;
    char *s;
    mcpgen_str t = {"", 0};
    mcpgen_error_text(err, &t);
    for (f = 0; f < sizeof fields / sizeof *fields; f++) {
        if (!js_get(expect, fields[f].field, &want)) continue;
        s = js_string(want, &slen);
        if (!s || !any_entry(err, fields[f].get, s, slen)) {
            free(s);
            snprintf(why, why_len, "expected %s %.*s, got %s:\n%s", fields[f].field, (int)want.n, want.p,
                     mcpgen_status_name(st), t.ptr);
            return 0;
        }
        free(s);
    }
    return 1;
}

/* Does entry `i`'s field equal the pattern's member `field` (absent: yes; null: empty)? */
static int entry_field_is(const mcpgen_error *err, size_t i, mcpgen_status (*get)(const mcpgen_error *, size_t, mcpgen_str *),
                          js_span pattern, const char *field) {
    js_span want;
    mcpgen_str got;
    size_t len;
    char *w;
    int eq;
    if (!js_get(pattern, field, &want)) return 1;
    if (get(err, i, &got) != MCPGEN_OK) return 0;
    if (js_kind(want) == 'n') return got.len == 0;
    w = js_string(want, &len);
    eq = w && got.len == len && memcmp(got.ptr, w, len) == 0;
    free(w);
    return eq;
}

/* An `expect.errors` pattern `{pointer?, keyword?, rule?, message?}` holds for entry `i` whole. */
static int entry_matches(const mcpgen_error *err, size_t i, js_span pattern) {
    return entry_field_is(err, i, mcpgen_error_pointer, pattern, "pointer") &&
           entry_field_is(err, i, mcpgen_error_keyword, pattern, "keyword") &&
           entry_field_is(err, i, mcpgen_error_rule, pattern, "rule") &&
           entry_field_is(err, i, mcpgen_error_message, pattern, "message");
}

/* `expect.skipped` (vectors/README.md): exactly these items in order; each listed error
 * `{pointer?, keyword?}` matches one entry of the item's errors. Returns 1 when it holds. */
static int skipped_match(js_span want, const mcpgen_skipped *skipped, char *why, size_t why_len) {
    size_t n = 0, i = 0, j, count;
    const char *cur = NULL;
    js_span k, item;
    mcpgen_skipped_count(skipped, &n);
    while (js_next(want, &cur, &k, &item)) {
        js_span p, errors, e;
        const char *ecur = NULL;
        mcpgen_str got = {"", 0};
        const mcpgen_error *err = NULL;
        char *ptr;
        size_t plen;
        if (i >= n) {
            snprintf(why, why_len, "expected more than %zu skipped items", n);
            return 0;
        }
        if (!js_get(item, "pointer", &p) || !(ptr = js_string(p, &plen))) {
            snprintf(why, why_len, "expect.skipped entries need `pointer`");
            return 0;
        }
        mcpgen_skipped_pointer(skipped, i, &got, NULL);
        if (got.len != plen || memcmp(got.ptr, ptr, plen) != 0) {
            snprintf(why, why_len, "skipped item %zu is %s, expected %s", i, got.ptr, ptr);
            free(ptr);
            return 0;
        }
        free(ptr);
        if (mcpgen_skipped_errors(skipped, i, &err) != MCPGEN_OK || !err) {
            snprintf(why, why_len, "no errors for skipped item %zu", i);
            return 0;
        }
        mcpgen_error_count(err, &count);
        if (js_get(item, "errors", &errors)) {
            while (js_next(errors, &ecur, &k, &e)) {
                js_span wp, wk;
                int has_p = js_get(e, "pointer", &wp), has_k = js_get(e, "keyword", &wk), found = 0;
                char *sp = has_p ? js_string(wp, NULL) : NULL, *sk = has_k ? js_string(wk, NULL) : NULL;
                for (j = 0; j < count && !found; j++) {
                    mcpgen_str ep = {"", 0}, ek = {"", 0};
                    mcpgen_error_pointer(err, j, &ep);
                    mcpgen_error_keyword(err, j, &ek);
                    found = (!sp || str_is(ep, sp)) && (!sk || str_is(ek, sk));
                }
                free(sp);
                free(sk);
                if (!found) {
                    mcpgen_str t = {"", 0};
                    mcpgen_error_text(err, &t);
                    snprintf(why, why_len, "skipped item %zu: no error matches %.*s; got %s", i, (int)e.n, e.p, t.ptr);
                    return 0;
                }
            }
        }
        i++;
    }
    if (i != n) {
        snprintf(why, why_len, "expected %zu skipped items, got %zu", i, n);
        return 0;
    }
    return 1;
}

static int run_vector(mcpgen_context *const *by_policy, const char *text, size_t text_len, char *why, size_t why_len) {
    js_span root = js_value((js_span){text, text_len}), v, decode, expect, want;
    char *rev_name = NULL, *policy = NULL, *input = NULL, *def = NULL, *method = NULL, *out = NULL, *s;
    size_t input_len = 0, out_len = 0, slen;
    const char *input_ptr = NULL;
    mcpgen_revision rev;
    mcpgen_context *ctx = by_policy[0];
    mcpgen_error *err = NULL;
    mcpgen_skipped *skipped = NULL;
    mcpgen_str variant = {"", 0};
    mcpgen_status st;
    int ok = 0, want_ok, skip_mode = 0;

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        snprintf(why, why_len, __VA_ARGS__);                                                                           \
        goto done;                                                                                                     \
    } while (0)

    if (!js_get(root, "revision", &v) || !(rev_name = js_string(v, NULL))) FAIL("vector lacks `revision`");
    if (mcpgen_revision_parse(rev_name, strlen(rev_name), &rev) != MCPGEN_OK) FAIL("revision %s not in this build", rev_name);
    if (js_get(root, "policy", &v)) {
        policy = js_string(v, NULL);
        if (!policy) FAIL("policy must be a string");
        if (!strcmp(policy, "lossless")) ctx = by_policy[MCPGEN_POLICY_LOSSLESS];
        else if (!strcmp(policy, "lenient")) ctx = by_policy[MCPGEN_POLICY_LENIENT];
        else if (!strcmp(policy, "strict")) ctx = by_policy[MCPGEN_POLICY_STRICT];
        else FAIL("unknown policy %s", policy);
    }
    if (js_get(root, "input", &v)) {
        input_ptr = v.p;
        input_len = v.n;
    } else if (js_get(root, "input_text", &v) && (input = js_string(v, &input_len)) != NULL) {
        input_ptr = input;
    } else {
        FAIL("vector needs `input` or `input_text`");
    }
    if (!js_get(root, "decode", &decode) || !js_get(root, "expect", &expect)) FAIL("vector needs `decode` and `expect`");
    if (js_get(decode, "def", &v) && (def = js_string(v, NULL)) != NULL) {
        st = mcpgen_decode(ctx, rev, def, strlen(def), (const uint8_t *)input_ptr, input_len, &out, &out_len, &err);
        variant.ptr = def;
        variant.len = strlen(def);
    } else if (js_get(decode, "result_for_method", &v) && (method = js_string(v, NULL)) != NULL) {
        skip_mode = js_get(decode, "skip_invalid_items", &v) && js_kind(v) == 't';
        if (skip_mode)
            st = mcpgen_decode_result_skipping_invalid_items(ctx, rev, method, strlen(method), (const uint8_t *)input_ptr,
                                                             input_len, &out, &out_len, &variant, &skipped, &err);
        else
            st = mcpgen_decode_result(ctx, rev, method, strlen(method), (const uint8_t *)input_ptr, input_len, &out,
                                      &out_len, &variant, &err);
    } else {
        FAIL("decode needs `def` or `result_for_method`");
    }
    if (!js_get(expect, "ok", &v) || (js_kind(v) != 't' && js_kind(v) != 'f')) FAIL("expect.ok must be a boolean");
    want_ok = js_kind(v) == 't';

    if (st == MCPGEN_OK && want_ok) {
        if (js_get(expect, "variant", &want)) {
            s = js_string(want, &slen);
            if (!s || slen != variant.len || memcmp(s, variant.ptr, slen) != 0) {
                free(s);
                FAIL("decoded as %s, expected %.*s", variant.ptr, (int)want.n, want.p);
            }
            free(s);
        }
        if (js_get(expect, "output", &want) && !js_equal(js_value((js_span){out, out_len}), want))
            FAIL("output differs\n   got: %s\nwanted: %.*s", out, (int)want.n, want.p);
        if (js_get(expect, "output_contains", &want)) {
            const char *cur = NULL;
            js_span k, item;
            while (js_next(want, &cur, &k, &item)) {
                s = js_string(item, &slen);
                if (!s || !contains(out, out_len, s, slen)) {
                    free(s);
                    FAIL("output lacks %.*s: %s", (int)item.n, item.p, out);
                }
                free(s);
            }
        }
        if (js_get(expect, "output_lacks", &want)) {
            const char *cur = NULL;
            js_span k, item;
            while (js_next(want, &cur, &k, &item)) {
                s = js_string(item, &slen);
                if (!s || contains(out, out_len, s, slen)) {
                    free(s);
                    FAIL("output should not contain %.*s: %s", (int)item.n, item.p, out);
                }
                free(s);
            }
        }
        if (js_get(expect, "skipped", &want)) {
            if (!skip_mode) FAIL("`expect.skipped` needs `decode.skip_invalid_items`");
            if (!skipped_match(want, skipped, why, why_len)) goto done;
        } else if (skip_mode) {
            FAIL("a skip_invalid_items vector needs `expect.skipped`");
        }
        ok = 1;
    } else if (st == MCPGEN_OK) {
        FAIL("expected a failure, but it decoded as %s: %s", variant.ptr, out);
    } else if (want_ok) {
        mcpgen_str t = {"", 0};
        mcpgen_error_text(err, &t);
        FAIL("expected success, got %s:\n%s", mcpgen_status_name(st), t.ptr);
    } else {
        mcpgen_str t = {"", 0};
        mcpgen_error_text(err, &t);
        if (!expected_entries(err, st, expect, why, why_len)) goto done;
        if (js_get(expect, "errors", &want)) {
            const char *cur = NULL;
            js_span k, pattern;
            size_t count = 0, i;
            mcpgen_error_count(err, &count);
            while (js_next(want, &cur, &k, &pattern)) {
                int found = 0;
                for (i = 0; i < count && !found; i++) found = entry_matches(err, i, pattern);
                if (!found) FAIL("no error matches %.*s; got %s:\n%s", (int)pattern.n, pattern.p, mcpgen_status_name(st), t.ptr);
            }
        }
        if (js_get(expect, "error", &want)) {
            s = js_string(want, NULL);
            if (!s || strcmp(s, error_kind(st)) != 0) {
                free(s);
                FAIL("expected a %.*s error, got %s: %s", (int)want.n, want.p, error_kind(st), t.ptr);
            }
            free(s);
        }
        ok = 1;
    }
done:
#undef FAIL
    mcpgen_error_free(err);
    mcpgen_skipped_free(skipped);
    mcpgen_string_free(out);
    free(rev_name);
    free(policy);
    free(input);
    free(def);
    free(method);
    return ok;
}

static int run_decode_vector(void *by_policy, js_span root, char *why, size_t why_len) {
    return run_vector((mcpgen_context *const *)by_policy, root.p, root.n, why, why_len);
}

/* mcpgen_decode_result_skipping_invalid_items and the mcpgen_skipped getters: results, NULL
 * arguments, bad input, out-of-range indexes. */
static void test_skip_invalid_items(void) {
    static const char list[] = "{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"public\",\"tools\":["
                               "{\"name\":\"ok\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"broken\"}]}";
    char *out = NULL;
    size_t out_len = 0, n = 0, index = 99, count = 0;
    mcpgen_str variant, ptr;
    mcpgen_skipped *skipped = NULL;
    const mcpgen_error *item_err = NULL;
    mcpgen_error *err = NULL;
    mcpgen_status st;

    CHECK_STATUS(mcpgen_decode_result(NULL, REV, S("tools/list"), (const uint8_t *)list, sizeof list - 1, &out, NULL, NULL,
                                      &err),
                 MCPGEN_INVALID);
    mcpgen_error_free(err);
    err = NULL;
    CHECK_STATUS(mcpgen_decode_result_skipping_invalid_items(NULL, REV, S("tools/list"), (const uint8_t *)list,
                                                             sizeof list - 1, &out, &out_len, &variant, &skipped, &err),
                 MCPGEN_OK);
    CHECK(out && strstr(out, "\"ok\"") && !strstr(out, "broken"), "thinned result %s", out ? out : "(null)");
    CHECK(str_is(variant, "ListToolsResult"), "variant %s", variant.ptr);
    CHECK_STATUS(mcpgen_skipped_count(skipped, &n), MCPGEN_OK);
    CHECK(n == 1, "%zu skipped", n);
    CHECK_STATUS(mcpgen_skipped_pointer(skipped, 0, &ptr, &index), MCPGEN_OK);
    CHECK(str_is(ptr, "/tools/1") && index == 1, "skipped %s at %zu", ptr.ptr, index);
    CHECK_STATUS(mcpgen_skipped_errors(skipped, 0, &item_err), MCPGEN_OK);
    CHECK_STATUS(mcpgen_error_count(item_err, &count), MCPGEN_OK);
    CHECK(count >= 1, "%zu errors", count);
    CHECK_STATUS(mcpgen_error_status(item_err, &st), MCPGEN_OK);
    CHECK(st == MCPGEN_INVALID, "item error status %d", (int)st);
    CHECK_STATUS(mcpgen_skipped_pointer(skipped, 1, &ptr, NULL), MCPGEN_INDEX_OUT_OF_RANGE);
    CHECK_STATUS(mcpgen_skipped_errors(skipped, 1, &item_err), MCPGEN_INDEX_OUT_OF_RANGE);
    CHECK(item_err == NULL, "errors_out cleared");
    CHECK_STATUS(mcpgen_skipped_pointer(skipped, 0, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_skipped_count(NULL, &n), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_skipped_count(skipped, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_skipped_errors(NULL, 0, &item_err), MCPGEN_NULL_ARGUMENT);
    mcpgen_skipped_free(skipped);
    mcpgen_skipped_free(NULL);
    mcpgen_string_free(out);
    skipped = NULL;
    out = NULL;

    /* Required outputs, bad input: a status, outputs cleared, never a crash. */
    CHECK_STATUS(mcpgen_decode_result_skipping_invalid_items(NULL, REV, S("tools/list"), (const uint8_t *)list,
                                                             sizeof list - 1, &out, NULL, NULL, NULL, NULL),
                 MCPGEN_NULL_ARGUMENT);
    CHECK(out == NULL, "json_out cleared");
    CHECK_STATUS(mcpgen_decode_result_skipping_invalid_items(NULL, REV, S("tools/list"), (const uint8_t *)list,
                                                             sizeof list - 1, NULL, NULL, NULL, &skipped, NULL),
                 MCPGEN_NULL_ARGUMENT);
    CHECK(skipped == NULL, "skipped_out cleared");
    CHECK_STATUS(mcpgen_decode_result_skipping_invalid_items(NULL, REV, S("tools/list"), (const uint8_t *)"{\"tools\":[",
                                                             11, &out, NULL, NULL, &skipped, NULL),
                 MCPGEN_PARSE_ERROR);
    CHECK(out == NULL && skipped == NULL, "outputs stay NULL on failure");
    CHECK_STATUS(mcpgen_decode_result_skipping_invalid_items(NULL, REV, S("tools/list"), (const uint8_t *)"\xff", 1, &out,
                                                             NULL, NULL, &skipped, NULL),
                 MCPGEN_PARSE_ERROR);
    CHECK_STATUS(mcpgen_decode_result_skipping_invalid_items(NULL, REV, NULL, 3, (const uint8_t *)list, sizeof list - 1,
                                                             &out, NULL, NULL, &skipped, NULL),
                 MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_decode_result_skipping_invalid_items(NULL, 0, S("tools/list"), (const uint8_t *)list,
                                                             sizeof list - 1, &out, NULL, NULL, &skipped, NULL),
                 MCPGEN_UNKNOWN_REVISION);
    CHECK(out == NULL && skipped == NULL, "outputs stay NULL on failure");
}

static void test_decode_vectors(const char *vectors) {
    size_t i, n;
    mcpgen_context *by_policy[3] = {NULL, NULL, NULL};
    for (i = 0; i < 3; i++) {
        mcpgen_context_new(&by_policy[i]);
        mcpgen_context_set_policy(by_policy[i], (uint32_t)i);
    }
    n = run_vector_dir(vectors, "decode", run_decode_vector, by_policy);
    for (i = 0; i < 3; i++) mcpgen_context_free(by_policy[i]);
    printf("decode vectors: %zu run\n", n);
}

/* ---- extension vectors (vectors/ext/<name>), as mcpgen/tests/ext_tasks.rs ----------------- */

/* One case: `extension` (identifier), `def`, `input`, `expect.ok`; a valid input decodes and
 * re-encodes equal, an invalid one fails with an error at `expect.pointer` / `expect.keyword`. */
static int run_ext_vector(void *user, js_span root, char *why, size_t why_len) {
    js_span v, input, expect;
    char *id = NULL, *def = NULL, *out = NULL;
    size_t id_len = 0, out_len = 0;
    mcpgen_extension ext = MCPGEN_EXTENSION_NONE;
    mcpgen_error *err = NULL;
    mcpgen_status st, dst;
    int ok = 0, want_ok;
    (void)user;

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        snprintf(why, why_len, __VA_ARGS__);                                                                           \
        goto done;                                                                                                     \
    } while (0)

    if (!js_get(root, "extension", &v) || !(id = js_string(v, &id_len))) FAIL("vector lacks `extension`");
    if (mcpgen_extension_parse(id, id_len, &ext) != MCPGEN_OK) FAIL("extension %s not in this build", id);
    if (!js_get(root, "def", &v) || !(def = js_string(v, NULL))) FAIL("vector lacks `def`");
    if (!js_get(root, "input", &input) || !js_get(root, "expect", &expect)) FAIL("vector needs `input` and `expect`");
    if (!js_get(expect, "ok", &v) || (js_kind(v) != 't' && js_kind(v) != 'f')) FAIL("expect.ok must be a boolean");
    want_ok = js_kind(v) == 't';
    st = mcpgen_validate_extension(NULL, ext, def, strlen(def), (const uint8_t *)input.p, input.n, &err);
    /* The verdict without an error object (the fail-fast pass) must be the same. */
    if (mcpgen_validate_extension(NULL, ext, def, strlen(def), (const uint8_t *)input.p, input.n, NULL) != st)
        FAIL("the verdict differs without an error object");
    dst = mcpgen_decode_extension(NULL, ext, def, strlen(def), (const uint8_t *)input.p, input.n, &out, &out_len, NULL);
    if (want_ok) {
        if (st != MCPGEN_OK) {
            mcpgen_str t = {"", 0};
            mcpgen_error_text(err, &t);
            FAIL("expected valid as %s, got %s:\n%s", def, mcpgen_status_name(st), t.ptr);
        }
        if (dst != MCPGEN_OK) FAIL("valid but does not decode: %s", mcpgen_status_name(dst));
        if (!js_equal(js_value((js_span){out, out_len}), input)) FAIL("re-encodes as %s", out);
    } else {
        if (st == MCPGEN_OK) FAIL("expected invalid as %s, but it passed", def);
        if (dst == MCPGEN_OK) FAIL("invalid, but it decodes: %s", out);
        if (!expected_entries(err, st, expect, why, why_len)) goto done;
    }
    ok = 1;
done:
#undef FAIL
    mcpgen_error_free(err);
    mcpgen_string_free(out);
    free(id);
    free(def);
    return ok;
}

static void test_ext_vectors(const char *vectors) {
    char dir[1024];
    size_t n, i, total = 0;
    char **names;
    snprintf(dir, sizeof dir, "%s/ext", vectors);
    names = list_dir(dir, NULL, &n);
    CHECK(n > 0, "no extension vector directories in %s", dir);
    for (i = 0; i < n; i++) {
        char sub[512];
        snprintf(sub, sizeof sub, "ext/%s", names[i]);
        total += run_vector_dir(vectors, sub, run_ext_vector, NULL);
    }
    free_list(names, n);
    printf("extension vectors: %zu run\n", total);
}

/* The extension calls' own contract: codes, names, unknown ones, NULL arguments. */
static void test_extension_calls(void) {
    mcpgen_str id = {"", 0};
    mcpgen_extension ext = MCPGEN_EXTENSION_NONE;
    mcpgen_context *ctx = NULL;
    mcpgen_error *err = NULL;
    uint32_t codes[2] = {MCPGEN_EXTENSION_TASKS, 99};
    char *out = NULL;
    static const char get[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"_meta\":{"
                              "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                              "\"io.modelcontextprotocol/clientCapabilities\":{}},\"taskId\":\"t\"}}";
    CHECK(mcpgen_extension_id(MCPGEN_EXTENSION_TASKS, &id) == MCPGEN_OK && str_is(id, MCPGEN_EXTENSION_TASKS_ID),
          "mcpgen_extension_id(TASKS)");
    CHECK(mcpgen_extension_id(0, &id) == MCPGEN_UNKNOWN_EXTENSION && id.ptr == NULL, "code 0 is no extension");
    CHECK(mcpgen_extension_id(MCPGEN_EXTENSION_COUNT + 1, &id) == MCPGEN_UNKNOWN_EXTENSION, "past the last code");
    CHECK(mcpgen_extension_id(MCPGEN_EXTENSION_TASKS, NULL) == MCPGEN_NULL_ARGUMENT, "id_out NULL");
    CHECK(mcpgen_extension_parse("tasks", 5, &ext) == MCPGEN_OK && ext == MCPGEN_EXTENSION_TASKS, "parse short name");
    CHECK(mcpgen_extension_parse(MCPGEN_EXTENSION_TASKS_ID, strlen(MCPGEN_EXTENSION_TASKS_ID), &ext) == MCPGEN_OK &&
              ext == MCPGEN_EXTENSION_TASKS,
          "parse identifier");
    CHECK(mcpgen_extension_parse("io.example/none", 15, &ext) == MCPGEN_UNKNOWN_EXTENSION && ext == 0, "unknown name");
    CHECK(mcpgen_extension_parse(NULL, 0, &ext) == MCPGEN_NULL_ARGUMENT, "name NULL");
    CHECK(mcpgen_validate_extension(NULL, MCPGEN_EXTENSION_TASKS, "GetTaskRequest", 14, (const uint8_t *)get,
                                    strlen(get), NULL) == MCPGEN_OK,
          "a tasks/get validates as the extension's GetTaskRequest");
    CHECK(mcpgen_validate_extension(NULL, 99, "GetTaskRequest", 14, (const uint8_t *)get, strlen(get), &err) ==
                  MCPGEN_UNKNOWN_EXTENSION &&
              err != NULL,
          "unknown extension code");
    mcpgen_error_free(err);
    err = NULL;
    CHECK(mcpgen_validate_extension(NULL, MCPGEN_EXTENSION_TASKS, "NoSuchThing", 11, (const uint8_t *)get, strlen(get),
                                    &err) == MCPGEN_UNKNOWN_DEFINITION,
          "unknown definition of the extension");
    mcpgen_error_free(err);
    err = NULL;
    CHECK(mcpgen_validate_extension(NULL, MCPGEN_EXTENSION_TASKS, "GetTaskRequest", 14, (const uint8_t *)"{", 1, NULL) ==
              MCPGEN_PARSE_ERROR,
          "not JSON");
    CHECK(mcpgen_decode_extension(NULL, MCPGEN_EXTENSION_TASKS, "GetTaskRequest", 14, (const uint8_t *)get, strlen(get),
                                  NULL, NULL, NULL) == MCPGEN_NULL_ARGUMENT,
          "json_out NULL");
    CHECK(mcpgen_decode_extension(NULL, MCPGEN_EXTENSION_TASKS, "GetTaskRequest", 14, (const uint8_t *)get, strlen(get),
                                  &out, NULL, NULL) == MCPGEN_OK &&
              out && js_equal(js_value((js_span){out, strlen(out)}), js_value((js_span){get, strlen(get)})),
          "decode_extension re-encodes");
    mcpgen_string_free(out);
    /* A bad code in the list changes nothing; a good list makes tasks/get a message. */
    mcpgen_context_new(&ctx);
    CHECK(mcpgen_context_set_extensions(ctx, codes, 2) == MCPGEN_UNKNOWN_EXTENSION, "a bad code fails the call");
    CHECK(mcpgen_validate_message(ctx, REV, (const uint8_t *)get, strlen(get), NULL, NULL, NULL, NULL, NULL) ==
              MCPGEN_INVALID,
          "tasks/get is unknown where nothing was negotiated");
    CHECK(mcpgen_context_set_extensions(ctx, NULL, 1) == MCPGEN_NULL_ARGUMENT, "extensions NULL with a count");
    CHECK(mcpgen_context_set_extensions(NULL, codes, 1) == MCPGEN_NULL_ARGUMENT, "ctx NULL");
    CHECK(mcpgen_context_set_extensions(ctx, codes, 1) == MCPGEN_OK, "set the tasks extension");
    CHECK(mcpgen_context_set_supported_versions(ctx, NULL, 0) == MCPGEN_OK, "versions after extensions");
    CHECK(mcpgen_validate_message(ctx, REV, (const uint8_t *)get, strlen(get), NULL, NULL, NULL, NULL, NULL) ==
              MCPGEN_OK,
          "tasks/get is judged where the extension is negotiated (kept across set_supported_versions)");
    CHECK(mcpgen_context_set_extensions(ctx, NULL, 0) == MCPGEN_OK, "clear the extensions");
    CHECK(mcpgen_validate_message(ctx, REV, (const uint8_t *)get, strlen(get), NULL, NULL, NULL, NULL, NULL) ==
              MCPGEN_INVALID,
          "cleared again");
    mcpgen_context_free(ctx);
}

/* ---- protocol vectors (vectors/protocol), as generated/tests/protocol_vectors.rs ---------- */

/* What an operation produced, in the terms `expect` speaks (NULL/-1: not reported). */
typedef struct pv_outcome {
    int accept;
    int has_code, has_http;
    long long code;
    long long http;
    char *rule;       /* the single rule of a refusal */
    int has_id;       /* the operation reports an id … */
    char *id;         /* … as JSON text, NULL when there is none */
    char *data;       /* error data as JSON text */
    char *message;    /* the error text (the Rust message is a part of it) */
    int legacy, legacy_initialize, reserved;
    char *method, *revision, *kind, *variant, *era, *name;
    int has_prefix;   /* check_meta_key ran: prefix NULL means JSON null */
    char *prefix;
    mcpgen_error *err; /* entries = the errors */
    int errors_top_only, no_errors;
    mcpgen_strings *supported;
    int has_supported;
    int typed; /* `err` is a typed error stated whole by `expect.error` (check_meta_key) */
} pv_outcome;

static char *dup_n(const char *p, size_t n) {
    char *d = (char *)malloc(n + 1);
    memcpy(d, p, n);
    d[n] = 0;
    return d;
}

static char *dup_str(mcpgen_str s) {
    return dup_n(s.ptr ? s.ptr : "", s.len);
}

static char *dup_span(js_span v) {
    return dup_n(v.p, v.n);
}

/* A list of strings from a vector into mcpgen_str views (the strings are freed by the caller). */
static size_t str_list(js_span list, mcpgen_str *out, char **owned, size_t cap) {
    const char *cur = NULL;
    js_span k, item;
    size_t n = 0;
    while (n < cap && js_next(list, &cur, &k, &item)) {
        size_t len;
        owned[n] = js_string(item, &len);
        out[n].ptr = owned[n];
        out[n].len = owned[n] ? len : 0;
        n++;
    }
    return n;
}

/* Reads `id` and `error.data` of a rendered JSON-RPC error response. */
static void from_response(pv_outcome *o, mcpgen_str resp) {
    js_span r = js_value((js_span){resp.ptr, resp.len}), v, e;
    o->has_id = 1;
    if (js_get(r, "id", &v)) o->id = dup_span(v);
    if (js_get(r, "error", &e) && js_get(e, "data", &v)) o->data = dup_span(v);
}

/* Reads the JSON-RPC code, the HTTP status and the rule of a refusal (`o->err`). */
static void pv_code_and_rule(pv_outcome *o) {
    int64_t code;
    uint16_t http;
    mcpgen_str t;
    mcpgen_error_jsonrpc_code(o->err, &code, &http);
    o->has_code = o->has_http = 1;
    o->code = code;
    o->http = http;
    mcpgen_error_protocol_rule(o->err, &t);
    o->rule = dup_str(t);
}

/* A server-side refusal (`o->err`): its rendered response must itself be a JSON-RPC error
 * response; reads the id, data, code, HTTP status and rule. 0 (with `why`) when it is not. */
static int pv_refusal(pv_outcome *o, char *why, size_t why_len) {
    mcpgen_str t;
    mcpgen_error_response_json(o->err, &t);
    if (mcpgen_validate(NULL, MCPGEN_REVISION_2026_07_28, S("JSONRPCErrorResponse"), (const uint8_t *)t.ptr, t.len, NULL) !=
        MCPGEN_OK) {
        snprintf(why, why_len, "rendered response is not a valid JSONRPCErrorResponse: %s", t.ptr);
        return 0;
    }
    from_response(o, t);
    pv_code_and_rule(o);
    return 1;
}

static int pv_run(js_span root, pv_outcome *o, char *why, size_t why_len) {
    js_span v, input_v;
    char *op = NULL, *rev_name = NULL, *input = NULL;
    const char *in_ptr = NULL;
    size_t in_len = 0;
    int have_input = 0, ok = 0;
    mcpgen_revision rev = 0;
    mcpgen_context *ctx = NULL;
    mcpgen_str strs[16];
    char *owned[16];
    size_t n = 0, i;
    mcpgen_str t;
    mcpgen_status st;

    memset(o, 0, sizeof *o);
    o->legacy = o->legacy_initialize = o->reserved = -1;
    if (!js_get(root, "operation", &v) || !(op = js_string(v, NULL))) {
        snprintf(why, why_len, "vector lacks `operation`");
        return 0;
    }
    if (js_get(root, "input", &input_v)) {
        have_input = 1;
        in_ptr = input_v.p;
        in_len = input_v.n;
    } else if (js_get(root, "input_text", &input_v) && (input = js_string(input_v, &in_len)) != NULL) {
        have_input = 1;
        in_ptr = input;
    }
    if (js_get(root, "revision", &v)) {
        rev_name = js_string(v, NULL);
        if (!rev_name || mcpgen_revision_parse(rev_name, strlen(rev_name), &rev) != MCPGEN_OK) {
            snprintf(why, why_len, "revision not in this build");
            goto done;
        }
    }
    mcpgen_context_new(&ctx);
    if (js_get(root, "extensions", &v)) {
        /* The extensions this side negotiates, by identifier (vectors/README.md). */
        uint32_t codes[8];
        size_t ne = 0;
        const char *cur = NULL;
        js_span k, item;
        while (js_next(v, &cur, &k, &item)) {
            size_t len;
            char *id = js_string(item, &len);
            mcpgen_extension code = MCPGEN_EXTENSION_NONE;
            if (ne == 8 || !id || mcpgen_extension_parse(id, len, &code) != MCPGEN_OK) {
                snprintf(why, why_len, "extension %s not in this build", id ? id : "(not a string)");
                free(id);
                goto done;
            }
            free(id);
            codes[ne++] = code;
        }
        if (mcpgen_context_set_extensions(ctx, codes, ne) != MCPGEN_OK) {
            snprintf(why, why_len, "mcpgen_context_set_extensions refused the vector's extensions");
            goto done;
        }
    }

    if (!strcmp(op, "check_request")) {
        mcpgen_request *req = NULL;
        if (js_get(root, "supported_versions", &v)) {
            n = str_list(v, strs, owned, 16);
            mcpgen_context_set_supported_versions(ctx, strs, n);
        }
        st = mcpgen_check_request(ctx, (const uint8_t *)in_ptr, in_len, &req, &o->err);
        if (st == MCPGEN_OK) {
            mcpgen_revision r;
            bool b;
            o->accept = 1;
            mcpgen_request_id_json(req, &t);
            o->has_id = 1;
            if (t.len) o->id = dup_str(t);
            mcpgen_request_is_legacy(req, &b);
            o->legacy = b;
            mcpgen_request_method(req, &t);
            o->method = dup_str(t);
            mcpgen_request_revision(req, &r);
            mcpgen_revision_name(r, &t);
            o->revision = dup_str(t);
            mcpgen_request_free(req);
        } else if (st == MCPGEN_REQUEST_REFUSED) {
            bool b;
            if (!pv_refusal(o, why, why_len)) goto done;
            mcpgen_error_legacy_initialize(o->err, &b);
            o->legacy_initialize = b;
            o->errors_top_only = 1; /* the Rust runner reads e.errors without union arms */
        } else {
            snprintf(why, why_len, "check_request gave %s", mcpgen_status_name(st));
            goto done;
        }
    } else if (!strcmp(op, "validate_message")) {
        mcpgen_message_kind kind = 0;
        char *method = NULL;
        int64_t code = 0;
        if (js_get(root, "policy", &v)) {
            char *p = js_string(v, NULL);
            mcpgen_context_set_policy(ctx, !p ? 99 : !strcmp(p, "strict") ? MCPGEN_POLICY_STRICT
                                                : !strcmp(p, "lenient") ? MCPGEN_POLICY_LENIENT
                                                : !strcmp(p, "lossless") ? MCPGEN_POLICY_LOSSLESS : 99);
            free(p);
        }
        mcpgen_context_set_strict_formats(ctx, js_get(root, "strict_formats", &v) && js_kind(v) == 't');
        st = mcpgen_validate_message(ctx, rev, (const uint8_t *)in_ptr, in_len, &kind, &method, NULL, &code, &o->err);
        if (st == MCPGEN_OK) {
            static const char *const kinds[] = {"", "request", "notification", "result", "error"};
            o->accept = 1;
            o->kind = dup_n(kinds[kind], strlen(kinds[kind]));
            if (method) o->method = dup_n(method, strlen(method));
            if (kind == MCPGEN_MESSAGE_ERROR) {
                o->has_code = 1;
                o->code = code;
            }
            mcpgen_string_free(method);
        } else {
            /* The entries are the core's (DecodeError::errors) for every failure; a parse error is
             * also rule "parse" (the vectors' marker for "did not parse"). */
            if (st == MCPGEN_PARSE_ERROR) o->rule = dup_n("parse", 5);
        }
    } else if (!strcmp(op, "check_response")) {
        mcpgen_response *resp = NULL;
        char *method = NULL;
        if (js_get(root, "extension_result_types", &v)) {
            n = str_list(v, strs, owned, 16);
            mcpgen_context_set_extension_result_types(ctx, strs, n);
        }
        if (!js_get(root, "request_method", &v) || !(method = js_string(v, NULL))) {
            snprintf(why, why_len, "check_response needs `request_method`");
            goto done;
        }
        st = mcpgen_check_response(ctx, rev, method, strlen(method), (const uint8_t *)in_ptr, in_len, &resp, &o->err);
        free(method);
        if (st == MCPGEN_OK || st == MCPGEN_REMOTE_ERROR) {
            o->accept = 1;
            o->has_id = 1;
            mcpgen_response_id_json(resp, &t);
            if (t.len) o->id = dup_str(t);
            if (st == MCPGEN_OK) {
                o->kind = dup_n("result", 6);
                mcpgen_response_variant(resp, &t);
                o->variant = dup_str(t);
            } else {
                int64_t code;
                mcpgen_str m, d;
                o->kind = dup_n("error", 5);
                mcpgen_response_error(resp, &code, &m, &d);
                o->has_code = 1;
                o->code = code;
                o->message = dup_str(m);
                if (d.len) o->data = dup_str(d);
            }
            mcpgen_response_free(resp);
        } else if (st == MCPGEN_RESPONSE_INVALID) {
            mcpgen_error_protocol_rule(o->err, &t);
            if (t.len) o->rule = dup_str(t);
        } else {
            snprintf(why, why_len, "check_response gave %s", mcpgen_status_name(st));
            goto done;
        }
    } else if (!strcmp(op, "detect_era_probe") || !strcmp(op, "detect_era_http_400")) {
        mcpgen_era era = 0;
        int probe = !strcmp(op, "detect_era_probe");
        if (!probe && !have_input) {
            snprintf(why, why_len, "detect_era_http_400 needs an input");
            goto done;
        }
        /* (NULL, 0) is "no answer" for the probe; an empty body is a zero-length input. */
        st = probe ? mcpgen_detect_era_from_probe(have_input ? (const uint8_t *)in_ptr : NULL, have_input ? in_len : 0, &era,
                                                  &o->supported)
                   : mcpgen_detect_era_from_http_400((const uint8_t *)(in_ptr ? in_ptr : ""), in_len, &era, &o->supported);
        if (st != MCPGEN_OK) {
            snprintf(why, why_len, "%s gave %s", op, mcpgen_status_name(st));
            goto done;
        }
        o->accept = 1;
        o->era = era == MCPGEN_ERA_MODERN ? dup_n("modern", 6) : dup_n("legacy", 6);
        o->has_supported = era == MCPGEN_ERA_MODERN;
    } else if (!strcmp(op, "negotiate_version")) {
        char *requested = NULL;
        if (!js_get(root, "requested", &v) || !(requested = js_string(v, NULL)) || !js_get(root, "supported_versions", &v)) {
            free(requested);
            snprintf(why, why_len, "negotiate_version needs `requested` and `supported_versions`");
            goto done;
        }
        n = str_list(v, strs, owned, 16);
        mcpgen_context_set_supported_versions(ctx, strs, n);
        st = mcpgen_negotiate_version(ctx, requested, strlen(requested), NULL, &o->err);
        free(requested);
        if (st == MCPGEN_OK) {
            o->accept = 1;
        } else {
            pv_code_and_rule(o);
            mcpgen_error_response_json(o->err, &t);
            from_response(o, t);
            o->no_errors = 1;
        }
    } else if (!strcmp(op, "check_http_headers")) {
        /* `headers`: [[name, value], ...]; names go to strs/owned (freed at done), values here. */
        mcpgen_str values[16];
        char *owned_values[16];
        const char *cur = NULL;
        js_span k, pair;
        size_t m = 0;
        int bad = 0;
        if (!js_get(root, "headers", &v) || js_kind(v) != '[') {
            snprintf(why, why_len, "check_http_headers needs `headers`");
            goto done;
        }
        while (n < 16 && js_next(v, &cur, &k, &pair)) {
            const char *c2 = NULL;
            js_span k2, name_v, value_v;
            size_t len;
            if (js_kind(pair) != '[' || !js_next(pair, &c2, &k2, &name_v) || !js_next(pair, &c2, &k2, &value_v)) {
                bad = 1;
                break;
            }
            owned[n] = js_string(name_v, &len);
            strs[n].ptr = owned[n];
            strs[n].len = owned[n] ? len : 0;
            n++;
            owned_values[m] = js_string(value_v, &len);
            values[m].ptr = owned_values[m];
            values[m].len = owned_values[m] ? len : 0;
            m++;
        }
        if (!bad) st = mcpgen_check_http_headers(strs, values, n, (const uint8_t *)in_ptr, in_len, &o->err);
        for (i = 0; i < m; i++) free(owned_values[i]);
        if (bad) {
            snprintf(why, why_len, "a header is not a [name, value] pair");
            goto done;
        }
        if (st == MCPGEN_OK) {
            o->accept = 1;
        } else if (st == MCPGEN_REQUEST_REFUSED) {
            if (!pv_refusal(o, why, why_len)) goto done;
            o->no_errors = 1;
        } else {
            snprintf(why, why_len, "check_http_headers gave %s", mcpgen_status_name(st));
            goto done;
        }
    } else if (!strcmp(op, "check_meta_key")) {
        bool reserved;
        char *prefix = NULL, *name = NULL;
        if (!have_input || js_kind(input_v) != '"') {
            snprintf(why, why_len, "check_meta_key needs a string `input`");
            goto done;
        }
        /* `input` is the key as a JSON string: unescape it. */
        free(input);
        input = js_string(input_v, &in_len);
        st = mcpgen_check_meta_key(input, in_len, &reserved, &prefix, &name, &o->err);
        if (st == MCPGEN_OK) {
            o->accept = 1;
            o->reserved = reserved;
            o->has_prefix = 1;
            o->prefix = prefix ? dup_n(prefix, strlen(prefix)) : NULL;
            o->name = dup_n(name, strlen(name));
        } else if (st == MCPGEN_META_KEY_INVALID) {
            o->typed = 1;
        } else {
            snprintf(why, why_len, "check_meta_key gave %s", mcpgen_status_name(st));
            goto done;
        }
        o->no_errors = 1;
        mcpgen_string_free(prefix);
        mcpgen_string_free(name);
    } else {
        snprintf(why, why_len, "unknown operation `%s`", op);
        goto done;
    }
    if (o->err && !o->message) {
        mcpgen_error_text(o->err, &t);
        o->message = dup_str(t);
    }
    ok = 1;
done:
    for (i = 0; i < n; i++) free(owned[i]);
    mcpgen_context_free(ctx);
    free(op);
    free(rev_name);
    free(input);
    return ok;
}

static void pv_free(pv_outcome *o) {
    free(o->rule);
    free(o->id);
    free(o->data);
    free(o->message);
    free(o->method);
    free(o->revision);
    free(o->kind);
    free(o->variant);
    free(o->era);
    free(o->name);
    free(o->prefix);
    mcpgen_error_free(o->err);
    mcpgen_strings_free(o->supported);
}

/* Does entry i count among the outcome's errors? */
static int pv_counts(const pv_outcome *o, size_t i) {
    size_t depth = 0;
    if (o->no_errors || !o->err) return 0;
    mcpgen_error_arm(o->err, i, &depth, NULL);
    return !o->errors_top_only || depth == 0;
}

static size_t pv_error_count(const pv_outcome *o) {
    size_t n = 0, i, total = 0;
    if (o->err) mcpgen_error_count(o->err, &n);
    for (i = 0; i < n; i++) total += (size_t)pv_counts(o, i);
    return total;
}

static int some_error_has_rule(const pv_outcome *o, const char *rule) {
    size_t n = 0, i;
    mcpgen_str got;
    if (o->err) mcpgen_error_count(o->err, &n);
    for (i = 0; i < n; i++)
        if (pv_counts(o, i) && mcpgen_error_rule(o->err, i, &got) == MCPGEN_OK && str_is(got, rule)) return 1;
    return 0;
}

static int str_field_is(const char *got, js_span want) {
    size_t len;
    char *w = js_string(want, &len);
    int eq = w && got && strlen(got) == len && memcmp(got, w, len) == 0;
    free(w);
    return eq;
}

/* Is `got` the vector's JSON string `want`? */
static int mstr_is(mcpgen_str got, js_span want) {
    size_t len;
    char *w = js_string(want, &len);
    int eq = w && got.ptr && got.len == len && memcmp(got.ptr, w, len) == 0;
    free(w);
    return eq;
}

static int pv_check(const pv_outcome *o, js_span expect, char *why, size_t why_len) {
    const char *cur = NULL;
    js_span k, want, tmp;
    char *key;
    int saw_accept = 0;
    if (js_kind(expect) != '{') {
        snprintf(why, why_len, "`expect` must be an object");
        return 0;
    }
    while (js_next(expect, &cur, &k, &want)) {
        int ok = 1;
        key = js_string(k, NULL);
        if (!key) return 0;
        if (!strcmp(key, "accept")) {
            saw_accept = 1;
            ok = (js_kind(want) == 't') == (o->accept != 0) && (js_kind(want) == 't' || js_kind(want) == 'f');
        } else if (!strcmp(key, "code")) {
            ok = o->has_code && strtoll(want.p, NULL, 10) == o->code;
        } else if (!strcmp(key, "http_status")) {
            ok = o->has_http && strtoll(want.p, NULL, 10) == o->http;
        } else if (!strcmp(key, "rule")) {
            char *w = js_string(want, NULL);
            ok = w && ((o->rule && !strcmp(o->rule, w)) || some_error_has_rule(o, w));
            free(w);
        } else if (!strcmp(key, "has_id")) {
            ok = (js_kind(want) == 't') == (o->has_id && o->id != NULL);
        } else if (!strcmp(key, "id")) {
            ok = o->has_id && o->id && js_equal(js_value((js_span){o->id, strlen(o->id)}), want);
        } else if (!strcmp(key, "data")) {
            const char *c2 = NULL;
            js_span dk, dv, data = o->data ? js_value((js_span){o->data, strlen(o->data)}) : (js_span){NULL, 0};
            ok = o->data && js_kind(data) == '{' && js_kind(want) == '{';
            while (ok && js_next(want, &c2, &dk, &dv)) {
                char *name = js_string(dk, NULL);
                ok = name && js_get(data, name, &tmp) && js_equal(tmp, dv);
                free(name);
            }
        } else if (!strcmp(key, "message_contains")) {
            size_t len;
            char *w = js_string(want, &len);
            ok = w && o->message && contains(o->message, strlen(o->message), w, len);
            free(w);
        } else if (!strcmp(key, "legacy") || !strcmp(key, "legacy_initialize") || !strcmp(key, "reserved")) {
            int got = !strcmp(key, "legacy") ? o->legacy : !strcmp(key, "reserved") ? o->reserved : o->legacy_initialize;
            ok = got >= 0 && (js_kind(want) == 't') == (got != 0);
        } else if (!strcmp(key, "method") || !strcmp(key, "revision") || !strcmp(key, "kind") || !strcmp(key, "variant") ||
                   !strcmp(key, "era") || !strcmp(key, "name")) {
            const char *got = !strcmp(key, "method")     ? o->method
                              : !strcmp(key, "revision") ? o->revision
                              : !strcmp(key, "kind")     ? o->kind
                              : !strcmp(key, "variant")  ? o->variant
                              : !strcmp(key, "era")      ? o->era
                                                         : o->name;
            ok = str_field_is(got, want);
        } else if (!strcmp(key, "prefix")) {
            ok = o->has_prefix && (js_kind(want) == 'n' ? o->prefix == NULL : str_field_is(o->prefix, want));
        } else if (!strcmp(key, "supported")) {
            size_t count = 0, i = 0;
            const char *c2 = NULL;
            js_span ik, item;
            mcpgen_str got;
            ok = o->has_supported && o->supported && mcpgen_strings_count(o->supported, &count) == MCPGEN_OK &&
                 count == js_count(want);
            while (ok && js_next(want, &c2, &ik, &item)) {
                char *w = js_string(item, NULL);
                ok = w && mcpgen_strings_get(o->supported, i++, &got) == MCPGEN_OK && str_is(got, w);
                free(w);
            }
        } else if (!strcmp(key, "errors")) {
            const char *c2 = NULL;
            js_span ik, pattern;
            size_t n = 0, i;
            if (o->err) mcpgen_error_count(o->err, &n);
            while (ok && js_next(want, &c2, &ik, &pattern)) {
                int matched = 0;
                for (i = 0; i < n && !matched; i++)
                    matched = pv_counts(o, i) && entry_matches(o->err, i, pattern);
                if (!matched) {
                    snprintf(why, why_len, "errors: no error matches %.*s\n%s", (int)pattern.n, pattern.p,
                             o->message ? o->message : "");
                    free(key);
                    return 0;
                }
            }
        } else if (!strcmp(key, "error")) {
            /* kind, rule, pointer (null: empty) of the one entry, and its message = the text. */
            static const char *const members[] = {"kind", "rule", "pointer", "message"};
            mcpgen_status (*const getters[])(const mcpgen_error *, size_t, mcpgen_str *) = {
                mcpgen_error_kind, mcpgen_error_rule, mcpgen_error_pointer, mcpgen_error_message};
            size_t n = 0, m;
            mcpgen_str text = {"", 0};
            ok = o->typed && o->err && mcpgen_error_count(o->err, &n) == MCPGEN_OK && n == 1 && js_count(want) == 4;
            for (m = 0; ok && m < 4; m++) {
                mcpgen_str got;
                ok = js_get(want, members[m], &tmp) && getters[m](o->err, 0, &got) == MCPGEN_OK &&
                     (js_kind(tmp) == 'n' ? got.len == 0 : mstr_is(got, tmp));
            }
            ok = ok && mcpgen_error_text(o->err, &text) == MCPGEN_OK && js_get(want, "message", &tmp) &&
                 str_field_is(o->message, tmp);
        } else if (!strcmp(key, "error_count")) {
            ok = (size_t)strtoull(want.p, NULL, 10) == pv_error_count(o);
        } else {
            snprintf(why, why_len, "unknown expect key `%s` (see vectors/README.md)", key);
            free(key);
            return 0;
        }
        if (!ok) {
            snprintf(why, why_len, "%s: expected %.*s; got accept=%d code=%lld http=%lld rule=%s id=%s kind=%s variant=%s\n%s",
                     key, (int)want.n, want.p, o->accept, o->code, o->http, o->rule ? o->rule : "-", o->id ? o->id : "-",
                     o->kind ? o->kind : "-", o->variant ? o->variant : "-", o->message ? o->message : "");
            free(key);
            return 0;
        }
        free(key);
    }
    if (!saw_accept) {
        snprintf(why, why_len, "expect.accept is required");
        return 0;
    }
    return 1;
}

static int run_protocol_vector(void *user, js_span root, char *why, size_t why_len) {
    js_span expect, v;
    pv_outcome o;
    int ok;
    (void)user;
    if (!js_get(root, "description", &v) || !js_get(root, "expect", &expect)) {
        snprintf(why, why_len, "lacks description/expect");
        return 0;
    }
    ok = pv_run(root, &o, why, why_len) && pv_check(&o, expect, why, why_len);
    pv_free(&o);
    return ok;
}

static void test_protocol_vectors(const char *vectors) {
    printf("protocol vectors: %zu run\n", run_vector_dir(vectors, "protocol", run_protocol_vector, NULL));
}

/* Every official example that is a whole JSON-RPC message passes validate_message; client
 * requests pass check_request (reading their method); result responses pass check_response for
 * the method their result belongs to. */
static void test_protocol_examples(const char *dir, const char *vectors) {
    size_t ndefs, nfiles, i, j, nmethods = 0, m, total = 0, expected = 0;
    js_span xfail_list = expected_failures(vectors, "protocol");
    char **defs = list_dir(dir, NULL, &ndefs);
    mcpgen_method_count(REV, &nmethods);
    CHECK(nmethods > 10, "method table of 2026-07-28 has %zu rows", nmethods);
    for (i = 0; i < ndefs; i++) {
        char sub[1024];
        char **files;
        snprintf(sub, sizeof sub, "%s/%s", dir, defs[i]);
        files = list_dir(sub, ".json", &nfiles);
        for (j = 0; j < nfiles; j++) {
            char path[2048];
            size_t len, dlen = strlen(defs[i]);
            char *bytes;
            js_span v;
            mcpgen_error *err = NULL;
            mcpgen_str text;
            mcpgen_status st;
            int xfail = expected_failure(xfail_list, defs[i], files[j]), hits = expected_hits;
            snprintf(path, sizeof path, "%s/%s", sub, files[j]);
            bytes = read_file(path, &len);
            if (!bytes) continue;
            if (!js_get(js_value((js_span){bytes, len}), "jsonrpc", &v)) {
                free(bytes);
                continue;
            }
            total++;
            expecting_failure = xfail;
            st = mcpgen_validate_message(NULL, REV, (const uint8_t *)bytes, len, NULL, NULL, NULL, NULL, &err);
            mcpgen_error_text(err, &text);
            CHECK(st == MCPGEN_OK, "validate_message(%s): %s %s", path, mcpgen_status_name(st), text.ptr);
            mcpgen_error_free(err);
            for (m = 0; m < nmethods; m++) {
                mcpgen_method_info info;
                mcpgen_str name;
                mcpgen_method_at(REV, m, &info);
                mcpgen_def_name(info.request_def, &name, NULL);
                if (str_is(name, defs[i]) && !info.is_notification && info.direction == MCPGEN_DIRECTION_CLIENT_TO_SERVER) {
                    mcpgen_request *req = NULL;
                    st = mcpgen_check_request(NULL, (const uint8_t *)bytes, len, &req, &err);
                    mcpgen_error_text(err, &text);
                    CHECK(st == MCPGEN_OK, "check_request(%s): %s %s", path, mcpgen_status_name(st), text.ptr);
                    if (req) {
                        mcpgen_request_method(req, &text);
                        CHECK(text.len == info.method.len && !memcmp(text.ptr, info.method.ptr, text.len),
                              "check_request(%s) read method %s, expected %s", path, text.ptr, info.method.ptr);
                    }
                    mcpgen_request_free(req);
                    mcpgen_error_free(err);
                }
                if (info.result_def && dlen > 8 && !strcmp(defs[i] + dlen - 8, "Response") &&
                    mcpgen_def_name(info.result_def, &name, NULL) == MCPGEN_OK && name.len == dlen - 8 &&
                    !memcmp(name.ptr, defs[i], name.len)) {
                    mcpgen_response *resp = NULL;
                    mcpgen_str variant;
                    st = mcpgen_check_response(NULL, REV, info.method.ptr, info.method.len, (const uint8_t *)bytes, len,
                                               &resp, &err);
                    mcpgen_error_text(err, &text);
                    CHECK(st == MCPGEN_OK, "check_response(%s, %s): %s %s", path, info.method.ptr, mcpgen_status_name(st),
                          text.ptr);
                    if (resp) {
                        mcpgen_response_variant(resp, &variant);
                        CHECK((variant.len == name.len && !memcmp(variant.ptr, name.ptr, name.len)) ||
                                  str_is(variant, "InputRequiredResult"),
                              "check_response(%s) read %s", path, variant.ptr);
                    }
                    mcpgen_response_free(resp);
                    mcpgen_error_free(err);
                    break; /* the first method answering with this result, as the Rust runner */
                }
            }
            expecting_failure = 0;
            if (xfail) {
                expected++;
                CHECK(expected_hits > hits, "example %s is listed as an expected failure (protocol) but passes: remove it",
                      path);
            }
            free(bytes);
        }
        free_list(files, nfiles);
    }
    free_list(defs, ndefs);
    CHECK(total > 30, "only %zu official examples are whole messages", total);
    printf("official examples through the protocol checks: %zu (%zu expected failures)\n", total, expected);
}

/* ---- protocol rules ---------------------------------------------------------------------- */

#define META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
             "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static void test_check_request(void) {
    mcpgen_context *modern = NULL, *dual = NULL;
    mcpgen_request *req = NULL;
    mcpgen_error *err = NULL;
    mcpgen_str str;
    mcpgen_revision rev;
    int64_t code;
    uint16_t http;
    bool legacy;
    size_t n;
    static const mcpgen_str modern_versions[] = {{"2026-07-28", 10}};
    static const mcpgen_str dual_versions[] = {{"2026-07-28", 10}, {"2025-11-25", 10}};
    static const char legacy_init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                                      "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                                      "\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}";

    mcpgen_context_new(&modern);
    CHECK_STATUS(mcpgen_context_set_supported_versions(modern, modern_versions, 1), MCPGEN_OK);
    mcpgen_context_new(&dual);
    CHECK_STATUS(mcpgen_context_set_supported_versions(dual, dual_versions, 2), MCPGEN_OK);

    /* Accepted. */
    CHECK_STATUS(mcpgen_check_request(modern, B("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/list\",\"params\":{" META "}}"),
                                      &req, &err),
                 MCPGEN_OK);
    CHECK(err == NULL && req != NULL, "accepted request");
    CHECK_STATUS(mcpgen_request_method(req, &str), MCPGEN_OK);
    CHECK(str_is(str, "tools/list"), "method %s", str.ptr);
    CHECK_STATUS(mcpgen_request_id_json(req, &str), MCPGEN_OK);
    CHECK(str_is(str, "\"x\""), "id %s", str.ptr);
    CHECK_STATUS(mcpgen_request_revision(req, &rev), MCPGEN_OK);
    CHECK(rev == MCPGEN_REVISION_2026_07_28, "revision %d", (int)rev);
    CHECK_STATUS(mcpgen_request_is_legacy(req, &legacy), MCPGEN_OK);
    CHECK(!legacy, "not legacy");
    CHECK_STATUS(mcpgen_request_json(req, &str), MCPGEN_OK);
    CHECK(contains(str.ptr, str.len, S("\"method\":\"tools/list\"")), "request json %s", str.ptr);
    mcpgen_request_free(req);

    /* A notification has no id. */
    CHECK_STATUS(mcpgen_check_request(modern, B("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), &req, NULL),
                 MCPGEN_OK);
    CHECK_STATUS(mcpgen_request_id_json(req, &str), MCPGEN_OK);
    CHECK(str.len == 0, "notification id %s", str.ptr);
    mcpgen_request_free(req);

    /* Refused: no _meta (META-6, -32602), with the response to send. */
    CHECK_STATUS(mcpgen_check_request(modern, B("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}"), &req, &err),
                 MCPGEN_REQUEST_REFUSED);
    CHECK(req == NULL, "no request on refusal");
    CHECK_STATUS(mcpgen_error_jsonrpc_code(err, &code, &http), MCPGEN_OK);
    CHECK(code == -32602 && http == 400, "code %lld http %u", (long long)code, (unsigned)http);
    CHECK_STATUS(mcpgen_error_protocol_rule(err, &str), MCPGEN_OK);
    CHECK(str_is(str, "META-6"), "rule %s", str.ptr);
    CHECK_STATUS(mcpgen_error_response_json(err, &str), MCPGEN_OK);
    CHECK(contains(str.ptr, str.len, S("\"id\":7")) && contains(str.ptr, str.len, S("-32602")), "response %s", str.ptr);
    /* The response is a schema-valid JSON-RPC error. */
    CHECK_STATUS(mcpgen_validate(NULL, REV, S("JSONRPCErrorResponse"), (const uint8_t *)str.ptr, str.len, NULL), MCPGEN_OK);
    mcpgen_error_free(err);

    /* Refused: a parse error has no id (-32700). */
    CHECK_STATUS(mcpgen_check_request(modern, B("\xff\xfe"), &req, &err), MCPGEN_REQUEST_REFUSED);
    CHECK_STATUS(mcpgen_error_jsonrpc_code(err, &code, NULL), MCPGEN_OK);
    CHECK(code == MCPGEN_ERROR_CODE_PARSE_ERROR, "code %lld", (long long)code);
    CHECK_STATUS(mcpgen_error_response_json(err, &str), MCPGEN_OK);
    CHECK(!contains(str.ptr, str.len, S("\"id\"")), "no id member: %s", str.ptr);
    mcpgen_error_free(err);

    /* Refused: params that break the schema point inside params. */
    CHECK_STATUS(mcpgen_check_request(modern, B("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" META ",\"name\":5}}"),
                                      &req, &err),
                 MCPGEN_REQUEST_REFUSED);
    CHECK_STATUS(mcpgen_error_count(err, &n), MCPGEN_OK);
    CHECK(n >= 1 && any_entry(err, mcpgen_error_pointer, S("/params/name")), "entries at /params/name (%zu)", n);
    mcpgen_error_free(err);

    /* A legacy initialize: refused by a modern-only server, routed by a dual-era one. */
    CHECK_STATUS(mcpgen_check_request(modern, B(legacy_init), &req, &err), MCPGEN_REQUEST_REFUSED);
    CHECK_STATUS(mcpgen_error_legacy_initialize(err, &legacy), MCPGEN_OK);
    CHECK(legacy, "legacy initialize flagged");
    CHECK_STATUS(mcpgen_error_protocol_rule(err, &str), MCPGEN_OK);
    CHECK(str_is(str, "ERA-8"), "rule %s", str.ptr);
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_check_request(dual, B(legacy_init), &req, NULL), MCPGEN_OK);
    CHECK_STATUS(mcpgen_request_is_legacy(req, &legacy), MCPGEN_OK);
    CHECK_STATUS(mcpgen_request_revision(req, &rev), MCPGEN_OK);
    CHECK(legacy && rev == MCPGEN_REVISION_2025_11_25, "legacy %d revision %d", (int)legacy, (int)rev);
    mcpgen_request_free(req);

    mcpgen_context_free(modern);
    mcpgen_context_free(dual);
}

static void test_check_response(void) {
    mcpgen_response *resp = NULL;
    mcpgen_error *err = NULL;
    mcpgen_context *ext = NULL;
    mcpgen_str str, msg, data;
    int64_t code;
    bool is_error;
    static const mcpgen_str task_created[] = {{"task_created", 12}};
    static const char unknown_type[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"task_created\",\"task\":{\"id\":\"t\"}}}";

    CHECK_STATUS(mcpgen_check_response(NULL, REV, S("tools/call"), B("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}"),
                                       &resp, &err),
                 MCPGEN_OK);
    CHECK_STATUS(mcpgen_response_is_error(resp, &is_error), MCPGEN_OK);
    CHECK(!is_error, "a result");
    CHECK_STATUS(mcpgen_response_variant(resp, &str), MCPGEN_OK);
    CHECK(str_is(str, "CallToolResult"), "variant %s", str.ptr);
    CHECK_STATUS(mcpgen_response_id_json(resp, &str), MCPGEN_OK);
    CHECK(str_is(str, "1"), "id %s", str.ptr);
    CHECK_STATUS(mcpgen_response_result_json(resp, &str), MCPGEN_OK);
    CHECK(contains(str.ptr, str.len, S("\"content\":[]")), "result %s", str.ptr);
    mcpgen_response_free(resp);

    /* The peer's error: a remote error, not a local one (ERR-7). */
    CHECK_STATUS(mcpgen_check_response(NULL, REV, S("resources/read"),
                                       B("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":\"bad\",\"data\":{\"k\":1}}}"),
                                       &resp, &err),
                 MCPGEN_REMOTE_ERROR);
    CHECK(err == NULL, "no local error for a remote one");
    CHECK_STATUS(mcpgen_response_is_error(resp, &is_error), MCPGEN_OK);
    CHECK_STATUS(mcpgen_response_error(resp, &code, &msg, &data), MCPGEN_OK);
    CHECK(is_error && code == -32602 && str_is(msg, "bad") && str_is(data, "{\"k\":1}"), "remote error %lld %s %s",
          (long long)code, msg.ptr, data.ptr);
    mcpgen_response_free(resp);

    /* Invalid: input_required on tools/list (RESULT-5); unknown resultType (RESULT-3). */
    CHECK_STATUS(mcpgen_check_response(NULL, REV, S("tools/list"),
                                       B("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\",\"requestState\":\"x\"}}"),
                                       &resp, &err),
                 MCPGEN_RESPONSE_INVALID);
    CHECK(resp == NULL, "no response object when invalid");
    CHECK_STATUS(mcpgen_error_protocol_rule(err, &str), MCPGEN_OK);
    CHECK(str_is(str, "RESULT-5"), "rule %s", str.ptr);
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_check_response(NULL, REV, S("tools/call"), B(unknown_type), &resp, &err), MCPGEN_RESPONSE_INVALID);
    CHECK_STATUS(mcpgen_error_protocol_rule(err, &str), MCPGEN_OK);
    CHECK(str_is(str, "RESULT-3"), "rule %s", str.ptr);
    mcpgen_error_free(err);
    /* …unless an extension the client negotiated defines it. */
    mcpgen_context_new(&ext);
    CHECK_STATUS(mcpgen_context_set_extension_result_types(ext, task_created, 1), MCPGEN_OK);
    CHECK_STATUS(mcpgen_check_response(ext, REV, S("tools/call"), B(unknown_type), &resp, NULL), MCPGEN_OK);
    CHECK_STATUS(mcpgen_response_variant(resp, &str), MCPGEN_OK);
    CHECK(str_is(str, "Raw"), "variant %s", str.ptr);
    mcpgen_response_free(resp);
    mcpgen_context_free(ext);
}

static void test_message_version_meta_era(void) {
    mcpgen_message_kind kind;
    char *method = NULL, *prefix = NULL, *name = NULL, *version = NULL;
    size_t method_len = 0, n;
    int64_t code = 0;
    uint16_t http;
    mcpgen_error *err = NULL;
    mcpgen_context *ctx = NULL;
    mcpgen_strings *list = NULL;
    mcpgen_era era;
    mcpgen_str str;
    bool reserved;
    static const mcpgen_str versions[] = {{"2026-07-28", 10}, {"2025-11-25", 10}};
    static const char modern_error[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32022,\"message\":\"m\","
                                       "\"data\":{\"supported\":[\"2026-07-28\"],\"requested\":\"2027-01-01\"}}}";

    /* Method-aware validation. */
    CHECK_STATUS(mcpgen_validate_message(NULL, REV, B("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" META "}}"),
                                         &kind, &method, &method_len, &code, NULL),
                 MCPGEN_OK);
    CHECK(kind == MCPGEN_MESSAGE_REQUEST && method && strcmp(method, "tools/list") == 0 && method_len == 10,
          "request kind %d method %s", (int)kind, method);
    mcpgen_string_free(method);
    CHECK_STATUS(mcpgen_validate_message(NULL, REV, B("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"no\"}}"),
                                         &kind, &method, NULL, &code, NULL),
                 MCPGEN_OK);
    CHECK(kind == MCPGEN_MESSAGE_ERROR && code == -32601 && method == NULL, "error kind %d code %lld", (int)kind,
          (long long)code);
    CHECK_STATUS(mcpgen_validate_message(NULL, REV, B("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/calll\",\"params\":{" META "}}"),
                                         &kind, &method, NULL, NULL, &err),
                 MCPGEN_INVALID);
    CHECK(kind == 0 && method == NULL, "outputs stay cleared on failure");
    CHECK(any_entry(err, mcpgen_error_rule, S("MSG-9")), "unknown method reported with MSG-9");
    mcpgen_error_free(err);

    /* Version negotiation with the context's versions. */
    mcpgen_context_new(&ctx);
    mcpgen_context_set_supported_versions(ctx, versions, 2);
    CHECK_STATUS(mcpgen_negotiate_version(ctx, S("2025-11-25"), &version, NULL), MCPGEN_OK);
    CHECK(version && strcmp(version, "2025-11-25") == 0, "agreed %s", version);
    mcpgen_string_free(version);
    CHECK_STATUS(mcpgen_negotiate_version(ctx, S("2027-01-01"), &version, &err), MCPGEN_VERSION_UNSUPPORTED);
    CHECK(version == NULL, "no version on failure");
    CHECK_STATUS(mcpgen_error_jsonrpc_code(err, &code, &http), MCPGEN_OK);
    CHECK(code == MCPGEN_ERROR_CODE_UNSUPPORTED_PROTOCOL_VERSION_ERROR && http == 400, "code %lld", (long long)code);
    CHECK_STATUS(mcpgen_error_response_json(err, &str), MCPGEN_OK);
    CHECK(contains(str.ptr, str.len, S("{\"supported\":[\"2026-07-28\",\"2025-11-25\"],\"requested\":\"2027-01-01\"}")),
          "response %s", str.ptr);
    mcpgen_error_free(err);
    mcpgen_context_free(ctx);

    /* _meta keys. */
    CHECK_STATUS(mcpgen_check_meta_key(S("io.mcp/x"), &reserved, &prefix, &name, NULL), MCPGEN_OK);
    CHECK(reserved && prefix && name && !strcmp(prefix, "io.mcp") && !strcmp(name, "x"), "io.mcp/x");
    mcpgen_string_free(prefix);
    mcpgen_string_free(name);
    CHECK_STATUS(mcpgen_check_meta_key(S("plain"), &reserved, &prefix, &name, NULL), MCPGEN_OK);
    CHECK(!reserved && prefix == NULL && name && !strcmp(name, "plain"), "no prefix");
    mcpgen_string_free(name);
    CHECK_STATUS(mcpgen_check_meta_key(S("com.-ex/x"), &reserved, &prefix, &name, &err), MCPGEN_META_KEY_INVALID);
    CHECK(prefix == NULL && name == NULL, "outputs cleared");
    CHECK_STATUS(mcpgen_error_text(err, &str), MCPGEN_OK);
    CHECK(str.len > 0, "meta key error says why");
    CHECK_STATUS(mcpgen_error_protocol_rule(err, &str), MCPGEN_OK);
    CHECK(str_is(str, "META-1"), "rule %s", str.ptr);
    mcpgen_error_free(err);

    /* Era detection. */
    CHECK_STATUS(mcpgen_detect_era_from_probe(NULL, 0, &era, &list), MCPGEN_OK);
    CHECK(era == MCPGEN_ERA_LEGACY && list == NULL, "no answer means legacy");
    CHECK_STATUS(mcpgen_detect_era_from_probe(B(modern_error), &era, &list), MCPGEN_OK);
    CHECK(era == MCPGEN_ERA_MODERN && list != NULL, "modern probe answer");
    CHECK_STATUS(mcpgen_strings_count(list, &n), MCPGEN_OK);
    CHECK_STATUS(mcpgen_strings_get(list, 0, &str), MCPGEN_OK);
    CHECK(n == 1 && str_is(str, "2026-07-28"), "supported list");
    CHECK_STATUS(mcpgen_strings_get(list, 1, &str), MCPGEN_INDEX_OUT_OF_RANGE);
    mcpgen_strings_free(list);
    CHECK_STATUS(mcpgen_detect_era_from_http_400(B(modern_error), &era, NULL), MCPGEN_OK);
    CHECK(era == MCPGEN_ERA_MODERN, "modern 400");
    CHECK_STATUS(mcpgen_detect_era_from_http_400(B(""), &era, &list), MCPGEN_OK);
    CHECK(era == MCPGEN_ERA_LEGACY && list == NULL, "empty 400 body means legacy");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s EXAMPLES_DIR VECTORS_DIR\n", argv[0]);
        return 2;
    }
    test_info();
    test_null_arguments();
    test_hostile_input();
    test_error_object();
    test_decode_policies();
    test_examples(argv[1], argv[2]);
    test_skip_invalid_items();
    test_decode_vectors(argv[2]);
    test_protocol_vectors(argv[2]);
    test_ext_vectors(argv[2]);
    test_extension_calls();
    test_protocol_examples(argv[1], argv[2]);
    test_check_request();
    test_check_response();
    test_message_version_meta_era();
    free(official_examples_text);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
