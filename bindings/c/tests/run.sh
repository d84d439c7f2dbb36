#!/usr/bin/env bash
# The C library's tests, run by `cargo xtask test` (step "C library"):
#  1. build libmcpgen (debug: the tests check behaviour, not speed);
#  2. the C suites (tests/test_api.c: examples, vectors/decode, vectors/protocol, every call;
#     tests/test_tools.c: vectors/tools, vectors/icons, tool checker and icon calls;
#     tests/test_conversation.c: vectors/conversations, the mcpgen_conversation_* calls),
#     gcc -std=c99 -Wall -Wextra -Werror, each linked once against libmcpgen.a and once against
#     libmcpgen.so;
#  3. the same suite under valgrind: zero errors, zero definite/indirect leaks;
#  4. 8 pthreads sharing one context and one tool checker (tests/test_threads.c), natively and
#     under valgrind;
#  5. a C++17 program (tests/test_cpp.cpp), g++ -Wall -Werror;
#  6. the examples (tests/examples.sh: examples/mcpgen_check.c shared and static, the C++
#     program, and Go: examples/go through cgo, `go vet`, its tests under the race detector and
#     the program) built through `pkg-config --cflags --libs mcpgen` from a prefix that
#     install.sh fills (both headers, both libraries, mcpgen.pc), and run on valid/invalid
#     input. Go is skipped, saying so, when `go` is not on PATH.
# Needs gcc, g++, valgrind, pkg-config, and Go for the Go example (.ci/run installs them).
# Reads the official examples from the cache `cargo xtask schema pull` fills
# (schema/2026-07-28/examples). Environment: CARGO_TARGET_DIR, MCPGEN_C_SKIP_VALGRIND=1 to skip
# step 3-4's valgrind runs locally.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/../.." && pwd)"
cargo="${CARGO:-cargo}"
target="${CARGO_TARGET_DIR:-$root/target}"
lib="$target/debug"
out="$target/c-tests"
examples="$root/schema/2026-07-28/examples"
mkdir -p "$out"

step() { printf '\n--- %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

for tool in gcc g++ valgrind pkg-config; do
    command -v "$tool" >/dev/null || { echo "run.sh: $tool is required (see .ci/run)" >&2; exit 1; }
done
[ -d "$examples" ] || { echo "run.sh: official examples not found at $examples; run \`cargo xtask schema pull\`" >&2; exit 1; }

step "build libmcpgen (debug)"
(cd "$root" && run "$cargo" build -p mcpgen-c)
[ -f "$lib/libmcpgen.a" ] && [ -f "$lib/libmcpgen.so" ]

CFLAGS=(-std=c99 -Wall -Wextra -Werror -O1 -g -I"$here/include")
STATIC_LIBS=(-lpthread -ldl -lm)

step "C suite against libmcpgen.a and libmcpgen.so"
run gcc "${CFLAGS[@]}" "$here/tests/test_api.c" "$lib/libmcpgen.a" "${STATIC_LIBS[@]}" -o "$out/test_api_static"
run gcc "${CFLAGS[@]}" "$here/tests/test_api.c" -L"$lib" -lmcpgen -Wl,-rpath,"$lib" -o "$out/test_api_shared"
# (ldd output captured first: `ldd | grep -q` can fail under pipefail when grep exits early.)
if ! grep -q 'libmcpgen\.so' <<<"$(ldd "$out/test_api_shared")"; then
    echo "test_api_shared is not linked against libmcpgen.so" >&2
    exit 1
fi
if grep -q 'libmcpgen' <<<"$(ldd "$out/test_api_static")"; then
    echo "test_api_static must not need libmcpgen.so" >&2
    exit 1
fi
run "$out/test_api_static" "$examples" "$root/vectors"
run "$out/test_api_shared" "$examples" "$root/vectors"
run gcc "${CFLAGS[@]}" "$here/tests/test_tools.c" "$lib/libmcpgen.a" "${STATIC_LIBS[@]}" -o "$out/test_tools_static"
run gcc "${CFLAGS[@]}" "$here/tests/test_tools.c" -L"$lib" -lmcpgen -Wl,-rpath,"$lib" -o "$out/test_tools_shared"
run "$out/test_tools_static" "$root/vectors"
run "$out/test_tools_shared" "$root/vectors"
run gcc "${CFLAGS[@]}" "$here/tests/test_conversation.c" "$lib/libmcpgen.a" "${STATIC_LIBS[@]}" -o "$out/test_conversation_static"
run gcc "${CFLAGS[@]}" "$here/tests/test_conversation.c" -L"$lib" -lmcpgen -Wl,-rpath,"$lib" -o "$out/test_conversation_shared"
run "$out/test_conversation_static" "$root/vectors"
run "$out/test_conversation_shared" "$root/vectors"

step "threads: 8 pthreads, one shared context"
run gcc "${CFLAGS[@]}" -pthread "$here/tests/test_threads.c" "$lib/libmcpgen.a" "${STATIC_LIBS[@]}" -o "$out/test_threads"
run "$out/test_threads"

VALGRIND=(valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect
          --show-leak-kinds=definite,indirect)
if [ "${MCPGEN_C_SKIP_VALGRIND:-0}" = 1 ]; then
    step "valgrind skipped (MCPGEN_C_SKIP_VALGRIND=1)"
else
    step "C suite under valgrind"
    run "${VALGRIND[@]}" "$out/test_api_shared" "$examples" "$root/vectors"
    run "${VALGRIND[@]}" "$out/test_tools_shared" "$root/vectors"
    run "${VALGRIND[@]}" "$out/test_conversation_shared" "$root/vectors"
    step "threads under valgrind"
    run "${VALGRIND[@]}" "$out/test_threads" 10
fi

step "C++17 program"
run g++ -std=c++17 -Wall -Wextra -Werror -I"$here/include" "$here/tests/test_cpp.cpp" -L"$lib" -lmcpgen \
    -Wl,-rpath,"$lib" -o "$out/test_cpp"
run "$out/test_cpp"

step "example through pkg-config (install.sh --debug into a scratch prefix)"
prefix="$out/prefix"
rm -rf "$prefix"
run "$here/install.sh" --debug --prefix "$prefix"
# Both headers: the API (mcpgen.h) and the generated constants it includes (mcpgen_schema.h).
for header in mcpgen.h mcpgen_schema.h; do
    run cmp "$here/include/$header" "$prefix/include/$header"
done
# The C and C++ programs built through `pkg-config --cflags --libs mcpgen` from that prefix.
run "$here/tests/examples.sh" "$prefix" "$out/examples" "$examples"

step "C library: all passed"
