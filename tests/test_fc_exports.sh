#!/bin/sh
# test_fc_exports.sh - libflowcore's shared library exports its API and
# nothing else: the dynamic symbols it defines (nm -D --defined-only) are
# exactly the functions flowcore.h declares with FC_API, and every function
# flowcore.h declares carries FC_API. Internal functions (the solvers,
# the scratch allocator, the assert) stay hidden; programs that need them
# link flowcore/libflowcore_impl.la (flowcore/flowcore.mk).
#
# Run by make check with top_srcdir and top_builddir set; skipped when the
# build has no shared library (--disable-shared) or no nm.

LC_ALL=C # sort and comm must agree on the order
export LC_ALL
hdr="${top_srcdir:-.}/flowcore/flowcore.h"
so="${top_builddir:-.}/flowcore/.libs/libflowcore.so"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_fc_exports.XXXXXX") || {
    echo "Bail out! mktemp failed"
    exit 1
}
trap 'rm -rf "$tmp"' EXIT

if [ ! -f "$so" ]; then
    echo "1..0 # SKIP no shared library at $so"
    exit 0
fi
if ! command -v nm >/dev/null 2>&1; then
    echo "1..0 # SKIP nm not found"
    exit 0
fi
if [ ! -f "$hdr" ]; then
    echo "Bail out! no header at $hdr"
    exit 1
fi

echo "1..4"
n=0
fails=0
ok() { # ok CONDITION-STATUS DESCRIPTION
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $n - $2"
    else
        echo "not ok $n - $2"
        fails=$((fails + 1))
    fi
}
diag() { sed 's/^/# /' "$1"; }

# Function declarations begin at the start of a line, FC_API first when
# marked; the name is the identifier before the first parenthesis.
# Typedefs and the FC_API definition itself are not declarations.
grep -E '^[A-Za-z_].*[ *]fc_[a-z0-9_]+\(' "$hdr" |
    grep -Ev '^(typedef|#)' >"$tmp/decls"
sed -n 's/^FC_API .*[ *]\(fc_[a-z0-9_]*\)(.*/\1/p' "$tmp/decls" |
    sort -u >"$tmp/api"
grep -v '^FC_API ' "$tmp/decls" >"$tmp/unmarked"
count=$(wc -l <"$tmp/api")

# At least the 55 functions of this version: a parse that finds fewer has
# broken, and would let the comparisons below pass on nothing.
test "$count" -ge 55
ok $? "flowcore.h declares $count FC_API functions"

test ! -s "$tmp/unmarked"
ok $? "every function flowcore.h declares is marked FC_API"
diag "$tmp/unmarked"

# Defined dynamic symbols, names only; the linker's own (_init, _fini,
# _edata and the like, all starting with an underscore) are not ours.
if ! timeout 60 nm -D --defined-only "$so" >"$tmp/nm"; then
    echo "Bail out! nm -D failed on $so"
    exit 1
fi
awk 'NF >= 3 { print $3 } NF == 2 { print $2 }' "$tmp/nm" |
    sed 's/@.*//' | grep -v '^_' | sort -u >"$tmp/exported"

comm -13 "$tmp/api" "$tmp/exported" >"$tmp/extra"
test ! -s "$tmp/extra"
ok $? "libflowcore.so exports nothing but the API ($(wc -l <"$tmp/extra") more)"
diag "$tmp/extra"

comm -23 "$tmp/api" "$tmp/exported" >"$tmp/missing"
test ! -s "$tmp/missing"
ok $? "libflowcore.so exports every FC_API function ($(wc -l <"$tmp/missing") missing)"
diag "$tmp/missing"

test "$fails" -eq 0
