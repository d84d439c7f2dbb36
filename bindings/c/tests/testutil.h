/* Shared by the C test programs: failure counting and CHECK macros, file and directory
 * helpers. Each test program is its own executable, so the counters are per program. */
#ifndef MCPGEN_TEST_UTIL_H
#define MCPGEN_TEST_UTIL_H

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpgen.h"
#include "jsonscan.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

static int checks, failures;
/* While set, a failing CHECK is an expected one (an entry of an expected-failure list): it is
 * counted in `expected_hits` and printed as such, not as a failure. */
static int expecting_failure, expected_hits;

static void fail_at(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    if (expecting_failure)
        expected_hits++;
    else
        failures++;
    fprintf(stderr, "%s %s:%d: ", expecting_failure ? "expected failure" : "FAIL", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        checks++;                                                                                                      \
        if (!(cond)) fail_at(__FILE__, __LINE__, __VA_ARGS__);                                                         \
    } while (0)

#define CHECK_STATUS(expr, want)                                                                                       \
    do {                                                                                                               \
        mcpgen_status got_ = (expr);                                                                                   \
        CHECK(got_ == (want), "%s gave %s, expected %s", #expr, mcpgen_status_name(got_), mcpgen_status_name(want));   \
    } while (0)

#define S(lit) (lit), (sizeof(lit) - 1)
#define B(lit) (const uint8_t *)(lit), (sizeof(lit) - 1)

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = (char *)malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = (size_t)n;
    }
    return buf;
}

static int str_is(mcpgen_str s, const char *want) {
    return s.ptr && s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0 && s.ptr[s.len] == 0;
}

static int contains(const char *hay, size_t n, const char *needle, size_t m) {
    size_t i;
    if (m == 0) return 1;
    for (i = 0; i + m <= n; i++)
        if (memcmp(hay + i, needle, m) == 0) return 1;
    return 0;
}

/* Sorted directory entries ending in `suffix` (or all subdirectories when suffix is NULL). */
static char **list_dir(const char *dir, const char *suffix, size_t *count) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, i, j;
    *count = 0;
    if (!d) return NULL;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.') continue;
        if (suffix && (len < strlen(suffix) || strcmp(e->d_name + len - strlen(suffix), suffix) != 0)) continue;
        if (n == cap) {
            char **grown;
            cap = cap ? cap * 2 : 64;
            grown = (char **)realloc(names, cap * sizeof *names);
            if (!grown) break;
            names = grown;
        }
        names[n] = (char *)malloc(len + 1);
        memcpy(names[n++], e->d_name, len + 1);
    }
    closedir(d);
    for (i = 1; i < n; i++) /* insertion sort: small lists, stable order for the log */
        for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    *count = n;
    return names;
}

static void free_list(char **names, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) free(names[i]);
    free(names);
}


/* Runs one vector file (its JSON value); returns 0 with the reason in `why` on failure. */
typedef int (*vector_run)(void *user, js_span root, char *why, size_t why_len);

/* Runs `run` on every `*.json` file of `<vectors>/<sub>`, in name order; each file that fails
 * is one failed check naming it, and an empty directory is a failure too. Returns the count. */
static size_t run_vector_dir(const char *vectors, const char *sub, vector_run run, void *user) {
    char dir[1024];
    size_t n, i;
    char **files;
    snprintf(dir, sizeof dir, "%s/%s", vectors, sub);
    files = list_dir(dir, ".json", &n);
    CHECK(n > 0, "no vectors in %s", dir);
    for (i = 0; i < n; i++) {
        char path[2048], why[8192] = "";
        size_t len;
        char *text;
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        text = read_file(path, &len);
        CHECK(text != NULL, "cannot read %s", path);
        if (!text) continue;
        CHECK(run(user, js_value((js_span){text, len}), why, sizeof why), "%s vector %s: %s", sub, files[i], why);
        free(text);
    }
    free_list(files, n);
    return n;
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#endif
