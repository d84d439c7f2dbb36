/* A minimal JSON scanner for the C test suite: it reads the project's vector files without a
 * third-party library and without reformatting anything. Values are spans of the original text,
 * so numbers keep their exact text (which the vectors check). Only what the tests need:
 * skip a value, look up members and elements, unescape strings, compare two values with
 * objects as member sets and numbers by their text (the Rust runner's `json_eq`).
 * Input is trusted test data; every function still fails safely (returns 0/NULL) on bad JSON. */
#ifndef MCPGEN_TEST_JSONSCAN_H
#define MCPGEN_TEST_JSONSCAN_H

#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

typedef struct js_span {
    const char *p;
    size_t n;
} js_span;

static const char *js_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* Returns the end of the value starting at p (after whitespace), or NULL. */
static const char *js_skip(const char *p, const char *end, int depth) {
    p = js_ws(p, end);
    if (p >= end || depth > 200) return NULL;
    if (*p == '"') {
        for (p++; p < end; p++) {
            if (*p == '\\') {
                p++;
            } else if (*p == '"') {
                return p + 1;
            }
        }
        return NULL;
    }
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = js_ws(p + 1, end);
        if (p < end && *p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                p = js_skip(p, end, depth + 1); /* key */
                if (!p) return NULL;
                p = js_ws(p, end);
                if (p >= end || *p != ':') return NULL;
                p++;
            }
            p = js_skip(p, end, depth + 1);
            if (!p) return NULL;
            p = js_ws(p, end);
            if (p >= end) return NULL;
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p++;
        }
    }
    if (*p && strchr("-0123456789", *p)) {
        while (p < end && *p && strchr("+-0123456789.eE", *p)) p++;
        return p;
    }
    if (end - p >= 4 && (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))) return p + 4;
    if (end - p >= 5 && !strncmp(p, "false", 5)) return p + 5;
    return NULL;
}

/* The value at the start of `s`, trimmed. */
static js_span js_value(js_span s) {
    const char *end = s.p + s.n;
    const char *b = js_ws(s.p, end);
    const char *e = js_skip(b, end, 0);
    js_span out = {b, e ? (size_t)(e - b) : 0};
    return out;
}

static char js_kind(js_span v) {
    return v.n ? v.p[0] : 0;
}

static void js_put_utf8(char *out, size_t *len, unsigned long c) {
    if (c < 0x80) {
        out[(*len)++] = (char)c;
    } else if (c < 0x800) {
        out[(*len)++] = (char)(0xC0 | (c >> 6));
        out[(*len)++] = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out[(*len)++] = (char)(0xE0 | (c >> 12));
        out[(*len)++] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[(*len)++] = (char)(0x80 | (c & 0x3F));
    } else {
        out[(*len)++] = (char)(0xF0 | (c >> 18));
        out[(*len)++] = (char)(0x80 | ((c >> 12) & 0x3F));
        out[(*len)++] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[(*len)++] = (char)(0x80 | (c & 0x3F));
    }
}

static int js_hex4(const char *p, unsigned long *out) {
    unsigned long v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned long)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned long)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

/* Unescapes a string value into a new NUL-terminated buffer (free() it); NULL if not a string. */
static char *js_string(js_span v, size_t *len_out) {
    const char *p, *end;
    char *out;
    size_t len = 0;
    if (js_kind(v) != '"' || v.n < 2) return NULL;
    out = (char *)malloc(v.n + 1);
    if (!out) return NULL;
    p = v.p + 1;
    end = v.p + v.n - 1;
    while (p < end) {
        if (*p != '\\') {
            out[len++] = *p++;
            continue;
        }
        p++;
        if (p >= end) break;
        switch (*p) {
        case 'n': out[len++] = '\n'; break;
        case 't': out[len++] = '\t'; break;
        case 'r': out[len++] = '\r'; break;
        case 'b': out[len++] = '\b'; break;
        case 'f': out[len++] = '\f'; break;
        case 'u': {
            unsigned long c, lo;
            if (end - p < 5 || !js_hex4(p + 1, &c)) {
                free(out);
                return NULL;
            }
            p += 4;
            if (c >= 0xD800 && c < 0xDC00 && end - p >= 7 && p[1] == '\\' && p[2] == 'u' && js_hex4(p + 3, &lo) &&
                lo >= 0xDC00 && lo < 0xE000) {
                c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            }
            js_put_utf8(out, &len, c);
            break;
        }
        default: out[len++] = *p; break; /* \" \\ \/ */
        }
        p++;
    }
    out[len] = 0;
    if (len_out) *len_out = len;
    return out;
}

/* Iterates an object's members or an array's elements: start with *cursor = NULL. For arrays
 * `key` is left empty. Returns 0 at the end. */
static int js_next(js_span container, const char **cursor, js_span *key, js_span *val) {
    const char *end = container.p + container.n;
    const char *p = *cursor ? *cursor : container.p + 1;
    const char *e;
    p = js_ws(p, end);
    if (p < end && *p == ',') p = js_ws(p + 1, end);
    if (p >= end || *p == '}' || *p == ']') return 0;
    key->p = NULL;
    key->n = 0;
    if (container.p[0] == '{') {
        e = js_skip(p, end, 0);
        if (!e) return 0;
        key->p = p;
        key->n = (size_t)(e - p);
        p = js_ws(e, end);
        if (p >= end || *p != ':') return 0;
        p = js_ws(p + 1, end);
    }
    e = js_skip(p, end, 0);
    if (!e) return 0;
    val->p = p;
    val->n = (size_t)(e - p);
    *cursor = e;
    return 1;
}

static size_t js_count(js_span container) {
    const char *cur = NULL;
    js_span k, v;
    size_t n = 0;
    while (js_next(container, &cur, &k, &v)) n++;
    return n;
}

static int js_str_eq(js_span a, js_span b) {
    size_t la, lb;
    char *x = js_string(a, &la), *y = js_string(b, &lb);
    int eq = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return eq;
}

/* Finds member `key` (plain text) of an object. */
static int js_get(js_span obj, const char *key, js_span *out) {
    const char *cur = NULL;
    js_span k, v;
    if (js_kind(obj) != '{') return 0;
    while (js_next(obj, &cur, &k, &v)) {
        size_t len;
        char *s = js_string(k, &len);
        int hit = s && len == strlen(key) && memcmp(s, key, len) == 0;
        free(s);
        if (hit) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

/* JSON equality: objects as member sets, arrays in order, strings by value, numbers by text. */
static int js_equal(js_span a, js_span b) {
    const char *ca = NULL, *cb;
    js_span ka, va, kb, vb;
    char k = js_kind(a);
    if (k != js_kind(b)) return 0;
    if (k == '"') return js_str_eq(a, b);
    if (k == '[') {
        cb = NULL;
        for (;;) {
            int ha = js_next(a, &ca, &ka, &va), hb = js_next(b, &cb, &kb, &vb);
            if (ha != hb) return 0;
            if (!ha) return 1;
            if (!js_equal(va, vb)) return 0;
        }
    }
    if (k == '{') {
        if (js_count(a) != js_count(b)) return 0;
        while (js_next(a, &ca, &ka, &va)) {
            int found = 0;
            cb = NULL;
            while (js_next(b, &cb, &kb, &vb)) {
                if (js_str_eq(ka, kb)) {
                    found = js_equal(va, vb);
                    break;
                }
            }
            if (!found) return 0;
        }
        return 1;
    }
    return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#endif
