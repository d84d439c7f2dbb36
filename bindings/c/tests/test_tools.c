/* The C test suite for tool schemas and icons: every case of vectors/tools and vectors/icons
 * with the verdicts of the Rust runner (generated/tests/tools.rs), plus NULL handling, hostile
 * input, the checker's cache and limits, the opt-in `$ref` fetcher (fake resolver and fetcher:
 * private addresses refused before any fetch), and the icon helpers.
 *
 * Usage: test_tools VECTORS_DIR
 * Built with gcc -std=c99 -Wall -Wextra -Werror against libmcpgen.a and libmcpgen.so (run.sh).
 * Exit status 0 only when every check passed; each failure is printed with its location. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpgen.h"
#include "jsonscan.h"
#include "testutil.h"

/* ---- small helpers ----------------------------------------------------------------------- */

/* The string member `key` of `obj`, unescaped (free() it), or NULL when absent. */
static char *get_string(js_span obj, const char *key) {
    js_span v;
    size_t n;
    return js_get(obj, key, &v) ? js_string(v, &n) : NULL;
}

/* True when `obj.key` is the literal `true`; *present says whether it is a boolean at all. */
static int get_bool(js_span obj, const char *key, int *present) {
    js_span v;
    *present = 0;
    if (!js_get(obj, key, &v)) return 0;
    if (v.n == 4 && !memcmp(v.p, "true", 4)) {
        *present = 1;
        return 1;
    }
    if (v.n == 5 && !memcmp(v.p, "false", 5)) *present = 1;
    return 0;
}

static int get_u64(js_span obj, const char *key, unsigned long long *out) {
    js_span v;
    char buf[32];
    if (!js_get(obj, key, &v) || v.n == 0 || v.n >= sizeof buf || v.p[0] < '0' || v.p[0] > '9') return 0;
    memcpy(buf, v.p, v.n);
    buf[v.n] = 0;
    *out = strtoull(buf, NULL, 10);
    return 1;
}

static int str_eq_c(mcpgen_str s, const char *want) {
    return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

/* RFC 4648 Base64 (padding optional) into a new buffer (free() it); NULL when malformed. */
static unsigned char *base64_decode(const char *s, size_t *len_out) {
    size_t n = strlen(s), i, len = 0;
    unsigned long acc = 0;
    int bits = 0;
    unsigned char *out = (unsigned char *)malloc(n / 4 * 3 + 3);
    if (!out) return NULL;
    for (i = 0; i < n && s[i] != '='; i++) {
        const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const char *at = strchr(alphabet, s[i]);
        if (!at || !*at) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (unsigned long)(at - alphabet);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[len++] = (unsigned char)((acc >> bits) & 0xFF);
        }
    }
    *len_out = len;
    return out;
}

/* ---- vectors/tools ------------------------------------------------------------------------- */

/* Is `got` the vector's string `want` (a JSON string span), or empty when `want` is null? */
static int str_or_null_is(mcpgen_str got, js_span want) {
    size_t len;
    char *w;
    int eq;
    if (js_kind(want) == 'n') return got.len == 0;
    w = js_string(want, &len);
    eq = w && got.len == len && memcmp(got.ptr, w, len) == 0;
    free(w);
    return eq;
}

/* The status the C library gives for a typed error of kind `kind` (by variant, as the library
 * maps them): every kind of `expect.error` in vectors/tools. */
static mcpgen_status status_of_kind(const char *kind) {
    if (!strcmp(kind, "parse")) return MCPGEN_PARSE_ERROR;
    if (!strcmp(kind, "not_a_tool_document") || !strcmp(kind, "tools_not_an_array")) return MCPGEN_INVALID;
    if (!strcmp(kind, "unknown_limit") || !strcmp(kind, "limit_too_large")) return MCPGEN_INVALID_ARGUMENT;
    return MCPGEN_INTERNAL; /* unknown kind in a vector: never matches */
}

/* `expect.error` (kind, rule, pointer, message; null for none) against a failed call: its
 * status is the kind's, its one entry has the kind, rule, pointer and message, and the error's
 * text is the same message. */
static int typed_error_is(mcpgen_status st, const mcpgen_error *err, js_span want, char *why, size_t why_len) {
    js_span kind, rule, pointer, message;
    mcpgen_str k = {"", 0}, r = {"", 0}, p = {"", 0}, m = {"", 0}, text = {"", 0};
    size_t count = 0;
    char *kind_text;
    int ok;
    if (!js_get(want, "kind", &kind) || !js_get(want, "rule", &rule) || !js_get(want, "pointer", &pointer) ||
        !js_get(want, "message", &message) || js_count(want) != 4) {
        snprintf(why, why_len, "expect.error states exactly kind, rule, pointer and message");
        return 0;
    }
    kind_text = js_string(kind, NULL);
    if (err) {
        mcpgen_error_count(err, &count);
        mcpgen_error_kind(err, 0, &k);
        mcpgen_error_rule(err, 0, &r);
        mcpgen_error_pointer(err, 0, &p);
        mcpgen_error_message(err, 0, &m);
        mcpgen_error_text(err, &text);
    }
    ok = kind_text && st == status_of_kind(kind_text) && count == 1 && str_or_null_is(k, kind) &&
         str_or_null_is(r, rule) && str_or_null_is(p, pointer) && str_or_null_is(m, message) &&
         str_or_null_is(text, message);
    if (!ok)
        snprintf(why, why_len, "expected the error %.*s, got %s (%zu entries): kind %.*s, rule %.*s, pointer %.*s, text %.*s",
                 (int)want.n, want.p, mcpgen_status_name(st), count, (int)k.len, k.ptr, (int)r.len, r.ptr, (int)p.len,
                 p.ptr, (int)text.len, text.ptr);
    free(kind_text);
    return ok;
}

/* A checker with the case's `limits` (set by name, as the vectors name them), or NULL (the
 * library's default checker) when it has none. A refused limit: returns 0 with its status and
 * error in *st and *err (the checker is freed). */
static int checker_for(js_span root, mcpgen_tool_checker **out, mcpgen_status *st, mcpgen_error **err) {
    js_span limits, key, val;
    const char *cursor = NULL;
    *out = NULL;
    *st = MCPGEN_OK;
    if (!js_get(root, "limits", &limits)) return 1;
    if (mcpgen_tool_checker_new(out) != MCPGEN_OK) return 0;
    while (js_next(limits, &cursor, &key, &val)) {
        size_t klen;
        char *name = js_string(key, &klen);
        unsigned long long n = strtoull(val.p, NULL, 10);
        *st = mcpgen_tool_checker_set_limit_by_name(*out, name, klen, n, err);
        free(name);
        if (*st != MCPGEN_OK) {
            mcpgen_tool_checker_free(*out);
            *out = NULL;
            return 0;
        }
    }
    return 1;
}

/* The JSON text of a case's `document` (as written), `document_text` or `document_nest`
 * (prefix + open x count + inner + close x count + suffix) into a new buffer (free() it), or
 * NULL when the case has none. */
