#!/usr/bin/env bash
# Builds the example programs against an installed libmcpgen, through pkg-config only, and runs
# them. Used by run.sh (a prefix install.sh filled) and by `cargo xtask dist check` (an unpacked
# mcpgen-c archive).
#   bindings/c/tests/examples.sh PREFIX OUT [EXAMPLES]
# PREFIX holds lib/pkgconfig/mcpgen.pc; OUT receives the programs (emptied first); EXAMPLES is
# the official examples directory (default: the schema/2026-07-28/examples cache).
# Each example is one line at the end: `checker NAME BUILD...` builds OUT/NAME and runs it like
# examples/mcpgen_check (a valid message exits 0, an invalid one 1, --def works);
# `selftest NAME BUILD...` builds OUT/NAME and runs it once (it checks itself, exit 0).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/../.." && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 PREFIX OUT [EXAMPLES]" >&2; exit 2; }
prefix="$1"
out="$2"
examples="${3:-$root/schema/2026-07-28/examples}"
[ -d "$examples" ] || { echo "examples.sh: no official examples at $examples; run \`cargo xtask schema pull\`" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"

run() { printf '$ %s\n' "$*"; "$@"; }

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
run pkg-config --cflags --libs mcpgen
libdir="$(pkg-config --variable=libdir mcpgen)"
# shellcheck disable=SC2207
cflags=($(pkg-config --cflags mcpgen))
# shellcheck disable=SC2207
libs=($(pkg-config --libs mcpgen))
printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}' > "$out/bad.json"

checker() {
    local name="$1"
    shift
    printf '\n--- example %s\n' "$name"
    run "$@"
    run "$out/$name" "$examples/CallToolRequest/call-tool-request.json"
    run "$out/$name" --def Tool "$(ls "$examples/Tool/"*.json | head -n 1)"
    set +e
    "$out/$name" "$out/bad.json"
    local status=$?
    set -e
    [ "$status" = 1 ] || { echo "$name: an invalid message must exit 1, got $status" >&2; exit 1; }
    echo "invalid message: exit 1 as expected"
}

selftest() {
    local name="$1"
    shift
    printf '\n--- example %s\n' "$name"
    run "$@"
    run "$out/$name"
}

# A program linked with libmcpgen.a must not need the shared library.
static_only() {
    if grep -q 'libmcpgen' <<<"$(ldd "$out/$1")"; then
        echo "$1 must not need libmcpgen.so" >&2
        exit 1
    fi
}

C99=(gcc -std=c99 -Wall -Wextra -Werror)
checker c "${C99[@]}" "${cflags[@]}" "$here/examples/mcpgen_check.c" "${libs[@]}" -Wl,-rpath,"$libdir" -o "$out/c"
# Static: the archive itself, plus what the Rust standard library inside it needs.
checker c-static "${C99[@]}" "${cflags[@]}" "$here/examples/mcpgen_check.c" "$libdir/libmcpgen.a" -lpthread -ldl -lm -o "$out/c-static"
static_only c-static
selftest c++ g++ -std=c++17 -Wall -Wextra -Werror "${cflags[@]}" "$here/tests/test_cpp.cpp" "${libs[@]}" -Wl,-rpath,"$libdir" -o "$out/c++"

# Go (cgo, `#cgo pkg-config: mcpgen`): vet and the race-detector tests first, then the program
# with the same command line as the C one.
if command -v go >/dev/null; then
    go_env=(env CGO_ENABLED=1 CGO_LDFLAGS="-Wl,-rpath,$libdir")
    (cd "$here/examples/go" && run go version && run "${go_env[@]}" go vet ./... && run "${go_env[@]}" go test -race -count=1 ./...)
    checker go sh -c 'cd "$1" && shift && exec "$@"' _ "$here/examples/go" "${go_env[@]}" go build -o "$out/go" .
    if ! grep -q 'libmcpgen\.so' <<<"$(ldd "$out/go")"; then
        echo "go: not linked against libmcpgen.so" >&2
        exit 1
    fi
else
    echo "SKIPPED: the Go example (bindings/c/examples/go): no \`go\` on PATH; install Go (Debian: apt-get install golang-go, as .ci/run does)"
fi

printf '\n--- examples: all passed\n'
