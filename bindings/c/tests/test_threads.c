/* 8 threads share one configured mcpgen_context and one mcpgen_tool_checker (whose cache they
 * fill concurrently) and validate, decode and check concurrently;
 * every thread must get exactly the verdicts and outputs the main thread got alone.
 * Usage: test_threads [ROUNDS] (default 200; run.sh passes fewer under valgrind, which runs
 * threads one at a time). */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpgen.h"

#define THREADS 8

#define META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
             "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static const char *const MESSAGES[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" META ",\"name\":\"w\",\"arguments\":{\"x\":0.50}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{" META ",\"name\":5}}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{" META ",\"extra\":true}}",
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{" META ",\"name\":\"w\",\"unknown\":1}}",
    "{\"jsonrpc\":\"2.0\",",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
};
#define COUNT (sizeof MESSAGES / sizeof *MESSAGES)

/* What one message gives: statuses of each call, and the decoded text / error text. */
typedef struct outcome {
    mcpgen_status validate, validate_details, decode, message, request, tool;
    char decoded[1024];
    char tool_error[1024];
    char error_text[4096];
    char response[1024];
} outcome;

static const mcpgen_context *shared; /* configured once in main, then only read */
static const mcpgen_tool_checker *checker; /* configured once in main; its cache is shared */

/* Each message is also validated as the arguments of this tool (an integer `id` is required). */
static const char TOOL[] = "{\"name\":\"m\",\"inputSchema\":{\"type\":\"object\",\"required\":[\"id\"],"
                           "\"properties\":{\"id\":{\"type\":\"integer\"},\"method\":{\"pattern\":\"^[a-z/]+$\"}}}}";

static void copy(char *dst, size_t cap, const char *src, size_t len) {
    if (len >= cap) len = cap - 1;
    memcpy(dst, src, len);
    dst[len] = 0;
}

static void run(const char *msg, outcome *o) {
    const uint8_t *json = (const uint8_t *)msg;
    size_t len = strlen(msg);
    mcpgen_error *err = NULL;
    mcpgen_request *req = NULL;
    char *out = NULL;
    size_t out_len = 0;
    mcpgen_str text;

    memset(o, 0, sizeof *o);
    o->validate = mcpgen_validate_id(shared, MCPGEN_DEF_2026_07_28_CALL_TOOL_REQUEST, json, len, NULL);
    o->validate_details = mcpgen_validate(shared, MCPGEN_REVISION_2026_07_28, "CallToolRequest", 15, json, len, &err);
    if (err && mcpgen_error_text(err, &text) == MCPGEN_OK) copy(o->error_text, sizeof o->error_text, text.ptr, text.len);
    mcpgen_error_free(err);
    o->decode = mcpgen_decode_id(shared, MCPGEN_DEF_2026_07_28_CALL_TOOL_REQUEST, json, len, &out, &out_len, NULL);
    if (out) copy(o->decoded, sizeof o->decoded, out, out_len);
    mcpgen_string_free(out);
    o->message = mcpgen_validate_message(shared, MCPGEN_REVISION_2026_07_28, json, len, NULL, NULL, NULL, NULL, NULL);
    o->request = mcpgen_check_request(shared, json, len, &req, &err);
    if (err && mcpgen_error_response_json(err, &text) == MCPGEN_OK) copy(o->response, sizeof o->response, text.ptr, text.len);
    if (req && mcpgen_request_json(req, &text) == MCPGEN_OK) copy(o->response, sizeof o->response, text.ptr, text.len);
    mcpgen_error_free(err);
    mcpgen_request_free(req);
    o->tool = mcpgen_validate_tool_arguments(checker, (const uint8_t *)TOOL, sizeof TOOL - 1, json, len, &err);
    if (err && mcpgen_error_text(err, &text) == MCPGEN_OK) copy(o->tool_error, sizeof o->tool_error, text.ptr, text.len);
    mcpgen_error_free(err);
}

static outcome expected[COUNT];
static size_t rounds = 200;

static void *worker(void *arg) {
    size_t id = (size_t)arg, round, i, *mismatches = malloc(sizeof *mismatches);
    outcome got;
    *mismatches = 0;
    for (round = 0; round < rounds; round++) {
        for (i = 0; i < COUNT; i++) {
            size_t k = (i + id + round) % COUNT; /* threads walk the list out of phase */
            run(MESSAGES[k], &got);
            if (memcmp(&got, &expected[k], sizeof got) != 0) {
                if (*mismatches == 0) fprintf(stderr, "thread %zu: message %zu differs from the serial run\n", id, k);
                (*mismatches)++;
            }
        }
    }
    return mismatches;
}

int main(int argc, char **argv) {
    mcpgen_context *ctx = NULL;
    mcpgen_tool_checker *tools = NULL;
    pthread_t threads[THREADS];
    size_t i, total = 0, valid = 0;

    if (argc > 1) rounds = (size_t)strtoul(argv[1], NULL, 10);
    if (rounds == 0) {
        fprintf(stderr, "usage: %s [ROUNDS > 0]\n", argv[0]);
        return 2;
    }
    if (mcpgen_context_new(&ctx) != MCPGEN_OK || mcpgen_context_set_policy(ctx, MCPGEN_POLICY_STRICT) != MCPGEN_OK) {
        fprintf(stderr, "cannot configure the context\n");
        return 1;
    }
    shared = ctx;
    if (mcpgen_tool_checker_new(&tools) != MCPGEN_OK) {
        fprintf(stderr, "cannot create the tool checker\n");
        return 1;
    }
    checker = tools;
    for (i = 0; i < COUNT; i++) {
        run(MESSAGES[i], &expected[i]);
        if (expected[i].validate == MCPGEN_OK) valid++;
    }
    /* The serial run must itself mix verdicts, or the comparison would prove little. */
    if (valid == 0 || valid == COUNT || expected[1].validate != MCPGEN_INVALID || expected[4].validate != MCPGEN_INVALID ||
        expected[5].validate != MCPGEN_PARSE_ERROR || expected[0].tool != MCPGEN_OK ||
        expected[5].tool != MCPGEN_PARSE_ERROR || expected[6].tool != MCPGEN_INVALID) {
        fprintf(stderr, "unexpected serial verdicts (%zu valid)\n", valid);
        return 1;
    }
    for (i = 0; i < THREADS; i++) {
        if (pthread_create(&threads[i], NULL, worker, (void *)i) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    for (i = 0; i < THREADS; i++) {
        void *ret = NULL;
        pthread_join(threads[i], &ret);
        total += *(size_t *)ret;
        free(ret);
    }
    mcpgen_context_free(ctx);
    mcpgen_tool_checker_free(tools);
    printf("threads: %d threads x %zu rounds x %zu messages, %zu mismatches\n", THREADS, rounds, (size_t)COUNT, total);
    return total ? 1 : 0;
}
