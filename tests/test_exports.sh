#!/bin/sh
# test_exports.sh - the shared libskylark exports exactly the functions
# that client/skylark.h marks SK_API: no internal symbol (sk_proto_*,
# sk_transport_*, sk_log_*...), and no API function missing. Names that
# start with an underscore belong to the toolchain and are only listed.
#
# A TAP test run by `make check`, which sets top_srcdir, top_builddir and
# NM (libtool's nm). Without a shared library (--disable-shared) it skips.

: "${top_srcdir:?run by make check}" "${top_builddir:?run by make check}"
NM=${NM:-nm}
header=$top_srcdir/client/skylark.h
la=$top_builddir/client/libskylark.la

dlname=$(sed -n "s/^dlname='\(.*\)'\$/\1/p" "$la" 2>/dev/null)
if [ -z "$dlname" ]; then
    echo "1..0 # SKIP no shared libskylark in $la"
    exit 0
fi
so=$top_builddir/client/.libs/$dlname

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_exports.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

echo "1..4"

# The API: the name before the first parenthesis of each SK_API line
# (skylark.h keeps SK_API and the function's name on one line).
sed -n 's/^SK_API[^(]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' \
    "$header" | sort >"$tmp/api"
napi=$(wc -l <"$tmp/api")
# Any other declaration at the start of a line is a function left unmarked.
grep -n '^[A-Za-z_].*(' "$header" | grep -v '^[0-9]*:SK_API ' >"$tmp/unmarked"
if [ "$napi" -gt 0 ] && [ ! -s "$tmp/unmarked" ]; then
    echo "ok 1 - skylark.h marks each of its $napi functions SK_API"
else
    echo "not ok 1 - skylark.h marks each of its $napi functions SK_API"
    sed 's/^/# unmarked: /' "$tmp/unmarked"
fi

if $NM -D --defined-only "$so" >"$tmp/nm" 2>"$tmp/nm.err"; then
    awk 'NF >= 3 { print $3 }' "$tmp/nm" | sort -u >"$tmp/all"
    echo "ok 2 - $NM -D lists $(wc -l <"$tmp/all") symbols of $dlname"
else
    echo "not ok 2 - $NM -D $so"
    sed 's/^/# /' "$tmp/nm.err"
    : >"$tmp/all"
fi
grep -v '^_' "$tmp/all" >"$tmp/exported"
grep '^_' "$tmp/all" | sed 's/^/# from the toolchain: /'

comm -23 "$tmp/api" "$tmp/exported" >"$tmp/missing"
if [ ! -s "$tmp/missing" ]; then
    echo "ok 3 - every SK_API function is exported"
else
    echo "not ok 3 - every SK_API function is exported"
    sed 's/^/# not exported: /' "$tmp/missing"
fi

comm -13 "$tmp/api" "$tmp/exported" >"$tmp/extra"
if [ ! -s "$tmp/extra" ]; then
    echo "ok 4 - nothing but the $napi SK_API functions is exported"
else
    echo "not ok 4 - nothing but the $napi SK_API functions is exported" \
        "($(wc -l <"$tmp/extra") more)"
    sed 's/^/# exported but not SK_API: /' "$tmp/extra"
fi
