#!/usr/bin/env bash
# Builds libmcpgen and installs it with its headers and pkg-config file:
#   PREFIX/lib/libmcpgen.so, PREFIX/lib/libmcpgen.a,
#   PREFIX/include/mcpgen.h (the API) and PREFIX/include/mcpgen_schema.h (generated, included by it),
#   PREFIX/lib/pkgconfig/mcpgen.pc (relocatable: its prefix is ${pcfiledir}/../..)
# The C archive of `cargo xtask dist` (mcpgen-c-<version>-<target>.tar.gz) holds the same tree,
# its shared library under a versioned name with the soname libmcpgen.so.<ABI> (docs/install.md).
# Usage: bindings/c/install.sh [--prefix DIR] [--debug]
#   --prefix DIR  where to install (default /usr/local)
#   --debug       install the debug build (what the tests use) instead of a release build
set -euo pipefail

prefix=/usr/local
profile=release
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="$2"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --debug) profile=debug; shift ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cargo="${CARGO:-cargo}"
target="${CARGO_TARGET_DIR:-$root/target}"

if [ "$profile" = release ]; then
    (cd "$root" && "$cargo" build --release -p mcpgen-c)
else
    (cd "$root" && "$cargo" build -p mcpgen-c)
fi
version="$(sed -n 's/^#define MCPGEN_VERSION_STRING "\(.*\)"$/\1/p' "$here/include/mcpgen_schema.h")"
[ -n "$version" ] || { echo "install.sh: no MCPGEN_VERSION_STRING in include/mcpgen_schema.h" >&2; exit 1; }

mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
install -m 0755 "$target/$profile/libmcpgen.so" "$prefix/lib/libmcpgen.so"
install -m 0644 "$target/$profile/libmcpgen.a" "$prefix/lib/libmcpgen.a"
for header in mcpgen.h mcpgen_schema.h; do
    install -m 0644 "$here/include/$header" "$prefix/include/$header"
done
abs_prefix="$(cd "$prefix" && pwd)"
# The prefix in mcpgen.pc is relative to the file itself (${pcfiledir}): only the version is filled.
sed -e "s|@VERSION@|$version|g" "$here/mcpgen.pc.in" > "$prefix/lib/pkgconfig/mcpgen.pc"
echo "installed libmcpgen $version ($profile) into $abs_prefix"
