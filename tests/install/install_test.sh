#!/usr/bin/env bash
# The install as an HPC centre does it: `cmake --install` into a temporary
# prefix, the prefix then copied elsewhere (a moved install must still
# work), and from the copy:
#   - bin/starzk --version and `info` run with no LD_LIBRARY_PATH, and the
#     binary and the example plug-in resolve libstarzk_policies inside the
#     copy (run paths relative to $ORIGIN);
#   - every option the man page names exists in the --help of a command or
#     of a trace subcommand;
#   - an outside C program builds against the installed library through
#     find_package(starzk) and through pkg-config, and runs;
#   - the installed Lmod modulefile loads with Lmod (when Lmod is installed,
#     e.g. Debian's lmod) and puts this starzk on PATH; the Spack recipe
#     loads with stand-ins for Spack (spack_recipe_check.py).
# Usage: install_test.sh BUILD_DIR SOURCE_DIR STARPU_PREFIX
set -euo pipefail
build=$1 src=$2 starpu=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/P" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install failed"; }
cp -a "$tmp/P" "$tmp/moved"
rm -rf "$tmp/P"
P=$tmp/moved
for f in bin/starzk include/starzk/policies/starzk_policies.h include/starzk/policies/starzk_plugin.h \
         include/starzk/policies/resource_class.h lib/cmake/starzk/starzkConfig.cmake \
         lib/pkgconfig/starzk-policies.pc share/man/man1/starzk.1 share/doc/starzk/install.md \
         share/doc/starzk/usage.md; do
  [ -e "$P/$f" ] || fail "$f not installed"
done
lib=$(dirname "$(find "$P" -name 'libstarzk_policies.so.0' | head -1)")
[ -n "$lib" ] && [ "$lib" != . ] || fail "libstarzk_policies.so.0 not installed"
plugin=$(find "$P" -name 'libstarzk_policy_plugin_example.so' | head -1)
[ -n "$plugin" ] || fail "the example plug-in is not installed"

# The moved binary runs on its own run paths.
unset LD_LIBRARY_PATH
"$P/bin/starzk" --version | grep -q "^starzk $(sed -n 's/^project(starzk VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")" \
  || fail "bin/starzk --version does not print the project's version"
"$P/bin/starzk" info "$src/tests/fixtures/multiplier/circuit.zkey" >/dev/null || fail "bin/starzk info fails"
for bin in "$P/bin/starzk" "$plugin"; do
  found=$(ldd "$bin" | sed -n 's/.*libstarzk_policies.so.0 => \([^ ]*\) .*/\1/p')
  [ -n "$found" ] && [ "$(readlink -f "$(dirname "$found")")" = "$(readlink -f "$lib")" ] \
    || { ldd "$bin"; fail "$bin does not find libstarzk_policies in $lib"; }
  ! ldd "$bin" | grep -q "not found" || { ldd "$bin"; fail "$bin: a library is not found"; }
done

# The man page names no option the binary lacks.
help=$("$P/bin/starzk" --help; for c in prove verify setup info cache gen bench trace vk; do "$P/bin/starzk" $c --help 2>/dev/null || true; done
  for s in summary plot check replay; do "$P/bin/starzk" trace $s --help 2>/dev/null || true; done)
for opt in $(grep -o '\\-\\-[a-z][a-z0-9-]*' "$P/share/man/man1/starzk.1" | sed 's/\\//g' | sort -u); do
  grep -q -- "$opt" <<<"$help" || fail "the man page names $opt, which no --help lists"
done
if command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z "$P/share/man/man1/starzk.1" 2>"$tmp/groff.log"
  [ ! -s "$tmp/groff.log" ] || { cat "$tmp/groff.log"; fail "groff warns on the man page"; }
fi

# An outside program, both ways.
export PKG_CONFIG_PATH="$P/lib/pkgconfig:$starpu/lib/pkgconfig"
cmake -S "$src/tests/install/consumer" -B "$tmp/c1" -DCMAKE_PREFIX_PATH="$P" -DSTARPU_PREFIX="$starpu" \
  >"$tmp/c1.log" 2>&1 || { cat "$tmp/c1.log"; fail "find_package(starzk) consumer: configure failed"; }
cmake --build "$tmp/c1" >>"$tmp/c1.log" 2>&1 || { cat "$tmp/c1.log"; fail "find_package(starzk) consumer: build failed"; }
"$tmp/c1/consumer" >/dev/null || fail "find_package(starzk) consumer: does not list the starzk policy"
${CC:-cc} -o "$tmp/c2" "$src/tests/install/consumer/consumer.c" $(pkg-config --cflags --libs starzk-policies) \
  || fail "pkg-config consumer: build failed"
"$tmp/c2" >/dev/null || fail "pkg-config consumer: does not list the starzk policy"
# Packaging: the modulefile with Lmod, the Spack recipe without Spack.
lmod=${LMOD_CMD:-/usr/share/lmod/lmod/libexec/lmod}
if [ -x "$lmod" ]; then
  env -i PATH=/usr/bin:/bin HOME="$tmp" MODULEPATH="$P/share/modulefiles" "$lmod" bash load starzk \
    >"$tmp/module.sh" 2>"$tmp/module.err" || { cat "$tmp/module.err"; fail "Lmod cannot load the installed modulefile"; }
  got=$(env -i PATH=/usr/bin:/bin bash -c ". '$tmp/module.sh'; command -v starzk; echo \$STARZK_DOC")
  [ "$got" = "$P/bin/starzk"$'\n'"$P/share/doc/starzk" ] || fail "module load starzk gives: $got"
else
  echo "install_test: no Lmod here ($lmod): modulefile not loaded"
fi
if command -v python3 >/dev/null; then
  python3 "$src/tests/install/spack_recipe_check.py" "$src/packaging/spack/package.py" || fail "the Spack recipe check failed"
fi
echo "install_test: installed, moved, ran, and built against both ways"
