#!/bin/sh
# test_install.sh - libskylark as its users get it: `make install` into a
# staging directory (DESTDIR), then client/examples/upper.c built against
# that copy with nothing but `pkg-config --cflags --libs skylark` (the
# staged skylark.pc found through PKG_CONFIG_PATH, its paths moved into
# the staging directory by PKG_CONFIG_SYSROOT_DIR), and run far enough to
# show that it links and starts (its usage message, exit 2).
#
# A TAP test run by `make check`, which sets top_srcdir, top_builddir,
# PKG_CONFIG and INSTALL_TEST_CC, _CFLAGS, _LDFLAGS (the build's compiler
# and flags, so that a sanitizer build links). Everything it writes is in
# one temporary directory, removed at the end; the build tree and the
# configured prefix are left alone (make distcheck runs it too).

: "${top_srcdir:?run by make check}" "${top_builddir:?run by make check}"
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
CC=${INSTALL_TEST_CC:-cc}
CFLAGS=${INSTALL_TEST_CFLAGS-}
LDFLAGS=${INSTALL_TEST_LDFLAGS-}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
stage=$tmp/stage

# Bounded steps: the whole test stays well under a minute.
bounded() {
    if command -v timeout >/dev/null 2>&1; then
        timeout "$@"
    else
        shift
        "$@"
    fi
}

# Paths pkgconf reports with the sysroot already in front; pkg-config
# (freedesktop) reports them as configured.
staged() {
    case $1 in
    "$stage"/*) echo "$1" ;;
    *) echo "$stage$1" ;;
    esac
}

echo "1..6"

# A make of its own: without the parent's jobserver and command-line
# variables (make check's MAKEFLAGS).
if (
    unset MAKEFLAGS MFLAGS MAKELEVEL
    bounded 40 make -C "$top_builddir" install DESTDIR="$stage"
) >"$tmp/install.log" 2>&1; then
    echo "ok 1 - make install DESTDIR=<tmp>"
else
    echo "not ok 1 - make install DESTDIR=<tmp>"
    tail -20 "$tmp/install.log" | sed 's/^/# /'
    echo "Bail out! nothing installed to build against"
    exit 1
fi

pc=$(find "$stage" -name skylark.pc)
PKG_CONFIG_PATH=${pc%/skylark.pc}
PKG_CONFIG_SYSROOT_DIR=$stage
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
want=$(sed -n 's/^#define SK_VERSION_STRING *"\(.*\)"$/\1/p' \
    "$top_srcdir/client/skylark.h")
got=$($PKG_CONFIG --modversion skylark 2>&1)
if [ -n "$pc" ] && [ "$got" = "$want" ]; then
    echo "ok 2 - $PKG_CONFIG finds the staged skylark.pc, version $got"
else
    echo "not ok 2 - $PKG_CONFIG finds the staged skylark.pc," \
        "version $want (got: $got; .pc: ${pc:-none})"
fi

inc=$(staged "$($PKG_CONFIG --variable=includedir skylark)")
libdir=$(staged "$($PKG_CONFIG --variable=libdir skylark)")
if [ -f "$inc/skylark/skylark.h" ]; then
    echo "ok 3 - the header is installed as <skylark/skylark.h>"
else
    echo "not ok 3 - the header is installed as <skylark/skylark.h>" \
        "(no $inc/skylark/skylark.h)"
fi

flags=$($PKG_CONFIG --cflags --libs skylark)
echo "# pkg-config --cflags --libs skylark: $flags"
# $CFLAGS, $flags and $LDFLAGS are word lists: split on purpose.
# shellcheck disable=SC2086
if bounded 30 $CC $CFLAGS -o "$tmp/upper" \
    "$top_srcdir/client/examples/upper.c" $flags $LDFLAGS \
    >"$tmp/cc.log" 2>&1; then
    echo "ok 4 - client/examples/upper.c builds with pkg-config's flags only"
else
    echo "not ok 4 - client/examples/upper.c builds with pkg-config's flags only"
    sed 's/^/# /' "$tmp/cc.log"
fi

LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
if ! command -v ldd >/dev/null 2>&1; then
    echo "ok 5 # SKIP no ldd"
elif ldd "$tmp/upper" 2>&1 | grep 'libskylark\.so' |
    grep -qF " => $libdir/"; then
    echo "ok 5 - the example loads the staged libskylark"
else
    echo "not ok 5 - the example loads the staged libskylark"
    ldd "$tmp/upper" 2>&1 | sed 's/^/# /'
fi

bounded 10 "$tmp/upper" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q '^usage: upper ' "$tmp/err"; then
    echo "ok 6 - the example starts: usage message, exit 2"
else
    echo "not ok 6 - the example starts: usage message, exit 2 (exit $rc)"
    sed 's/^/# /' "$tmp/err"
fi