static char *document_text(js_span root, size_t *len) {
    js_span v;
    if (js_get(root, "document", &v)) {
        char *out = (char *)malloc(v.n + 1);
        memcpy(out, v.p, v.n);
        out[v.n] = 0;
        *len = v.n;
        return out;
    }
    if (js_get(root, "document_text", &v)) return js_string(v, len);
    if (js_get(root, "document_nest", &v)) {
        char *prefix = get_string(v, "prefix"), *open = get_string(v, "open"), *inner = get_string(v, "inner");
        char *close = get_string(v, "close"), *suffix = get_string(v, "suffix"), *out;
        unsigned long long count = 0;
        size_t lp, lo, li, lc, ls, i, at = 0;
        get_u64(v, "count", &count);
        lp = prefix ? strlen(prefix) : 0;
        lo = open ? strlen(open) : 0;
        li = inner ? strlen(inner) : 0;
        lc = close ? strlen(close) : 0;
        ls = suffix ? strlen(suffix) : 0;
        out = (char *)malloc(lp + (lo + lc) * (size_t)count + li + ls + 1);
        memcpy(out + at, prefix ? prefix : "", lp);
        at += lp;
        for (i = 0; i < count; i++, at += lo) memcpy(out + at, open ? open : "", lo);
        memcpy(out + at, inner ? inner : "", li);
        at += li;
        for (i = 0; i < count; i++, at += lc) memcpy(out + at, close ? close : "", lc);
        memcpy(out + at, suffix ? suffix : "", ls);
        at += ls;
        out[at] = 0;
        *len = at;
        free(prefix);
        free(open);
        free(inner);
        free(close);
        free(suffix);
        return out;
    }
    return NULL;
}

/* Does entry `i` of `err` match the wanted error: kind; pointer (after `prefix`), uri, rule and
 * message exactly, message_contains, when given? */
static int entry_matches(const mcpgen_error *err, size_t i, const char *prefix, js_span want) {
    char *kind = get_string(want, "kind"), *pointer = get_string(want, "pointer"), *uri = get_string(want, "uri");
    char *rule = get_string(want, "rule"), *message = get_string(want, "message");
    char *contains_text = get_string(want, "message_contains");
    mcpgen_str k, p, u, r, m;
    size_t lp = strlen(prefix);
    int found;
    mcpgen_error_kind(err, i, &k);
    mcpgen_error_pointer(err, i, &p);
    mcpgen_error_uri(err, i, &u);
    mcpgen_error_rule(err, i, &r);
    mcpgen_error_message(err, i, &m);
    found = kind && str_eq_c(k, kind) &&
            (!pointer || (p.len == lp + strlen(pointer) && !memcmp(p.ptr, prefix, lp) && !memcmp(p.ptr + lp, pointer, p.len - lp))) &&
            (!uri || str_eq_c(u, uri)) && (!rule || str_eq_c(r, rule)) && (!message || str_eq_c(m, message)) &&
            (!contains_text || contains(m.ptr, m.len, contains_text, strlen(contains_text)));
    free(kind);
    free(pointer);
    free(uri);
    free(rule);
    free(message);
    free(contains_text);
    return found;
}

/* Does some entry of `err` match the wanted error? */
static int has_schema_error(const mcpgen_error *err, js_span want) {
    size_t count = 0, i;
    mcpgen_error_count(err, &count);
    for (i = 0; i < count; i++)
        if (entry_matches(err, i, "", want)) return 1;
    return 0;
}

/* `operation: check_tools`: the document error, or every report: the tool count, and the error
 * entries, which are the reports' errors in order with pointers into the document. */
static int run_check_tools(const mcpgen_tool_checker *checker, const char *text, size_t len, js_span expect, int want_ok,
                           char *why, size_t why_len) {
    js_span want_error, reports, report, errors, pattern, k1, k2;
    const char *c1 = NULL, *c2;
    mcpgen_error *err = NULL;
    size_t tools = 0, entries = 0, at = 0, n = 0;
    mcpgen_status st = mcpgen_check_tools(checker, (const uint8_t *)text, len, &tools, &err);
    int ok = 1;
    if (js_get(expect, "error", &want_error)) {
        ok = !want_ok && typed_error_is(st, err, want_error, why, why_len);
        mcpgen_error_free(err);
        return ok;
    }
    if (st != (want_ok ? MCPGEN_OK : MCPGEN_TOOL_SCHEMA_INVALID)) {
        mcpgen_str t = {"", 0};
        if (err) mcpgen_error_text(err, &t);
        snprintf(why, why_len, "check_tools gave %s: %.*s", mcpgen_status_name(st), (int)t.len, t.ptr);
        mcpgen_error_free(err);
        return 0;
    }
    if (err) mcpgen_error_count(err, &entries);
    if (js_get(expect, "reports", &reports)) {
        while (ok && js_next(reports, &c1, &k1, &report)) {
            char *pointer = get_string(report, "pointer");
            n++;
            c2 = NULL;
            if (!pointer || !js_get(report, "errors", &errors)) ok = 0;
            while (ok && js_next(errors, &c2, &k2, &pattern)) {
                ok = at < entries && entry_matches(err, at, pointer, pattern);
                if (!ok) snprintf(why, why_len, "report %s: entry %zu does not match %.*s", pointer, at, (int)pattern.n, pattern.p);
                at++;
            }
            free(pointer);
        }
        if (ok && (n != tools || at != entries)) {
            snprintf(why, why_len, "expected %zu tools and %zu problems, got %zu and %zu", n, at, tools, entries);
            ok = 0;
        }
    }
    mcpgen_error_free(err);
    return ok;
}

static mcpgen_status expected_call_status(const char *kind) {
    if (!kind || !strcmp(kind, "invalid")) return MCPGEN_INVALID;
    if (!strcmp(kind, "limit_exceeded")) return MCPGEN_LIMIT_EXCEEDED;
    if (!strcmp(kind, "schema")) return MCPGEN_TOOL_SCHEMA_INVALID;
    return MCPGEN_INTERNAL; /* unknown kind in a vector: never matches */
}

/* Some entry of `err` has `want` from `get`. */
static int any_entry_is(const mcpgen_error *err, mcpgen_status (*get)(const mcpgen_error *, size_t, mcpgen_str *),
                        const char *want) {
    size_t count = 0, i;
    mcpgen_error_count(err, &count);
    for (i = 0; i < count; i++) {
        mcpgen_str s;
        if (get(err, i, &s) == MCPGEN_OK && str_eq_c(s, want)) return 1;
    }
    return 0;
}

