/* The C line of `cargo xtask bench` (an `External` line of bench/benches/mix.rs): validates
 * every message of the benchmark mix through libmcpgen's C API, the way a C program would.
 *
 * Usage: mix MODE MIX_TSV
 *   MODE details: mcpgen_validate_id(..., &error), the error object built and freed for each
 *                 invalid message (the same work as the Rust line (b), mcpgen::validate);
 *   MODE verdict: mcpgen_validate_id(..., NULL), verdict only (fail-fast, no error details).
 * MIX_TSV lines are `Definition<TAB>valid|invalid<TAB>json`. Definition ids are looked up once,
 * outside the timing. Passes are timed on the clock the Rust lines use (MCPGEN_BENCH_CLOCK:
 * `cpu`, the thread's CPU time, the default; or `wall`). Prints a summary to stderr, then the
 * result JSON the runner reads:
 *   {"seconds_per_pass": S, "passes": N, "invalid": [indices]} */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcpgen.h"

typedef struct message {
    mcpgen_def_id def;
    const uint8_t *json;
    size_t len;
} message;

static clockid_t clock_id = CLOCK_THREAD_CPUTIME_ID;

static double now(void) {
    struct timespec ts;
    clock_gettime(clock_id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One pass: the verdict of every message into `invalid`. */
static void pass(const message *m, size_t n, int details, unsigned char *invalid) {
    size_t i;
    for (i = 0; i < n; i++) {
        mcpgen_error *err = NULL;
        mcpgen_status st = mcpgen_validate_id(NULL, m[i].def, m[i].json, m[i].len, details ? &err : NULL);
        invalid[i] = st != MCPGEN_OK;
        mcpgen_error_free(err);
    }
}

int main(int argc, char **argv) {
    FILE *f;
    char *text, *line, *save = NULL;
    long size;
    message *msgs;
    size_t n = 0, cap = 1024, i, passes = 0, bytes = 0;
    unsigned char *invalid;
    double times[1000], start, total = 0;
    int details;

    if (argc != 3 || (strcmp(argv[1], "details") && strcmp(argv[1], "verdict"))) {
        fprintf(stderr, "usage: %s details|verdict MIX_TSV\n", argv[0]);
        return 2;
    }
    details = !strcmp(argv[1], "details");
    {
        const char *clock_name = getenv("MCPGEN_BENCH_CLOCK");
        if (clock_name && !strcmp(clock_name, "wall")) {
            clock_id = CLOCK_MONOTONIC;
        } else if (clock_name && strcmp(clock_name, "cpu")) {
            fprintf(stderr, "MCPGEN_BENCH_CLOCK=%s: expected `cpu` or `wall`\n", clock_name);
            return 2;
        }
    }
    f = fopen(argv[2], "rb");
    if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
        perror(argv[2]);
        return 2;
    }
    text = malloc((size_t)size + 1);
    if (!text || fread(text, 1, (size_t)size, f) != (size_t)size) return 2;
    text[size] = 0;
    fclose(f);

    msgs = malloc(cap * sizeof *msgs);
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
        mcpgen_def_id id;
        if (!tab2) {
            fprintf(stderr, "line %zu is not Definition<TAB>verdict<TAB>json\n", n + 1);
            return 2;
        }
        if (mcpgen_def_lookup(MCPGEN_REVISION_2026_07_28, line, (size_t)(tab1 - line), &id) != MCPGEN_OK) {
            fprintf(stderr, "unknown definition %.*s\n", (int)(tab1 - line), line);
            return 2;
        }
        if (n == cap) msgs = realloc(msgs, (cap *= 2) * sizeof *msgs);
        msgs[n].def = id;
        msgs[n].json = (const uint8_t *)(tab2 + 1);
        msgs[n].len = strlen(tab2 + 1);
        bytes += msgs[n].len;
        n++;
    }
    invalid = malloc(n ? n : 1);

    /* Warm up for about a second, then time at least 10 passes and at least 3 seconds. */
    start = now();
    while (now() - start < 1.0) pass(msgs, n, details, invalid);
    while ((passes < 10 || total < 3.0) && passes < sizeof times / sizeof *times) {
        double t0 = now();
        pass(msgs, n, details, invalid);
        times[passes] = now() - t0;
        total += times[passes++];
    }
    qsort(times, passes, sizeof *times, cmp_double);

    fprintf(stderr, "C %s (%s clock): %zu messages, %.2f MB, median %.3f ms/pass over %zu passes (%.0f ns/message)\n", argv[1],
            clock_id == CLOCK_MONOTONIC ? "wall" : "thread CPU", n, (double)bytes / 1e6, times[passes / 2] * 1e3, passes, times[passes / 2] * 1e9 / (double)(n ? n : 1));
    printf("{\"seconds_per_pass\": %.9f, \"passes\": %zu, \"invalid\": [", times[passes / 2], passes);
    {
        const char *sep = "";
        for (i = 0; i < n; i++) {
            if (!invalid[i]) continue;
            printf("%s%zu", sep, i);
            sep = ", ";
        }
    }
    printf("]}\n");
    free(invalid);
    free(msgs);
    free(text);
    return 0;
}
