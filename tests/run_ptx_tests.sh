#!/bin/sh
# run_ptx_tests.sh - runs each tests/ptx/*.ptx with ptxrun and compares its output with the
# .expected file recorded on an H100 (see docs/testing.md).
#
# Usage: tests/run_ptx_tests.sh [PTXRUN [TEST ...]]
#   PTXRUN  the driver binary, default ./tests/ptxrun
#   TEST    test names (without .ptx) to run; default all
# A test passes when ptxrun exits 0 and its stdout equals the .expected file, except that a
# test carrying `// @tolerance-ulp N` accepts 32-bit values within N ulps of the expected
# ones, and one carrying `// @tolerance-abs X` values whose f32 readings differ by at most X
# (approximate functions; NaN, infinities and other lines must still match exactly).
# Prints PASS/FAIL per test and a summary; exits 1 if any test failed.
set -u
PTXRUN=${1:-./tests/ptxrun}
[ $# -gt 0 ] && shift
DIR=${PTX_TEST_DIR:-$(dirname "$0")/ptx}
if [ ! -x "$PTXRUN" ]; then
    echo "run_ptx_tests.sh: no executable $PTXRUN" >&2
    exit 2
fi
TMP=$(mktemp -d) || exit 2
trap 'rm -rf "$TMP"' EXIT INT TERM

# Compares expected ($1) with actual ($2): 32-bit values may be $3 ulps apart (mode ulp) or
# $3 apart as f32 numbers (mode abs, $4).
tol_compare() {
    awk -v tol="$3" -v mode="$4" '
    function hex(s,   i, v) { v = 0; s = tolower(s)
        for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
        return v }
    function key(v) { return v >= 2147483648 ? 2147483648 - v : v }   # ordered like the floats
    function special(v) { return (v % 2147483648) >= 2139095040 }      # inf or NaN
    function f32(v,   s, e, m) { s = v >= 2147483648 ? -1 : 1; v %= 2147483648
        e = int(v / 8388608); m = v % 8388608
        return e ? s * (1 + m / 8388608) * 2 ^ (e - 127) : s * m * 2 ^ -149 }
    function near(a, b,   pa, pb, va, vb, d) {
        pa = index(a, "= 0x"); pb = index(b, "= 0x")
        if (!pa || pa != pb || substr(a, 1, pa) != substr(b, 1, pb)) return 0
        if (length(a) != pa + 11 || length(b) != pb + 11) return 0      # 8 hex digits only
        va = hex(substr(a, pa + 4)); vb = hex(substr(b, pb + 4))
        if (special(va) || special(vb)) return 0
        d = mode == "abs" ? f32(va) - f32(vb) : key(va) - key(vb)
        if (d < 0) d = -d
        return d <= tol + 0 }
    NR == FNR { e[FNR] = $0; n = FNR; next }
    { g[FNR] = $0; m = FNR }
    END { if (n != m) exit 1
          for (i = 1; i <= n; i++) if (e[i] != g[i] && !near(e[i], g[i])) exit 1
          exit 0 }' "$1" "$2"
}

# The value of directive $2 in test file $1, or nothing.
directive() {
    sed -n "s|^[[:space:]]*//[[:space:]]*@$2[[:space:]][[:space:]]*\([^[:space:]]*\).*|\1|p" "$1" | head -n 1
}

pass=0
fail=0
if [ $# -gt 0 ]; then
    list=""
    for n in "$@"; do list="$list $DIR/$n.ptx"; done
else
    list=$(ls "$DIR"/*.ptx)
fi
for t in $list; do
    name=$(basename "$t" .ptx)
    exp="$DIR/$name.expected"
    if [ ! -f "$t" ] || [ ! -f "$exp" ]; then
        echo "FAIL $name (missing .ptx or .expected)"
        fail=$((fail + 1))
        continue
    fi
    if command -v timeout >/dev/null 2>&1; then
        timeout "${PTX_TEST_TIMEOUT:-300}" "$PTXRUN" "$t" >"$TMP/out" 2>"$TMP/err"
    else
        "$PTXRUN" "$t" >"$TMP/out" 2>"$TMP/err"
    fi
    rc=$?
    ulp=$(directive "$t" tolerance-ulp)
    abs=$(directive "$t" tolerance-abs)
    if [ -n "$ulp" ]; then
        tol_compare "$exp" "$TMP/out" "$ulp" ulp
    elif [ -n "$abs" ]; then
        tol_compare "$exp" "$TMP/out" "$abs" abs
    else
        cmp -s "$exp" "$TMP/out"
    fi
    same=$?
    if [ $rc -eq 0 ] && [ $same -eq 0 ]; then
        echo "PASS $name"
        pass=$((pass + 1))
    else
        echo "FAIL $name (exit status $rc$([ $same -ne 0 ] && echo ', output differs'))"
        diff "$exp" "$TMP/out" | head -n 8 | sed 's/^/    /'
        tail -n 3 "$TMP/err" | sed 's/^/    stderr: /'
        fail=$((fail + 1))
    fi
done
echo "ptx tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