/* The `arguments` / `structured_content` cases of an accepted tool. */
static int run_instances(const mcpgen_tool_checker *checker, js_span tool, js_span root, const char *member, int output,
                         char *why, size_t why_len) {
    js_span list, item, key;
    const char *cursor = NULL;
    size_t i = 0;
    if (!js_get(root, member, &list)) return 1;
    for (; js_next(list, &cursor, &key, &item); i++) {
        js_span value;
        int present, want_ok = get_bool(item, "ok", &present);
        char *kind = get_string(item, "error"), *pointer = get_string(item, "pointer"), *keyword = get_string(item, "keyword");
        mcpgen_error *err = NULL;
        mcpgen_status st, want;
        int ok = 1;
        if (!js_get(item, "value", &value) || !present) {
            snprintf(why, why_len, "%s[%zu] needs value and ok", member, i);
            ok = 0;
        } else {
            st = output ? mcpgen_validate_structured_content(checker, (const uint8_t *)tool.p, tool.n,
                                                             (const uint8_t *)value.p, value.n, &err)
                        : mcpgen_validate_tool_arguments(checker, (const uint8_t *)tool.p, tool.n,
                                                         (const uint8_t *)value.p, value.n, &err);
            want = want_ok ? MCPGEN_OK : expected_call_status(kind);
            if (st != want) {
                mcpgen_str text = {"", 0};
                if (err) mcpgen_error_text(err, &text);
                snprintf(why, why_len, "%s[%zu]: %s, expected %s: %.*s", member, i, mcpgen_status_name(st),
                         mcpgen_status_name(want), (int)text.len, text.ptr);
                ok = 0;
            } else if (!want_ok && pointer && !any_entry_is(err, mcpgen_error_pointer, pointer)) {
                snprintf(why, why_len, "%s[%zu]: no error at pointer %s", member, i, pointer);
                ok = 0;
            } else if (!want_ok && keyword && !any_entry_is(err, mcpgen_error_keyword, keyword)) {
                snprintf(why, why_len, "%s[%zu]: no error from keyword %s", member, i, keyword);
                ok = 0;
            } else if (!want_ok && st == MCPGEN_INVALID &&
                       !any_entry_is(err, mcpgen_error_rule, output ? "TOOL-4" : "TOOL-5")) {
                snprintf(why, why_len, "%s[%zu]: no error carries rule %s", member, i, output ? "TOOL-4" : "TOOL-5");
                ok = 0;
            } else if ((st == MCPGEN_OK) != (err == NULL)) {
                snprintf(why, why_len, "%s[%zu]: error object on success or missing on failure", member, i);
                ok = 0;
            }
        }
        mcpgen_error_free(err);
        free(kind);
        free(pointer);
        free(keyword);
        if (!ok) return 0;
    }
    return 1;
}

static int run_tool_vector(void *user, js_span root, char *why, size_t why_len) {
    js_span tool, expect, errors, want, key, want_error;
    mcpgen_tool_checker *checker = NULL;
    mcpgen_error *err = NULL;
    mcpgen_status st;
    int present, want_ok, ok = 1, has_error;
    const char *cursor = NULL;
    char *op = get_string(root, "operation"), *text;
    size_t text_len = 0;
    (void)user;
    if (!js_get(root, "expect", &expect)) {
        snprintf(why, why_len, "needs expect");
        free(op);
        return 0;
    }
    want_ok = get_bool(expect, "ok", &present);
    has_error = js_get(expect, "error", &want_error);
    if (!present) {
        snprintf(why, why_len, "expect.ok must be a boolean");
        free(op);
        return 0;
    }
    if (!checker_for(root, &checker, &st, &err)) {
        ok = has_error && !want_ok && typed_error_is(st, err, want_error, why, why_len);
        if (!has_error) snprintf(why, why_len, "the limits were refused: %s", mcpgen_status_name(st));
        mcpgen_error_free(err);
        free(op);
        return ok;
    }
    text = document_text(root, &text_len);
    if (op && !strcmp(op, "check_tools")) {
        ok = text && run_check_tools(checker, text, text_len, expect, want_ok, why, why_len);
        if (!text) snprintf(why, why_len, "check_tools needs a document");
        free(text);
        free(op);
        mcpgen_tool_checker_free(checker);
        return ok;
    }
    if (op && strcmp(op, "check_tool")) {
        snprintf(why, why_len, "unknown operation %s", op);
        free(text);
        free(op);
        mcpgen_tool_checker_free(checker);
        return 0;
    }
    free(op);
    if (text) {
        tool.p = text;
        tool.n = text_len;
    } else if (!js_get(root, "tool", &tool)) {
        snprintf(why, why_len, "needs tool (or a document)");
        mcpgen_tool_checker_free(checker);
        return 0;
    }
    st = mcpgen_check_tool(checker, (const uint8_t *)tool.p, tool.n, &err);
    if (has_error) {
        ok = !want_ok && typed_error_is(st, err, want_error, why, why_len);
    } else if (want_ok && st != MCPGEN_OK) {
        mcpgen_str t = {"", 0};
        if (err) mcpgen_error_text(err, &t);
        snprintf(why, why_len, "expected the tool to be accepted, got %s: %.*s", mcpgen_status_name(st), (int)t.len,
                 t.ptr);
        ok = 0;
    } else if (!want_ok && st != MCPGEN_TOOL_SCHEMA_INVALID) {
        snprintf(why, why_len, "expected MCPGEN_TOOL_SCHEMA_INVALID, got %s", mcpgen_status_name(st));
        ok = 0;
    } else if (!want_ok) {
        if (!js_get(expect, "errors", &errors)) {
            snprintf(why, why_len, "a rejected case needs expect.errors");
            ok = 0;
        }
        while (ok && js_next(errors, &cursor, &key, &want)) {
            if (!has_schema_error(err, want)) {
                mcpgen_str t = {"", 0};
                mcpgen_error_text(err, &t);
                snprintf(why, why_len, "expected an error %.*s, got: %.*s", (int)want.n, want.p, (int)t.len, t.ptr);
                ok = 0;
            }
        }
    } else {
        ok = run_instances(checker, tool, root, "arguments", 0, why, why_len) &&
             run_instances(checker, tool, root, "structured_content", 1, why, why_len);
    }
    mcpgen_error_free(err);
    mcpgen_tool_checker_free(checker);
    free(text);
    return ok;
}

static void test_tool_vectors(const char *vectors) {
    printf("tool vectors: %zu run\n", run_vector_dir(vectors, "tools", run_tool_vector, NULL));
}

/* ---- vectors/icons ------------------------------------------------------------------------- */

/* A policy from a vector's `policy` object; NULL (the defaults) when `policy` is absent. */
static int policy_from(js_span obj, mcpgen_icon_policy **out, char *why, size_t why_len) {
    static const struct {
        const char *name;
        uint32_t option;
    } OPTIONS[] = {{"allow_http", MCPGEN_ICON_ALLOW_HTTP},
                   {"allow_svg", MCPGEN_ICON_ALLOW_SVG},
                   {"allow_webp", MCPGEN_ICON_ALLOW_WEBP},
                   {"allow_gif", MCPGEN_ICON_ALLOW_GIF}};
    js_span policy, key, val, origin, k2;
    const char *cursor = NULL;
    *out = NULL;
    if (!js_get(obj, "policy", &policy)) return 1;
    if (mcpgen_icon_policy_new(out) != MCPGEN_OK) return 0;
    while (js_next(policy, &cursor, &key, &val)) {
        size_t klen, i;
        char *name = js_string(key, &klen);
        int done = 0;
        for (i = 0; name && i < sizeof OPTIONS / sizeof OPTIONS[0]; i++) {
            if (!strcmp(name, OPTIONS[i].name)) {
                done = mcpgen_icon_policy_set(*out, OPTIONS[i].option, val.n == 4 && !memcmp(val.p, "true", 4)) == MCPGEN_OK;
            }
        }
        if (name && !strcmp(name, "max_bytes")) {
            unsigned long long n;
            done = get_u64(policy, "max_bytes", &n) && mcpgen_icon_policy_set_max_bytes(*out, (size_t)n) == MCPGEN_OK;
        }
        if (name && !strcmp(name, "trusted_origins")) {
            const char *c2 = NULL;
            done = 1;
            while (js_next(val, &c2, &k2, &origin)) {
                size_t olen;
                char *o = js_string(origin, &olen);
                done = done && o && mcpgen_icon_policy_add_trusted_origin(*out, o, olen) == MCPGEN_OK;
                free(o);
            }
        }
        if (!done) snprintf(why, why_len, "unknown or bad policy field %s", name ? name : "?");
        free(name);
        if (!done) return 0;
    }
    return 1;
}

