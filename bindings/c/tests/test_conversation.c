/* The conversation API of libmcpgen: the vectors of vectors/conversations/ with the same
 * verdicts as the Rust runner (mcpgen/tests/conversations.rs), and every call's handling of
 * NULL pointers, bad sender values, findings objects and levels.
 *
 * Usage: test_conversation VECTORS_DIR   (VECTORS_DIR = vectors/)
 * A vector is `<name>.jsonl` (one `{"from", "message"|"raw", "session"?}` per line) and
 * `<name>.expect.json` (`findings`: the multiset of (line, rule, level, pointer) expected; every
 * other line has none). One conversation per session id, each line's `message` passed as its
 * exact text, `raw` as its unescaped bytes.
 * Exit status 0 only when every check passed; each failure is printed with its location. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpgen.h"
#include "jsonscan.h"
#include "testutil.h"

/* One finding: line, rule ("" for none), level name, pointer. */
typedef struct finding {
    size_t line;
    char *rule;
    char *level;
    char *pointer;
    int matched;
} finding;

typedef struct findings {
    finding *items;
    size_t n, cap;
} findings;

static char *dup_n(const char *p, size_t n) {
    char *s = (char *)malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

static void push(findings *f, size_t line, char *rule, char *level, char *pointer) {
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 16;
        finding *grown = (finding *)realloc(f->items, cap * sizeof *grown);
        if (!grown) abort();
        f->items = grown;
        f->cap = cap;
    }
    f->items[f->n].line = line;
    f->items[f->n].rule = rule;
    f->items[f->n].level = level;
    f->items[f->n].pointer = pointer;
    f->items[f->n].matched = 0;
    f->n++;
}

static void findings_free(findings *f) {
    size_t i;
    for (i = 0; i < f->n; i++) {
        free(f->items[i].rule);
        free(f->items[i].level);
        free(f->items[i].pointer);
    }
    free(f->items);
    f->items = NULL;
    f->n = f->cap = 0;
}

static int same(const finding *a, const finding *b) {
    return a->line == b->line && strcmp(a->rule, b->rule) == 0 && strcmp(a->level, b->level) == 0 &&
           strcmp(a->pointer, b->pointer) == 0;
}

/* The conversations of one vector, by session id ("" with no `session` is kept apart from a
 * `session` of "" by `has_id`). */
typedef struct session {
    char *id;
    size_t id_len;
    int has_id;
    mcpgen_conversation *conversation;
} session;

typedef struct sessions {
    session items[64];
    size_t n;
} sessions;

static mcpgen_conversation *session_get(sessions *s, int has_id, const char *id, size_t id_len) {
    size_t i;
    for (i = 0; i < s->n; i++)
        if (s->items[i].has_id == has_id && s->items[i].id_len == id_len && memcmp(s->items[i].id, id, id_len) == 0)
            return s->items[i].conversation;
    if (s->n == sizeof s->items / sizeof s->items[0]) return NULL;
    s->items[s->n].id = dup_n(id, id_len);
    s->items[s->n].id_len = id_len;
    s->items[s->n].has_id = has_id;
    s->items[s->n].conversation = NULL;
    if (mcpgen_conversation_new(NULL, &s->items[s->n].conversation) != MCPGEN_OK) return NULL;
    return s->items[s->n++].conversation;
}

static void sessions_free(sessions *s) {
    size_t i;
    for (i = 0; i < s->n; i++) {
        free(s->items[i].id);
        mcpgen_conversation_free(s->items[i].conversation);
    }
    s->n = 0;
}

/* A getter's string as a new C string. */
static char *entry_str(const mcpgen_error *e, size_t i, mcpgen_status (*get)(const mcpgen_error *, size_t, mcpgen_str *)) {
    mcpgen_str s;
    if (get(e, i, &s) != MCPGEN_OK) return dup_n("<getter failed>", 15);
    return dup_n(s.ptr, s.len);
}

