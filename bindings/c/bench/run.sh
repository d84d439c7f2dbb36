#!/usr/bin/env bash
# The C line of `cargo xtask bench` (bench/benches/mix.rs, EXTERNAL): builds libmcpgen in
# release mode and bindings/c/bench/mix.c with -O2 against libmcpgen.a, then runs it.
# Usage: bindings/c/bench/run.sh details|verdict MIX_TSV   (the runner appends MIX_TSV)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
# Build output goes to stderr: the runner reads the result JSON from stdout.
(cd "$root" && "${CARGO:-cargo}" build --release -p mcpgen-c >&2)
mkdir -p "$target/c-bench"
gcc -std=c99 -O2 -Wall -Wextra -Werror -I"$here/include" "$here/bench/mix.c" "$target/release/libmcpgen.a" \
    -lpthread -ldl -lm -o "$target/c-bench/mix" >&2
exec "$target/c-bench/mix" "$@"
