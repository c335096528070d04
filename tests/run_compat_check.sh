#!/bin/sh
# run_compat_check.sh - docs/compatibility.md is generated (docs/gen_compatibility.sh) from the
# code's own tables; this test fails when the checked-in file differs from what the code and
# recordings give now, so the table cannot drift. Fix: make compatibility.
# Exit: 0 up to date, 1 out of date or not generated.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "${abs_top_srcdir:-$here/..}" && pwd)
builddir=${abs_top_builddir:-$(pwd)}
tmp=$(mktemp "${TMPDIR:-/tmp}/ptxemu-compat.XXXXXX") || exit 99
trap 'rm -f "$tmp"' EXIT INT TERM
bash "$srcdir/docs/gen_compatibility.sh" "$srcdir" "$builddir" >"$tmp" || exit 1
if diff -u "$srcdir/docs/compatibility.md" "$tmp" >/dev/null; then
    echo "PASS: docs/compatibility.md is up to date"
    exit 0
fi
echo "FAIL: docs/compatibility.md is out of date (run: make compatibility); the difference:"
diff -u "$srcdir/docs/compatibility.md" "$tmp" | head -n 40
exit 1