/* Replays `jsonl` into `got`; 0 with the reason in `why` when a line is not a conversation line. */
static int replay(const char *text, size_t len, findings *got, char *why, size_t why_len) {
    sessions s;
    const char *p = text, *end = text + len;
    size_t line = 0;
    int ok = 1;
    s.n = 0;
    while (p < end && ok) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        js_span row = {p, (size_t)(stop - p)}, from, message, raw, sess;
        mcpgen_conversation *conv;
        mcpgen_error *err = NULL;
        uint32_t sender;
        mcpgen_status st;
        size_t count = 0, i;
        line++;
        p = nl ? nl + 1 : end;
        if (js_ws(row.p, row.p + row.n) == row.p + row.n) continue; /* blank lines are skipped */
        row = js_value(row);
        if (js_kind(row) != '{' || !js_get(row, "from", &from)) {
            snprintf(why, why_len, "line %zu: not a conversation line", line);
            ok = 0;
            break;
        }
        {
            size_t n;
            char *f = js_string(from, &n);
            sender = f && strcmp(f, "client") == 0 ? MCPGEN_SENDER_CLIENT
                     : f && strcmp(f, "server") == 0 ? MCPGEN_SENDER_SERVER
                                                      : 0;
            free(f);
        }
        if (js_get(row, "session", &sess)) {
            size_t n;
            char *id = js_string(sess, &n);
            conv = session_get(&s, 1, id ? id : "", id ? n : 0);
            free(id);
        } else {
            conv = session_get(&s, 0, "", 0);
        }
        if (!conv || sender == 0) {
            snprintf(why, why_len, "line %zu: bad `from` or too many sessions", line);
            ok = 0;
            break;
        }
        if (js_get(row, "message", &message)) {
            st = mcpgen_conversation_observe(conv, sender, (const uint8_t *)message.p, message.n, &err);
        } else if (js_get(row, "raw", &raw)) {
            size_t n;
            char *bytes = js_string(raw, &n);
            st = mcpgen_conversation_observe(conv, sender, (const uint8_t *)bytes, n, &err);
            free(bytes);
        } else {
            snprintf(why, why_len, "line %zu: neither `message` nor `raw`", line);
            ok = 0;
            break;
        }
        if (st != MCPGEN_OK && st != MCPGEN_INVALID && st != MCPGEN_PROTOCOL_VIOLATION) {
            snprintf(why, why_len, "line %zu: observe gave %s", line, mcpgen_status_name(st));
            ok = 0;
        }
        if (err) {
            int any_error = 0, any_schema_error = 0;
            CHECK(mcpgen_error_count(err, &count) == MCPGEN_OK && count > 0, "line %zu: a findings object has entries", line);
            for (i = 0; i < count; i++) {
                uint32_t level = 0;
                char *rule;
                CHECK_STATUS(mcpgen_error_level(err, i, &level), MCPGEN_OK);
                CHECK(level == MCPGEN_LEVEL_ERROR || level == MCPGEN_LEVEL_WARNING, "line %zu: level %u", line, (unsigned)level);
                rule = entry_str(err, i, mcpgen_error_rule);
                {
                    /* Every finding names the era and revision its message was judged under. */
                    char *era = entry_str(err, i, mcpgen_error_era), *rev = entry_str(err, i, mcpgen_error_revision);
                    CHECK(strcmp(era, "modern") == 0 || strcmp(era, "legacy") == 0, "line %zu: era `%s`", line, era);
                    CHECK(rev[0] != 0, "line %zu: a finding without its revision", line);
                    free(era);
                    free(rev);
                }
                if (level == MCPGEN_LEVEL_ERROR) {
                    any_error = 1;
                    if (rule[0] == 0) any_schema_error = 1;
                }
                push(got, line, rule, dup_n(level == MCPGEN_LEVEL_ERROR ? "error" : "warning", level == MCPGEN_LEVEL_ERROR ? 5 : 7),
                     entry_str(err, i, mcpgen_error_pointer));
            }
            /* The status summarises the findings. */
            CHECK(st == (any_schema_error ? MCPGEN_INVALID : any_error ? MCPGEN_PROTOCOL_VIOLATION : MCPGEN_OK),
                  "line %zu: status %s for its findings", line, mcpgen_status_name(st));
            mcpgen_error_free(err);
        } else {
            CHECK(st == MCPGEN_OK, "line %zu: %s without a findings object", line, mcpgen_status_name(st));
        }
    }
    sessions_free(&s);
    return ok;
}

