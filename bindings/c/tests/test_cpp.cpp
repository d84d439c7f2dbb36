// The header is C++-clean: it compiles with g++ -std=c++17 -Wall -Werror, links, and works
// through RAII wrappers a C++ user would write.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "mcpgen.h"

namespace {

struct ContextFree {
    void operator()(mcpgen_context *c) const { mcpgen_context_free(c); }
};
struct ErrorFree {
    void operator()(mcpgen_error *e) const { mcpgen_error_free(e); }
};
struct StringFree {
    void operator()(char *s) const { mcpgen_string_free(s); }
};

int failures = 0;

void check(bool ok, const char *what) {
    if (!ok) {
        std::fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

}  // namespace

int main() {
    static_assert(MCPGEN_VERSION_NUMBER >= 0, "version macro is a constant expression");
    check(std::string(mcpgen_version()) == MCPGEN_VERSION_STRING, "version");

    mcpgen_context *raw = nullptr;
    check(mcpgen_context_new(&raw) == MCPGEN_OK, "context_new");
    std::unique_ptr<mcpgen_context, ContextFree> ctx(raw);
    check(mcpgen_context_set_policy(ctx.get(), MCPGEN_POLICY_STRICT) == MCPGEN_OK, "set_policy");

    const std::string good = R"({"type":"text","text":"hi"})";
    const std::string bad = R"({"type":"text","text":"hi","x":1})";
    mcpgen_error *err = nullptr;
    check(mcpgen_validate_id(ctx.get(), MCPGEN_DEF_2026_07_28_TEXT_CONTENT, reinterpret_cast<const uint8_t *>(good.data()),
                             good.size(), &err) == MCPGEN_OK,
          "valid under strict");
    check(err == nullptr, "no error object");
    mcpgen_status st = mcpgen_validate(ctx.get(), MCPGEN_REVISION_LATEST, "TextContent", 11,
                                       reinterpret_cast<const uint8_t *>(bad.data()), bad.size(), &err);
    std::unique_ptr<mcpgen_error, ErrorFree> error(err);
    check(st == MCPGEN_INVALID, "unknown key rejected under strict");
    mcpgen_str pointer{};
    check(mcpgen_error_pointer(error.get(), 0, &pointer) == MCPGEN_OK && std::string(pointer.ptr, pointer.len) == "/x",
          "pointer /x");

    char *out = nullptr;
    size_t len = 0;
    check(mcpgen_decode(nullptr, MCPGEN_REVISION_2026_07_28, "TextContent", 11, reinterpret_cast<const uint8_t *>(bad.data()),
                        bad.size(), &out, &len, nullptr) == MCPGEN_OK,
          "lossless decode");
    std::unique_ptr<char, StringFree> decoded(out);
    check(std::string(decoded.get(), len).find("\"x\":1") != std::string::npos, "unknown key kept");
    check(std::strcmp(MCPGEN_METHOD_TOOLS_CALL, "tools/call") == 0, "method constant");

    const std::string tool = R"({"name":"t","inputSchema":{"type":"object","properties":{"a":{"$ref":"https://x.example/a.json"}}}})";
    mcpgen_error *tool_err = nullptr;
    check(mcpgen_check_tool(nullptr, reinterpret_cast<const uint8_t *>(tool.data()), tool.size(), &tool_err) ==
              MCPGEN_TOOL_SCHEMA_INVALID,
          "network $ref refused");
    std::unique_ptr<mcpgen_error, ErrorFree> tool_error(tool_err);
    mcpgen_str kind{};
    check(mcpgen_error_kind(tool_error.get(), 0, &kind) == MCPGEN_OK && std::string(kind.ptr, kind.len) == "network_ref",
          "kind network_ref");
    uint32_t image = MCPGEN_IMAGE_NONE;
    const std::string src = "file:///etc/passwd";
    check(mcpgen_check_icon(nullptr, src.data(), src.size(), nullptr, 0, &image, nullptr) == MCPGEN_ICON_REFUSED,
          "file: icon refused");

    if (failures == 0) std::printf("C++: ok\n");
    return failures ? 1 : 0;
}
