/* mcpgen_check: validate an MCP message (or any schema definition) from C.
 *
 *   mcpgen_check FILE                  method-aware check of one JSON-RPC message (2026-07-28)
 *   mcpgen_check --def NAME FILE       validate FILE against definition NAME
 *   mcpgen_check --revision R ...      use another schema revision
 *   mcpgen_check --version             print the library's version (mcpgen_version())
 *   FILE may be - for standard input.
 *
 * Exit status: 0 valid, 1 invalid (every error printed with its JSON pointer), 2 usage or I/O.
 *
 * Build:  cc -std=c99 $(pkg-config --cflags mcpgen) mcpgen_check.c $(pkg-config --libs mcpgen)
 * (static: cc -std=c99 $(pkg-config --cflags mcpgen) mcpgen_check.c \
 *          $(pkg-config --libs --static mcpgen) -Wl,-Bstatic -lmcpgen -Wl,-Bdynamic)  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcpgen.h>

static unsigned char *read_all(FILE *f, size_t *len) {
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *grown = realloc(buf, cap *= 2);
            if (!grown) free(buf);
            buf = grown;
        }
    }
    *len = n;
    return buf;
}

/* Prints every entry of an error: pointer, message, keyword or rule. */
static void print_error(const mcpgen_error *err) {
    size_t count = 0, i;
    mcpgen_status status = MCPGEN_OK;
    mcpgen_error_status(err, &status);
    mcpgen_error_count(err, &count);
    if (count == 0) { /* a call error or a refusal without schema details: the text says it all */
        mcpgen_str text;
        mcpgen_error_text(err, &text);
        fprintf(stderr, "%s: %s\n", mcpgen_status_str(status), text.ptr);
        return;
    }
    fprintf(stderr, "%s:\n", mcpgen_status_str(status));
    for (i = 0; i < count; i++) {
        mcpgen_str pointer, message, keyword, rule, arm;
        size_t depth = 0;
        mcpgen_error_pointer(err, i, &pointer);
        mcpgen_error_message(err, i, &message);
        mcpgen_error_keyword(err, i, &keyword);
        mcpgen_error_rule(err, i, &rule);
        mcpgen_error_arm(err, i, &depth, &arm);
        /* Entries at depth > 0 explain why a union arm (`arm`) did not match. */
        fprintf(stderr, "%*s%s%s%s%s: %s [%s]\n", (int)(2 + 4 * depth), "", depth ? "as " : "", depth ? arm.ptr : "",
                depth ? ", " : "", pointer.len ? pointer.ptr : "(root)", message.ptr, rule.len ? rule.ptr : keyword.ptr);
    }
}

int main(int argc, char **argv) {
    const char *def = NULL, *revision_name = "2026-07-28", *path = NULL;
    mcpgen_revision revision;
    mcpgen_error *err = NULL;
    mcpgen_status status;
    unsigned char *json;
    size_t len;
    FILE *f;
    int i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--version")) {
            printf("%s\n", mcpgen_version());
            return 0;
        }
        if (!strcmp(argv[i], "--def") && i + 1 < argc) def = argv[++i];
        else if (!strcmp(argv[i], "--revision") && i + 1 < argc) revision_name = argv[++i];
        else if (!path) path = argv[i];
        else path = NULL, i = argc + 1;
    }
    if (!path || i > argc) {
        fprintf(stderr, "usage: %s [--revision R] [--def NAME] FILE|- | --version\n", argv[0]);
        return 2;
    }
    if (MCPGEN_VERSION_MAJOR != mcpgen_version_number() / 1000000) {
        fprintf(stderr, "header %s does not match library %s\n", MCPGEN_VERSION_STRING, mcpgen_version());
        return 2;
    }
    if (mcpgen_revision_parse(revision_name, strlen(revision_name), &revision) != MCPGEN_OK) {
        fprintf(stderr, "unknown revision %s\n", revision_name);
        return 2;
    }
    f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        perror(path);
        return 2;
    }
    json = read_all(f, &len);
    if (f != stdin) fclose(f);
    if (!json) {
        fprintf(stderr, "%s: cannot read\n", path);
        return 2;
    }

    if (def) {
        /* NULL context: the defaults (lossless policy). */
        status = mcpgen_validate(NULL, revision, def, strlen(def), json, len, &err);
        if (status == MCPGEN_OK) printf("valid %s\n", def);
    } else {
        mcpgen_message_kind kind;
        char *method = NULL;
        int64_t code = 0;
        status = mcpgen_validate_message(NULL, revision, json, len, &kind, &method, NULL, &code, &err);
        if (status == MCPGEN_OK) {
            switch (kind) {
            case MCPGEN_MESSAGE_REQUEST: printf("valid request %s\n", method); break;
            case MCPGEN_MESSAGE_NOTIFICATION: printf("valid notification %s\n", method); break;
            case MCPGEN_MESSAGE_RESULT: printf("valid result\n"); break;
            case MCPGEN_MESSAGE_ERROR: printf("valid error %lld\n", (long long)code); break;
            }
        }
        mcpgen_string_free(method); /* NULL when there was none: fine */
    }
    free(json);
    if (status == MCPGEN_OK) return 0;
    print_error(err);
    mcpgen_error_free(err);
    return MCPGEN_STATUS_IS_VERDICT(status) ? 1 : 2;
}