static int run_icon_case(const mcpgen_icon_policy *file_policy, js_span c, char *why, size_t why_len) {
    mcpgen_icon_policy *own = NULL;
    const mcpgen_icon_policy *policy = file_policy;
    js_span expect, v, repeat;
    char *src = NULL, *mime = get_string(c, "mime_type"), *server = get_string(c, "server");
    char *want_kind = NULL, *want_image = NULL;
    unsigned char *bytes = NULL;
    size_t src_len = 0, bytes_len = 0;
    uint32_t image = 99;
    mcpgen_error *err = NULL;
    mcpgen_status st;
    int present, want_ok = 0, ok = 1;
    const char *mime_ptr = mime;
    size_t mime_len = mime ? strlen(mime) : 0;

    if (js_get(c, "policy", &v)) {
        if (!policy_from(c, &own, why, why_len)) ok = 0;
        policy = own;
    }
    if (!js_get(c, "expect", &expect)) {
        snprintf(why, why_len, "case has no expect");
        ok = 0;
    } else {
        want_ok = get_bool(expect, "ok", &present);
        want_kind = get_string(expect, "kind");
        want_image = get_string(expect, "image");
        if (!present) {
            snprintf(why, why_len, "expect.ok must be a boolean");
            ok = 0;
        }
    }
    if (ok && js_get(c, "src_repeat", &repeat)) {
        char *prefix = get_string(repeat, "prefix"), *unit = get_string(repeat, "unit");
        unsigned long long count = 0, i;
        size_t plen = prefix ? strlen(prefix) : 0, ulen = unit ? strlen(unit) : 0;
        get_u64(repeat, "count", &count);
        src = (char *)malloc(plen + ulen * count + 1);
        if (prefix) memcpy(src, prefix, plen);
        for (i = 0; i < count; i++) memcpy(src + plen + ulen * i, unit, ulen);
        src_len = plen + ulen * count;
        src[src_len] = 0;
        free(prefix);
        free(unit);
    } else if (ok && js_get(c, "src", &v)) {
        src = js_string(v, &src_len);
    } else if (ok && js_get(c, "bytes_base64", &v)) {
        char *b64 = js_string(v, &bytes_len);
        bytes = b64 ? base64_decode(b64, &bytes_len) : NULL;
        free(b64);
        if (!bytes) {
            snprintf(why, why_len, "bytes_base64 is not Base64");
            ok = 0;
        }
    } else if (ok && js_get(c, "bytes_text", &v)) {
        bytes = (unsigned char *)js_string(v, &bytes_len);
    } else if (ok) {
        snprintf(why, why_len, "an icon case needs src, bytes_base64 or bytes_text");
        ok = 0;
    }
    if (ok) {
        if (src) {
            st = mcpgen_check_icon(policy, src, src_len, mime_ptr, mime_len, &image, &err);
            if (st == MCPGEN_OK && server) {
                st = mcpgen_check_icon_origin(policy, src, src_len, server, strlen(server), &err);
            }
        } else {
            st = mcpgen_check_icon_bytes(policy, bytes, bytes_len, mime_ptr, mime_len, &image, &err);
        }
        if (want_ok && st != MCPGEN_OK) {
            mcpgen_str text = {"", 0};
            if (err) mcpgen_error_text(err, &text);
            snprintf(why, why_len, "expected acceptance, got %s: %.*s", mcpgen_status_name(st), (int)text.len, text.ptr);
            ok = 0;
        } else if (!want_ok && st != MCPGEN_ICON_REFUSED) {
            snprintf(why, why_len, "expected MCPGEN_ICON_REFUSED (%s), got %s", want_kind ? want_kind : "any",
                     mcpgen_status_name(st));
            ok = 0;
        } else if (!want_ok && want_kind && !any_entry_is(err, mcpgen_error_kind, want_kind)) {
            mcpgen_str text = {"", 0};
            mcpgen_error_text(err, &text);
            snprintf(why, why_len, "expected kind %s, got: %.*s", want_kind, (int)text.len, text.ptr);
            ok = 0;
        } else if (want_ok && want_image) {
            mcpgen_str got = {"(none)", 6};
            if (image != MCPGEN_IMAGE_NONE) mcpgen_image_mime(image, &got);
            if (!str_eq_c(got, want_image)) {
                snprintf(why, why_len, "expected image %s, got %.*s", want_image, (int)got.len, got.ptr);
                ok = 0;
            }
        }
    }
    mcpgen_error_free(err);
    mcpgen_icon_policy_free(own);
    free(src);
    free(bytes);
    free(mime);
    free(server);
    free(want_kind);
    free(want_image);
    return ok;
}

static void test_icon_vectors(const char *vectors) {
    char dir[1024];
    size_t n, i, total = 0;
    char **files;
    snprintf(dir, sizeof dir, "%s/icons", vectors);
    files = list_dir(dir, ".json", &n);
    CHECK(n > 0, "no vectors in %s", dir);
    for (i = 0; i < n; i++) {
        char path[2048], why[8192] = "";
        size_t len;
        char *text = NULL;
        js_span root, cases, key, c;
        const char *cursor = NULL;
        mcpgen_icon_policy *policy = NULL;
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        text = read_file(path, &len);
        CHECK(text != NULL, "cannot read %s", path);
        if (!text) continue;
        root = js_value((js_span){text, len});
        CHECK(policy_from(root, &policy, why, sizeof why), "%s: %s", files[i], why);
        CHECK(js_get(root, "cases", &cases) && js_count(cases) > 0, "%s: no cases", files[i]);
        while (js_next(cases, &cursor, &key, &c)) {
            char *name = get_string(c, "name");
            why[0] = 0;
            CHECK(run_icon_case(policy, c, why, sizeof why), "icon vector %s/%s: %s", files[i], name ? name : "?", why);
            free(name);
            total++;
        }
        mcpgen_icon_policy_free(policy);
        free(text);
    }
    free_list(files, n);
    printf("icon vectors: %zu cases in %zu files\n", total, n);
}

/* ---- API ----------------------------------------------------------------------------------- */