static int run_vector(const char *dir, const char *name, char *why, size_t why_len) {
    char path[2048];
    size_t len, elen, i, j;
    char *text, *expect_text;
    js_span expect, list, item;
    const char *cur = NULL;
    findings want = {NULL, 0, 0}, got = {NULL, 0, 0};
    int ok;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    text = read_file(path, &len);
    snprintf(path, sizeof path, "%s/%.*s.expect.json", dir, (int)(strlen(name) - 6), name);
    expect_text = read_file(path, &elen);
    if (!text || !expect_text) {
        snprintf(why, why_len, "cannot read the vector or %s", path);
        free(text);
        free(expect_text);
        return 0;
    }
    expect = js_value((js_span){expect_text, elen});
    ok = js_get(expect, "findings", &list) && js_kind(list) == '[';
    if (!ok) snprintf(why, why_len, "%s: no findings array", path);
    while (ok && js_next(list, &cur, &item, &item)) {
        js_span line, rule, level, pointer;
        size_t n;
        char *line_text;
        if (!js_get(item, "line", &line) || !js_get(item, "rule", &rule) || !js_get(item, "level", &level) ||
            !js_get(item, "pointer", &pointer)) {
            snprintf(why, why_len, "%s: a finding lacks line, rule, level or pointer", path);
            ok = 0;
            break;
        }
        line_text = dup_n(line.p, line.n);
        push(&want, (size_t)strtoul(line_text, NULL, 10), js_kind(rule) == 'n' ? dup_n("", 0) : js_string(rule, &n),
             js_string(level, &n), js_string(pointer, &n));
        free(line_text);
    }
    if (ok) ok = replay(text, len, &got, why, why_len);
    if (ok) {
        /* Multiset equality. */
        for (i = 0; i < got.n; i++)
            for (j = 0; j < want.n; j++)
                if (!want.items[j].matched && same(&got.items[i], &want.items[j])) {
                    want.items[j].matched = got.items[i].matched = 1;
                    break;
                }
        for (i = 0; i < got.n && ok; i++)
            if (!got.items[i].matched) {
                snprintf(why, why_len, "unexpected finding: line %zu rule '%s' %s at '%s'", got.items[i].line,
                         got.items[i].rule, got.items[i].level, got.items[i].pointer);
                ok = 0;
            }
        for (j = 0; j < want.n && ok; j++)
            if (!want.items[j].matched) {
                snprintf(why, why_len, "missing finding: line %zu rule '%s' %s at '%s'", want.items[j].line,
                         want.items[j].rule, want.items[j].level, want.items[j].pointer);
                ok = 0;
            }
    }
    findings_free(&want);
    findings_free(&got);
    free(text);
    free(expect_text);
    return ok;
}

static void test_vectors(const char *vectors) {
    char dir[1024];
    size_t n, i;
    char **files;
    snprintf(dir, sizeof dir, "%s/conversations", vectors);
    files = list_dir(dir, ".jsonl", &n);
    CHECK(n > 0, "no conversation vectors in %s", dir);
    for (i = 0; i < n; i++) {
        char why[8192] = "";
        CHECK(run_vector(dir, files[i], why, sizeof why), "conversation vector %s: %s", files[i], why);
    }
    printf("conversation vectors: %zu\n", n);
    free_list(files, n);
}

/* ---- the calls themselves ---------------------------------------------------------------- */