static const char TOOL[] = "{\"name\":\"add\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
                           "\"integer\"}},\"required\":[\"a\"]},\"outputSchema\":{\"type\":\"object\",\"properties\":{"
                           "\"sum\":{\"type\":\"integer\"}}}}";
static const char OPEN_TOOL[] = "{\"name\":\"ping\",\"inputSchema\":{\"type\":\"object\"}}";

static void test_null_and_hostile(void) {
    mcpgen_icon_policy *policy = NULL;
    mcpgen_error *err = NULL;
    uint64_t value = 1;
    uint32_t image = 7;
    size_t count = 9, deep = 100000, i;
    bool same = true;
    mcpgen_str s;
    char *nested;

    CHECK_STATUS(mcpgen_tool_checker_new(NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_tool_checker_set_limit(NULL, MCPGEN_TOOL_LIMIT_MAX_DEPTH, 3), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_tool_checker_set_limit_by_name(NULL, S("max_depth"), 3, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_tool_checker_set_validate_formats(NULL, true), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_tool_checker_cached(NULL, &count), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_tool_checker_get_limit(NULL, MCPGEN_TOOL_LIMIT_MAX_DEPTH, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_check_tool(NULL, NULL, 3, &err), MCPGEN_NULL_ARGUMENT);
    CHECK(err != NULL, "a NULL argument still yields an error object");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_check_tools(NULL, NULL, 0, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_validate_tool_arguments(NULL, NULL, 0, B("{}"), NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_validate_structured_content(NULL, B(TOOL), NULL, 5, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_icon_policy_new(NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_icon_policy_set(NULL, MCPGEN_ICON_ALLOW_SVG, true), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_icon_policy_set_max_bytes(NULL, 1), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_icon_policy_add_trusted_origin(NULL, S("https://a.example")), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_check_icon(NULL, NULL, 0, NULL, 0, &image, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK(image == 0, "image_out cleared on failure");
    CHECK_STATUS(mcpgen_check_icon_bytes(NULL, NULL, 1, NULL, 0, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_check_icon_origin(NULL, S("https://a.example/i.png"), NULL, 0, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_icon_same_origin(S("https://a"), S("https://a"), NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_image_sniff(B("x"), NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_image_mime(MCPGEN_IMAGE_PNG, NULL), MCPGEN_NULL_ARGUMENT);
    mcpgen_tool_checker_free(NULL);
    mcpgen_icon_policy_free(NULL);

    /* Out-of-range enums. */
    CHECK_STATUS(mcpgen_tool_checker_get_limit(NULL, 0, &value), MCPGEN_INVALID_ARGUMENT);
    CHECK_STATUS(mcpgen_tool_checker_get_limit(NULL, 10, &value), MCPGEN_INVALID_ARGUMENT);
    CHECK_STATUS(mcpgen_image_mime(MCPGEN_IMAGE_NONE, &s), MCPGEN_INVALID_ARGUMENT);
    CHECK_STATUS(mcpgen_image_mime(6, &s), MCPGEN_INVALID_ARGUMENT);
    CHECK_STATUS(mcpgen_icon_policy_new(&policy), MCPGEN_OK);
    CHECK_STATUS(mcpgen_icon_policy_set(policy, 0, true), MCPGEN_INVALID_ARGUMENT);
    CHECK_STATUS(mcpgen_icon_policy_add_trusted_origin(policy, "\xff", 1), MCPGEN_ARGUMENT_NOT_UTF8);
    mcpgen_icon_policy_free(policy);

    /* Bad JSON: statuses, never a crash; the text is the core's parse error. */
    CHECK_STATUS(mcpgen_check_tool(NULL, B("{\"name\":\"\xff\"}"), &err), MCPGEN_PARSE_ERROR);
    CHECK(err && mcpgen_error_message(err, 0, &s) == MCPGEN_OK &&
              str_eq_c(s, "invalid JSON at line 1 column 10 (byte 9): invalid UTF-8 (messages must be UTF-8)"),
          "the core's parse error: %.*s", err ? (int)s.len : 0, err ? s.ptr : "");
    CHECK(err && mcpgen_error_text(err, &s) == MCPGEN_OK && contains(s.ptr, s.len, S("invalid UTF-8")), "same text");
    CHECK(err && mcpgen_error_kind(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "parse"), "kind parse");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_check_tool(NULL, B("{\"name\":\"t\",\"inputSchema\":{"), NULL), MCPGEN_PARSE_ERROR);
    CHECK_STATUS(mcpgen_validate_tool_arguments(NULL, B(OPEN_TOOL), B("{\"a\":"), NULL), MCPGEN_PARSE_ERROR);
    CHECK_STATUS(mcpgen_check_tools(NULL, B("[1,"), NULL, NULL), MCPGEN_PARSE_ERROR);
    nested = (char *)malloc(deep * 2);
    for (i = 0; i < deep; i++) {
        nested[i] = '[';
        nested[deep * 2 - 1 - i] = ']';
    }
    /* A tool nested past the parser's limit is JSON: a tool problem (too_deep), not a parse
     * error; the syntax is still checked to the end. */
    CHECK_STATUS(mcpgen_check_tool(NULL, (const uint8_t *)nested, deep * 2, &err), MCPGEN_TOOL_SCHEMA_INVALID);
    CHECK(err && mcpgen_error_kind(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "too_deep"), "too_deep");
    CHECK(err && mcpgen_error_rule(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "JSCHEMA-8"), "JSCHEMA-8");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_check_tool(NULL, (const uint8_t *)nested, deep * 2 - 1, NULL), MCPGEN_PARSE_ERROR);
    CHECK_STATUS(mcpgen_check_tools(NULL, (const uint8_t *)nested, deep * 2, NULL, &err), MCPGEN_INVALID);
    CHECK(err && mcpgen_error_kind(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "not_a_tool_document"), "no tool document");
    mcpgen_error_free(err);
    /* Instances are read with the parser's own limit. */
    CHECK_STATUS(mcpgen_validate_tool_arguments(NULL, B(OPEN_TOOL), (const uint8_t *)nested, deep * 2, NULL),
                 MCPGEN_PARSE_ERROR);
    CHECK_STATUS(mcpgen_image_sniff((const uint8_t *)nested, deep * 2, &image), MCPGEN_OK);
    CHECK(image == MCPGEN_IMAGE_NONE, "brackets are no image");
    free(nested);
    CHECK_STATUS(mcpgen_icon_same_origin(S("https://a.example/x"), S("https://A.example:443/y"), &same), MCPGEN_OK);
    CHECK(same, "default port and case are normalised");
    CHECK_STATUS(mcpgen_icon_same_origin(S("https://a.example/x"), S("http://a.example/x"), &same), MCPGEN_OK);
    CHECK(!same, "scheme differs");
}

static void test_checker(void) {
    mcpgen_tool_checker *checker = NULL;
    mcpgen_error *err = NULL;
    size_t count = 99, tools = 0;
    uint64_t value = 0;
    mcpgen_str s;
    static const char LIST[] = "{\"tools\":[{\"name\":\"ok\",\"inputSchema\":{\"type\":\"object\"}},"
                               "{\"name\":\"bad\",\"inputSchema\":{\"$schema\":\"http://json-schema.org/draft-04/schema#\","
                               "\"type\":\"object\"}}]}";

    CHECK_STATUS(mcpgen_tool_checker_new(&checker), MCPGEN_OK);
    CHECK_STATUS(mcpgen_tool_checker_get_limit(checker, MCPGEN_TOOL_LIMIT_MAX_DEPTH, &value), MCPGEN_OK);
    CHECK(value == 64, "default max_depth is 64, got %llu", (unsigned long long)value);
    CHECK_STATUS(mcpgen_tool_checker_get_limit(NULL, MCPGEN_TOOL_LIMIT_MAX_STEPS, &value), MCPGEN_OK);
    CHECK(value == 1000000, "default max_steps");
    CHECK_STATUS(mcpgen_tool_checker_cached(checker, &count), MCPGEN_OK);
    CHECK(count == 0, "a new checker has an empty cache");

    /* Compiled once per tool. */
    CHECK_STATUS(mcpgen_validate_tool_arguments(checker, B(TOOL), B("{\"a\":1}"), NULL), MCPGEN_OK);
    CHECK_STATUS(mcpgen_validate_tool_arguments(checker, B(TOOL), B("{\"a\":2}"), NULL), MCPGEN_OK);
    CHECK_STATUS(mcpgen_validate_structured_content(checker, B(TOOL), B("{\"sum\":3}"), NULL), MCPGEN_OK);
    CHECK_STATUS(mcpgen_tool_checker_cached(checker, &count), MCPGEN_OK);
    CHECK(count == 1, "one tool, one compiled entry (got %zu)", count);
    CHECK_STATUS(mcpgen_check_tool(checker, B(OPEN_TOOL), NULL), MCPGEN_OK);
    CHECK_STATUS(mcpgen_tool_checker_cached(checker, &count), MCPGEN_OK);
    CHECK(count == 2, "two tools (got %zu)", count);

    /* Invalid arguments: pointer into the instance, keyword, rule TOOL-5. */
    CHECK_STATUS(mcpgen_validate_tool_arguments(checker, B(TOOL), B("{\"a\":\"x\"}"), &err), MCPGEN_INVALID);
    CHECK(err && mcpgen_error_pointer(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "/a"), "pointer /a");
    CHECK(err && mcpgen_error_keyword(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "type"), "keyword type");
    CHECK(err && mcpgen_error_rule(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "TOOL-5"), "rule TOOL-5");
    CHECK(err && mcpgen_error_kind(err, 0, &s) == MCPGEN_OK && s.len == 0, "validation entries have no kind");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_validate_structured_content(checker, B(TOOL), B("{\"sum\":1.5}"), &err), MCPGEN_INVALID);
    CHECK(err && mcpgen_error_rule(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "TOOL-4"), "rule TOOL-4");
    mcpgen_error_free(err);
    /* No arguments at all: validated as {}. */
    CHECK_STATUS(mcpgen_validate_tool_arguments(checker, B(TOOL), NULL, 0, &err), MCPGEN_INVALID);
    CHECK(err && mcpgen_error_keyword(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "required"), "a missing `a`");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_validate_tool_arguments(checker, B(OPEN_TOOL), NULL, 0, NULL), MCPGEN_OK);
    /* A tool without outputSchema accepts any structured content. */
    CHECK_STATUS(mcpgen_validate_structured_content(checker, B(OPEN_TOOL), B("[1,\"x\"]"), NULL), MCPGEN_OK);

    /* A limit change empties the cache and applies. */
    CHECK_STATUS(mcpgen_tool_checker_set_limit(checker, MCPGEN_TOOL_LIMIT_MAX_DEPTH, 0), MCPGEN_OK);
    CHECK_STATUS(mcpgen_tool_checker_cached(checker, &count), MCPGEN_OK);
    CHECK(count == 0, "set_limit empties the cache");
    CHECK_STATUS(mcpgen_check_tool(checker, B(TOOL), &err), MCPGEN_TOOL_SCHEMA_INVALID);
    CHECK(err && mcpgen_error_kind(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "too_deep"), "too_deep at max_depth 0");
    CHECK(err && mcpgen_error_rule(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "JSCHEMA-8"), "rule JSCHEMA-8");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_validate_tool_arguments(checker, B(TOOL), B("{\"a\":1}"), NULL), MCPGEN_TOOL_SCHEMA_INVALID);

    /* A tools/list result: every tool checked, pointers into the document. */
    CHECK_STATUS(mcpgen_check_tools(NULL, B(LIST), &tools, &err), MCPGEN_TOOL_SCHEMA_INVALID);
    CHECK(tools == 2, "two tools counted (got %zu)", tools);
    CHECK(err && mcpgen_error_count(err, &count) == MCPGEN_OK && count == 1, "one problem");
    CHECK(err && mcpgen_error_pointer(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "/tools/1/inputSchema/$schema"),
          "pointer into the list: %.*s", err ? (int)s.len : 0, err ? s.ptr : "");
    CHECK(err && mcpgen_error_uri(err, 0, &s) == MCPGEN_OK && contains(s.ptr, s.len, S("draft-04")), "uri names it");
    CHECK(err && mcpgen_error_kind(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "unsupported_dialect"), "kind");
    CHECK(err && mcpgen_error_text(err, &s) == MCPGEN_OK && contains(s.ptr, s.len, S("JSCHEMA-3")), "text has the rule");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_check_tools(NULL, B("{\"tools\":[]}"), &tools, NULL), MCPGEN_OK);
    CHECK(tools == 0, "an empty list");
    CHECK_STATUS(mcpgen_check_tools(NULL, B("{\"x\":1}"), NULL, NULL), MCPGEN_INVALID);

    /* Limits by name: the core's names, its typed error for an unknown one. */
    CHECK_STATUS(mcpgen_tool_checker_set_limit_by_name(checker, S("max_depth"), 7, NULL), MCPGEN_OK);
    CHECK_STATUS(mcpgen_tool_checker_get_limit(checker, MCPGEN_TOOL_LIMIT_MAX_DEPTH, &value), MCPGEN_OK);
    CHECK(value == 7, "set by name, read by enum (got %llu)", (unsigned long long)value);
    CHECK_STATUS(mcpgen_tool_checker_set_limit_by_name(checker, S("max_dept"), 7, &err), MCPGEN_INVALID_ARGUMENT);
    CHECK(err && mcpgen_error_kind(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "unknown_limit"), "kind unknown_limit");
    CHECK(err && mcpgen_error_text(err, &s) == MCPGEN_OK && contains(s.ptr, s.len, S("unknown limit `max_dept`")),
          "the core's message");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_tool_checker_set_limit_by_name(checker, "max_\xff", 5, 1, NULL), MCPGEN_ARGUMENT_NOT_UTF8);
    CHECK_STATUS(mcpgen_tool_checker_get_limit(checker, MCPGEN_TOOL_LIMIT_MAX_DEPTH, &value), MCPGEN_OK);
    CHECK(value == 7, "a refused limit changes nothing");
    mcpgen_tool_checker_free(checker);
}

static void test_icons(void) {
    static const char PNG_DATA[] = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4"
                                   "nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII=";
    static const unsigned char PNG[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
    static const char SVG[] = "<svg xmlns=\"http://www.w3.org/2000/svg\"/>";
    mcpgen_icon_policy *policy = NULL;
    mcpgen_error *err = NULL;
    uint32_t image = 99;
    mcpgen_str s;

    CHECK_STATUS(mcpgen_check_icon(NULL, S(PNG_DATA), NULL, 0, &image, NULL), MCPGEN_OK);
    CHECK(image == MCPGEN_IMAGE_PNG, "a PNG data URI");
    CHECK_STATUS(mcpgen_check_icon(NULL, S("https://example.com/i.png"), S("image/png"), &image, NULL), MCPGEN_OK);
    CHECK(image == MCPGEN_IMAGE_NONE, "a remote icon has no image yet");
    CHECK_STATUS(mcpgen_check_icon(NULL, S("javascript:alert(1)"), NULL, 0, &image, &err), MCPGEN_ICON_REFUSED);
    CHECK(err && mcpgen_error_kind(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "scheme_not_allowed"), "javascript:");
    CHECK(err && mcpgen_error_protocol_rule(err, &s) == MCPGEN_OK && str_eq_c(s, "ICON-3"), "rule ICON-3");
    mcpgen_error_free(err);
    /* A PNG labelled as JPEG. */
    CHECK_STATUS(mcpgen_check_icon_bytes(NULL, PNG, sizeof PNG, S("image/jpeg"), &image, &err), MCPGEN_ICON_REFUSED);
    CHECK(err && mcpgen_error_kind(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "type_mismatch"), "type_mismatch");
    CHECK(err && mcpgen_error_rule(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "ICON-8"), "rule ICON-8");
    mcpgen_error_free(err);
    /* SVG only when allowed, and then reported as SVG (active content). */
    CHECK_STATUS(mcpgen_check_icon_bytes(NULL, B(SVG), S("image/svg+xml"), &image, NULL), MCPGEN_ICON_REFUSED);
    CHECK_STATUS(mcpgen_icon_policy_new(&policy), MCPGEN_OK);
    CHECK_STATUS(mcpgen_icon_policy_set(policy, MCPGEN_ICON_ALLOW_SVG, true), MCPGEN_OK);
    CHECK_STATUS(mcpgen_check_icon_bytes(policy, B(SVG), S("image/svg+xml"), &image, NULL), MCPGEN_OK);
    CHECK(image == MCPGEN_IMAGE_SVG, "SVG sniffed");
    CHECK_STATUS(mcpgen_icon_policy_set_max_bytes(policy, 4), MCPGEN_OK);
    CHECK_STATUS(mcpgen_check_icon_bytes(policy, B(SVG), NULL, 0, &image, &err), MCPGEN_ICON_REFUSED);
    CHECK(err && mcpgen_error_kind(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "too_large"), "size cap");
    mcpgen_error_free(err);
    /* Origins. */
    CHECK_STATUS(mcpgen_check_icon_origin(policy, S("https://cdn.example/i.png"), S("https://mcp.example/mcp"), &err),
                 MCPGEN_ICON_REFUSED);
    CHECK(err && mcpgen_error_kind(err, 0, &s) == MCPGEN_OK && str_eq_c(s, "cross_origin"), "cross_origin");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_icon_policy_add_trusted_origin(policy, S("https://cdn.example")), MCPGEN_OK);
    CHECK_STATUS(mcpgen_check_icon_origin(policy, S("https://cdn.example/i.png"), S("https://mcp.example/mcp"), NULL),
                 MCPGEN_OK);
    mcpgen_icon_policy_free(policy);
    CHECK_STATUS(mcpgen_image_mime(MCPGEN_IMAGE_JPEG, &s), MCPGEN_OK);
    CHECK(str_is(s, "image/jpeg"), "jpeg mime");
}

/* ---- opt-in fetching (JSCHEMA-6), without a network: a fake resolver and a fake fetcher ---- */

typedef struct fake_net {
    int fetches;
    char seen_addr[64];
    unsigned seen_port;
    const char *body;
    int fail;
    mcpgen_status append_status;
} fake_net;

static int fake_fetch(void *user_data, const mcpgen_fetch_request *request, mcpgen_buffer *body) {
    fake_net *net = (fake_net *)user_data;
    net->fetches++;
    net->seen_port = request->port;
    if (request->addr_count > 0 && request->addrs[0].len < sizeof net->seen_addr) {
        memcpy(net->seen_addr, request->addrs[0].ptr, request->addrs[0].len + 1);
    }
    if (net->fail) return 7;
    /* The status is recorded, not obeyed: the library must refuse an oversized body itself. */
    net->append_status = mcpgen_buffer_append(body, (const uint8_t *)net->body, strlen(net->body));
    return 0;
}

static int fake_resolve(void *user_data, const char *host, size_t host_len, uint16_t port, mcpgen_addresses *out) {
    (void)user_data;
    (void)port;
    if (host_len == strlen("schemas.example.com") && !memcmp(host, "schemas.example.com", host_len)) {
        return mcpgen_addresses_add(out, S("93.184.216.34")) != MCPGEN_OK;
    }
    if (host_len == strlen("evil.example.net") && !memcmp(host, "evil.example.net", host_len)) {
        return mcpgen_addresses_add(out, S("93.184.216.35")) != MCPGEN_OK;
    }
    if (host_len == strlen("mixed.example.com") && !memcmp(host, "mixed.example.com", host_len)) {
        /* One public address is not enough: every address must be public. */
        return mcpgen_addresses_add(out, S("93.184.216.34")) != MCPGEN_OK ||
               mcpgen_addresses_add(out, S("10.1.2.3")) != MCPGEN_OK;
    }
    return 1; /* unknown name */
}

/* Checks a tool whose inputSchema has `properties.x.$ref = uri` with `checker`; returns the
 * status and, on refusal, copies the first entry's kind and message. */
static mcpgen_status check_ref(const mcpgen_tool_checker *checker, const char *uri, char *kind, char *message, size_t cap) {
    char tool[512];
    mcpgen_error *err = NULL;
    mcpgen_status st;
    int n = snprintf(tool, sizeof tool,
                     "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"x\":{\"$ref\":\"%s\"}}}}", uri);
    kind[0] = message[0] = 0;
    st = mcpgen_check_tool(checker, (const uint8_t *)tool, (size_t)n, &err);
    if (err) {
        mcpgen_str k = {"", 0}, m = {"", 0};
        mcpgen_error_kind(err, 0, &k);
        mcpgen_error_message(err, 0, &m);
        snprintf(kind, cap, "%.*s", (int)k.len, k.ptr);
        snprintf(message, cap, "%.*s", (int)m.len, m.ptr);
    }
    mcpgen_error_free(err);
    return st;
}

static size_t fetched_count(const mcpgen_tool_checker *checker, const char *want_first) {
    mcpgen_strings *list = NULL;
    mcpgen_str first;
    size_t n = 0;
    CHECK_STATUS(mcpgen_tool_checker_fetched(checker, &list), MCPGEN_OK);
    mcpgen_strings_count(list, &n);
    if (want_first && n > 0) {
        CHECK(mcpgen_strings_get(list, 0, &first) == MCPGEN_OK && str_is(first, want_first), "fetch log names %s", want_first);
    }
    mcpgen_strings_free(list);
    return n;
}

static void test_fetcher(void) {
    static const char *const LITERALS[] = {"127.0.0.1",   "127.1.2.3",   "[::1]",          "169.254.169.254",
                                           "10.0.0.8",    "192.168.1.1", "172.16.0.1",     "172.31.255.254",
                                           "0.0.0.0",     "[fe80::1]",   "[fd00::1]",      "[::ffff:127.0.0.1]",
                                           "100.64.0.1"};
    fake_net net;
    mcpgen_tool_checker *checker = NULL;
    char kind[256], message[1024], uri[256];
    size_t i;
    static const char SCHEMAS_URI[] = "https://schemas.example.com/s.json";
    static const char TOOL_WITH_REF[] = "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"x\":{\"$ref\":"
                                        "\"https://schemas.example.com/s.json\"}}}}";

    memset(&net, 0, sizeof net);
    net.body = "{\"type\":\"string\"}";
    CHECK_STATUS(mcpgen_tool_checker_new(&checker), MCPGEN_OK);
    /* Off by default: network_ref, nothing fetched. */
    CHECK(check_ref(checker, SCHEMAS_URI, kind, message, sizeof kind) == MCPGEN_TOOL_SCHEMA_INVALID &&
              !strcmp(kind, "network_ref"),
          "fetching is off by default (%s)", kind);
    CHECK_STATUS(mcpgen_tool_checker_set_fetcher(checker, fake_fetch, fake_resolve, &net), MCPGEN_OK);

    /* Private, loopback, link-local… addresses: refused before any connection. */
    for (i = 0; i < sizeof LITERALS / sizeof LITERALS[0]; i++) {
        snprintf(uri, sizeof uri, "https://%s/s.json", LITERALS[i]);
        CHECK(check_ref(checker, uri, kind, message, sizeof kind) == MCPGEN_TOOL_SCHEMA_INVALID &&
                  !strcmp(kind, "ref_refused") && strstr(message, "address") != NULL,
              "%s must be refused for its address (kind %s: %s)", LITERALS[i], kind, message);
    }
    CHECK(check_ref(checker, "https://mixed.example.com/s.json", kind, message, sizeof kind) ==
                  MCPGEN_TOOL_SCHEMA_INVALID &&
              strstr(message, "private") != NULL,
          "a name with one private address is refused (%s)", message);
    CHECK(check_ref(checker, "https://unknown.example.org/s.json", kind, message, sizeof kind) ==
                  MCPGEN_TOOL_SCHEMA_INVALID &&
              !strcmp(kind, "ref_refused"),
          "a name the resolver fails on is refused (%s)", message);
    CHECK(net.fetches == 0, "no fetch for refused addresses (got %d)", net.fetches);
    CHECK(fetched_count(checker, NULL) == 0, "nothing logged");

    /* Allowlist and scheme, still without fetching. */
    CHECK_STATUS(mcpgen_tool_checker_allow_host(checker, S("schemas.example.com")), MCPGEN_OK);
    CHECK(check_ref(checker, "https://evil.example.net/s.json", kind, message, sizeof kind) ==
                  MCPGEN_TOOL_SCHEMA_INVALID &&
              strstr(message, "allowlist") != NULL,
          "host outside the allowlist (%s)", message);
    CHECK(check_ref(checker, "http://schemas.example.com/s.json", kind, message, sizeof kind) ==
                  MCPGEN_TOOL_SCHEMA_INVALID &&
              strstr(message, "scheme") != NULL,
          "plain http refused (%s)", message);
    CHECK(net.fetches == 0, "still no fetch");

    /* An allowed public host: fetched once, on the vetted address, logged, and used. */
    CHECK_STATUS(mcpgen_validate_tool_arguments(checker, B(TOOL_WITH_REF), B("{\"x\":\"s\"}"), NULL), MCPGEN_OK);
    CHECK_STATUS(mcpgen_validate_tool_arguments(checker, B(TOOL_WITH_REF), B("{\"x\":1}"), NULL), MCPGEN_INVALID);
    CHECK(net.fetches == 1, "fetched once, then cached (got %d)", net.fetches);
    CHECK(!strcmp(net.seen_addr, "93.184.216.34") && net.seen_port == 443, "the fetcher got the vetted address %s:%u",
          net.seen_addr, net.seen_port);
    CHECK(fetched_count(checker, SCHEMAS_URI) == 1, "one URI logged");

    /* A failing fetch, then a body over the cap. */
    net.fail = 1;
    CHECK_STATUS(mcpgen_tool_checker_set_fetch_options(checker, false, 2000, 1 << 20), MCPGEN_OK);
    CHECK(check_ref(checker, SCHEMAS_URI, kind, message, sizeof kind) == MCPGEN_TOOL_SCHEMA_INVALID &&
              strstr(message, "returned 7") != NULL,
          "a failed fetch is refused (%s)", message);
    net.fail = 0;
    CHECK_STATUS(mcpgen_tool_checker_set_fetch_options(checker, false, 2000, 8), MCPGEN_OK);
    CHECK(check_ref(checker, SCHEMAS_URI, kind, message, sizeof kind) == MCPGEN_TOOL_SCHEMA_INVALID &&
              !strcmp(kind, "ref_refused"),
          "a body over the cap is refused (%s)", message);
    CHECK(net.append_status == MCPGEN_LIMIT_EXCEEDED, "append says to stop past the cap");
    CHECK_STATUS(mcpgen_tool_checker_set_fetch_options(checker, true, 0, 8), MCPGEN_INVALID_ARGUMENT);

    /* Back to never fetching. */
    CHECK_STATUS(mcpgen_tool_checker_set_fetcher(checker, NULL, NULL, NULL), MCPGEN_OK);
    CHECK(check_ref(checker, SCHEMAS_URI, kind, message, sizeof kind) == MCPGEN_TOOL_SCHEMA_INVALID &&
              !strcmp(kind, "network_ref"),
          "fetching off again (%s)", kind);
    CHECK(fetched_count(checker, NULL) == 0, "no log when fetching is off");

    /* NULL arguments. */
    CHECK_STATUS(mcpgen_tool_checker_set_fetcher(NULL, fake_fetch, NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_tool_checker_allow_host(NULL, S("a")), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_tool_checker_allow_host(checker, NULL, 1), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_tool_checker_set_fetch_options(NULL, false, 1, 1), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_tool_checker_fetched(checker, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_tool_checker_fetched(NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_buffer_append(NULL, B("x")), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_addresses_add(NULL, S("127.0.0.1")), MCPGEN_NULL_ARGUMENT);
    mcpgen_tool_checker_free(checker);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
        return 2;
    }
    test_null_and_hostile();
    test_checker();
    test_icons();
    test_fetcher();
    test_tool_vectors(argv[1]);
    test_icon_vectors(argv[1]);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