static void test_calls(void) {
    mcpgen_conversation *c = (mcpgen_conversation *)&c; /* not NULL: must be cleared */
    mcpgen_error *err = (mcpgen_error *)&err;
    mcpgen_revision rev = 99;
    mcpgen_str s;
    size_t count = 0;
    uint32_t level = 99;
    mcpgen_context *ctx = NULL;

    CHECK_STATUS(mcpgen_conversation_new(NULL, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_conversation_new(NULL, &c), MCPGEN_OK);
    CHECK(c != NULL, "a new conversation");
    CHECK_STATUS(mcpgen_conversation_revision(c, &rev), MCPGEN_OK);
    CHECK(rev == 0, "no revision before any message, got %u", (unsigned)rev);
    CHECK_STATUS(mcpgen_conversation_revision(c, NULL), MCPGEN_NULL_ARGUMENT);
    CHECK_STATUS(mcpgen_conversation_revision(NULL, &rev), MCPGEN_NULL_ARGUMENT);

    /* Call errors: the message is not observed, the error object says why. */
    CHECK_STATUS(mcpgen_conversation_observe(NULL, MCPGEN_SENDER_CLIENT, B("{}"), &err), MCPGEN_NULL_ARGUMENT);
    CHECK(err != NULL, "a call error comes with an error object");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_conversation_observe(c, 0, B("{}"), &err), MCPGEN_INVALID_ARGUMENT);
    CHECK(err != NULL && mcpgen_error_text(err, &s) == MCPGEN_OK && contains(s.ptr, s.len, S("mcpgen_sender")),
          "a bad sender is named");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_conversation_observe(c, 3, B("{}"), NULL), MCPGEN_INVALID_ARGUMENT);
    CHECK_STATUS(mcpgen_conversation_observe(c, MCPGEN_SENDER_SERVER, NULL, 2, &err), MCPGEN_NULL_ARGUMENT);
    mcpgen_error_free(err);

    /* Text that is not JSON is a finding (MSG-8), not a call error. */
    CHECK_STATUS(mcpgen_conversation_observe(c, MCPGEN_SENDER_CLIENT, B("{not json"), &err), MCPGEN_PROTOCOL_VIOLATION);
    CHECK(err != NULL, "findings object");
    if (err) {
        mcpgen_status st;
        CHECK_STATUS(mcpgen_error_count(err, &count), MCPGEN_OK);
        CHECK(count == 1, "one finding, got %zu", count);
        CHECK_STATUS(mcpgen_error_rule(err, 0, &s), MCPGEN_OK);
        CHECK(str_is(s, "MSG-8"), "rule %s", s.ptr);
        CHECK_STATUS(mcpgen_error_level(err, 0, &level), MCPGEN_OK);
        CHECK(level == MCPGEN_LEVEL_ERROR, "level %u", (unsigned)level);
        CHECK_STATUS(mcpgen_error_level(err, 1, &level), MCPGEN_INDEX_OUT_OF_RANGE);
        CHECK(level == 0, "level_out cleared on failure");
        CHECK_STATUS(mcpgen_error_level(err, 0, NULL), MCPGEN_NULL_ARGUMENT);
        CHECK_STATUS(mcpgen_error_level(NULL, 0, &level), MCPGEN_NULL_ARGUMENT);
        CHECK_STATUS(mcpgen_error_status(err, &st), MCPGEN_OK);
        CHECK(st == MCPGEN_PROTOCOL_VIOLATION, "the object's status is the call's");
        CHECK_STATUS(mcpgen_error_text(err, &s), MCPGEN_OK);
        CHECK(contains(s.ptr, s.len, S("MSG-8")), "text names the rule: %s", s.ptr);
        mcpgen_error_free(err);
    }
    /* Empty input is text too (and not JSON). */
    CHECK_STATUS(mcpgen_conversation_observe(c, MCPGEN_SENDER_SERVER, (const uint8_t *)"", 0, NULL),
                 MCPGEN_PROTOCOL_VIOLATION);
    /* A schema violation is MCPGEN_INVALID, its entry without a rule id. */
    CHECK_STATUS(mcpgen_conversation_observe(c, MCPGEN_SENDER_CLIENT,
                                             B("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":5,"
                                               "\"arguments\":{},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                                               "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}"),
                                             &err),
                 MCPGEN_INVALID);
    CHECK(err != NULL && mcpgen_error_pointer(err, 0, &s) == MCPGEN_OK && str_is(s, "/params/name"), "pointer %s",
          err ? s.ptr : "(no error)");
    mcpgen_error_free(err);
    CHECK_STATUS(mcpgen_conversation_revision(c, &rev), MCPGEN_OK);
    CHECK(rev == 0 || rev == MCPGEN_REVISION_2026_07_28, "revision after a modern request: %u", (unsigned)rev);
    mcpgen_conversation_free(c);
    mcpgen_conversation_free(NULL);

    /* With a context: its policy applies (strict rejects an undeclared key). */
    CHECK_STATUS(mcpgen_context_new(&ctx), MCPGEN_OK);
    CHECK_STATUS(mcpgen_context_set_policy(ctx, MCPGEN_POLICY_STRICT), MCPGEN_OK);
    CHECK_STATUS(mcpgen_conversation_new(ctx, &c), MCPGEN_OK);
    mcpgen_context_free(ctx); /* read during _new only */
    CHECK_STATUS(mcpgen_conversation_observe(c, MCPGEN_SENDER_CLIENT,
                                             B("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"a\","
                                               "\"arguments\":{},\"bogus\":1,\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                                               "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}"),
                                             &err),
                 MCPGEN_PROTOCOL_VIOLATION);
    CHECK(err != NULL && mcpgen_error_rule(err, 0, &s) == MCPGEN_OK && str_is(s, "POLICY-STRICT"), "strict: %s",
          err ? s.ptr : "(no error)");
    mcpgen_error_free(err);
    mcpgen_conversation_free(c);

    /* Entries of other errors are error-level. */
    CHECK_STATUS(mcpgen_validate(NULL, MCPGEN_REVISION_LATEST, S("TextContent"), B("{\"type\":1}"), &err), MCPGEN_INVALID);
    CHECK(err != NULL && mcpgen_error_level(err, 0, &level) == MCPGEN_OK && level == MCPGEN_LEVEL_ERROR,
          "validation entries are errors");
    mcpgen_error_free(err);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
        return 2;
    }
    test_calls();
    test_vectors(argv[1]);
    printf("test_conversation: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
