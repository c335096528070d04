#!/bin/sh
# run_tier_tests.sh - the PTX and CUDA suites again under the compiled tier: PTXEMU_TIER=compiled
# builds every kernel with the system compiler before its first launch (jit/compile.c), and a
# kernel it cannot build fails to load. Compiled and interpreted code must give the same bytes,
# so the same recordings hold. The CUDA suite's programs are those of tests/run_cuda_tests.sh
# (tests/cuda-bin/), built by whichever run gets to one first (a lock each). The compiled
# kernels are cached in BUILDDIR/tests/jit-cache.
# Usage: tests/run_tier_tests.sh [BUILDDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-${abs_top_builddir:-$here/..}}" && pwd)
command -v "${PTXEMU_JIT_CC:-cc}" >/dev/null 2>&1 || { echo "SKIP: no C compiler for the compiled tier"; exit 77; }
PTXEMU_TIER=compiled
PTXEMU_JIT_CACHE=$build/tests/jit-cache
# a cold cache builds each kernel first (about a second each)
CUDA_TEST_TIMEOUT=${CUDA_TEST_TIMEOUT:-600}
# and the largest PTX kernels take a long time of cc on a busy 2-core machine (call_blocks.ptx's
# 300 call sites: about 40 CPU-seconds since large kernels are built in parts, 75-150 before,
# and several times that in wall time when the machine is shared), which the interpreted
# suite's 300 s does not allow
PTX_TEST_TIMEOUT=${PTX_TEST_TIMEOUT:-900}
export PTXEMU_TIER PTXEMU_JIT_CACHE CUDA_TEST_TIMEOUT PTX_TEST_TIMEOUT
fail=0

# in_parts SCRIPT ARG NAME...: SCRIPT ARG on the names, dealt out in turn to TIER_JOBS (default:
# the CPUs) runs at once, whose outputs are then printed one after another; 0 when all passed,
# 77 when they skipped, 1 otherwise. Most of this test's time is cc building kernels, one at a
# time in a process; the programs are independent, and the compile cache takes concurrent
# builders (pid-named temporary files renamed into place, jit/compile.c).
jobs=${TIER_JOBS:-$(nproc 2>/dev/null || echo 1)}
in_parts() {
    script=$1 arg=$2
    shift 2
    parts=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-parts.XXXXXX") || return 1
    i=0
    while [ $i -lt "$jobs" ]; do
        k=0 names=
        for x in "$@"; do
            [ $((k % jobs)) = $i ] && names="$names $x"
            k=$((k + 1))
        done
        # shellcheck disable=SC2086  # names are test names without spaces
        [ -n "$names" ] && { sh "$script" "$arg" $names >"$parts/out.$i" 2>&1; echo $? >"$parts/rc.$i"; } &
        i=$((i + 1))
    done
    wait
    prc=0
    for f in "$parts"/out.*; do
        cat "$f"
        r=$(cat "$parts/rc.${f##*.}")
        if [ "$r" = 77 ]; then [ $prc = 0 ] && prc=77; elif [ "$r" != 0 ]; then prc=1; fi
    done
    rm -rf "$parts"
    return $prc
}

echo "== PTX suite, compiled tier"
in_parts "$here/run_ptx_tests.sh" "$build/tests/ptxrun" $(cd "$here/ptx" && ls *.ptx | sed 's/\.ptx$//') || fail=1
# tests/tier/: kernels whose runs take the compiled tier's rarer paths (a later phase's check
# failing, a fault inside a run, part of a warp); no GPU recording, the interpreter's bytes
# are the reference (same output, same messages, same exit status)
echo "== compiled tier against the interpreter (tests/tier)"
t=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-tier.XXXXXX") || exit 99
for f in "$here"/tier/*.ptx; do
    n=$(basename "$f" .ptx)
    (cd "$here/tier" && PTXEMU_TIER=interp "$build/tests/ptxrun" "$n.ptx" >"$t/$n.interp" 2>&1; echo "exit=$?" >>"$t/$n.interp")
    (cd "$here/tier" && "$build/tests/ptxrun" "$n.ptx" >"$t/$n.compiled" 2>&1; echo "exit=$?" >>"$t/$n.compiled")
    # shfl_known checks its shuffles itself (the tiers share the translator's folding)
    if [ "$n" = shfl_known ] && ! grep -qx 'err\[0\] = 0x00000000' "$t/$n.interp"; then
        echo "FAIL: $n: lanes whose shuffle differs from its registers' values:"; grep '^err' "$t/$n.interp"; fail=1
    elif cmp -s "$t/$n.interp" "$t/$n.compiled"; then
        echo "PASS: $n"
    else
        echo "FAIL: $n"; diff "$t/$n.interp" "$t/$n.compiled" | head -20; fail=1
    fi
done
# PTXEMU_JIT_REPORT names what a compiled kernel calls: fma_contracted.ptx's contracted pairs
# are written inline, its ret is called, its loads and stores are inline for whole warps only
(cd "$here/tier" && PTXEMU_JIT_REPORT=json PTXEMU_JIT_CACHE=$t/report-cache "$build/tests/ptxrun" fma_contracted.ptx \
    2>&1 >/dev/null | grep '^{"kernel"' >"$t/report")
if grep -q '"handler":"h_ret","op":"ret","calls":2' "$t/report" && grep -q '"op":"st","calls":0,"partial":' "$t/report" &&
   ! grep -q 'h_mulc\|h_fmac\|h_movc' "$t/report"; then
    echo "PASS: PTXEMU_JIT_REPORT=json names the called handlers"
else
    echo "FAIL: PTXEMU_JIT_REPORT=json:"; cat "$t/report"; fail=1
fi
# bar_inline.ptx's three bar.sync (no thread count) are written inline for whole warps
# (jit/compile.c: emit_bar), its third warp of 16 lanes calling the handler
(cd "$here/tier" && PTXEMU_JIT_REPORT=json PTXEMU_JIT_CACHE=$t/report-cache "$build/tests/ptxrun" bar_inline.ptx \
    2>&1 >/dev/null | grep '^{"kernel"' >"$t/report-bar")
if grep -q '"handler":"h_bar_sync_plain","op":"bar","calls":0,"partial":3' "$t/report-bar"; then
    echo "PASS: bar_inline.ptx's bar.sync are inline for whole warps"
else
    echo "FAIL: bar_inline.ptx's PTXEMU_JIT_REPORT=json:"; cat "$t/report-bar"; fail=1
fi
# and the conversions, predicate logic and min/max of cvt_*.ptx, pred_logic.ptx and minmax.ptx
# are inline: their kernels call only ret
for n in cvt_fi cvt_if cvt_ff pred_logic minmax; do
    (cd "$here/tier" && PTXEMU_JIT_REPORT=json PTXEMU_JIT_CACHE=$t/report-cache "$build/tests/ptxrun" $n.ptx \
        2>&1 >/dev/null | grep '^{"kernel"' >"$t/report-$n")
    if grep -q '"calls":2,"handlers":' "$t/report-$n" && grep -q '"handler":"h_ret","op":"ret","calls":2' "$t/report-$n" &&
       ! grep -q '"handler":"cvt\|_pred"' "$t/report-$n"; then
        echo "PASS: $n.ptx's compiled kernel calls only ret"
    else
        echo "FAIL: $n.ptx's PTXEMU_JIT_REPORT=json:"; cat "$t/report-$n"; fail=1
    fi
done
# local_lanes.ptx's .local loads and stores (and its frame slots) find their lanes' host
# addresses inline (exec_mem_fast.h's local_fast), not through the library's mem_warp_fast;
# run_jump.ptx's switch join (pc 18) and loop head (pc 29), inside the run before each, start
# runs of their own
(cd "$here/tier" && PTXEMU_JIT_KEEP=1 PTXEMU_JIT_CACHE=$t/keep-local "$build/tests/ptxrun" local_lanes.ptx >/dev/null 2>&1)
(cd "$here/tier" && PTXEMU_JIT_KEEP=1 PTXEMU_JIT_CACHE=$t/keep-jump "$build/tests/ptxrun" run_jump.ptx >/dev/null 2>&1)
if [ "$(cat "$t"/keep-local/*.c 2>/dev/null | grep -c 'local_fast(w, ROWP')" -ge 20 ] &&
   ! cat "$t"/keep-local/*.c | grep -q 'rt->warp_fast(w, &code'; then
    echo "PASS: local_lanes.ptx's local accesses are inline"
else
    echo "FAIL: local_lanes.ptx's compiled C calls rt->warp_fast or lacks local_fast"; fail=1
fi
if cat "$t"/keep-jump/*.c 2>/dev/null | grep -q 'instructions 18\.\.[0-9]* \*/' &&
   cat "$t"/keep-jump/*.c | grep -q 'instructions 29\.\.[0-9]* \*/'; then
    echo "PASS: run_jump.ptx's branch targets start runs"
else
    echo "FAIL: run_jump.ptx's runs:"; cat "$t"/keep-jump/*.c 2>/dev/null | grep 'instructions [0-9]*\.\.'; fail=1
fi
# run_branch.ptx's bounds test is inside its run (the run goes on past a branch no lane takes),
# its four global accesses share one consecutive-lanes test (of the 32-bit index their
# `mul.wide.s32` widens), and its store takes its load's span
(cd "$here/tier" && PTXEMU_JIT_KEEP=1 PTXEMU_JIT_CACHE=$t/keep-branch "$build/tests/ptxrun" run_branch.ptx >/dev/null 2>&1)
if cat "$t"/keep-branch/*.c 2>/dev/null | grep -q 'if (P\[[0-9]*\] ^ 0u) goto fail' &&
   [ "$(cat "$t"/keep-branch/*.c | grep -c 'uint64_t c[0-9]*;')" = 1 ] &&
   [ "$(cat "$t"/keep-branch/*.c | grep -c 'if (!c[0-9]*) {')" = 3 ] &&
   cat "$t"/keep-branch/*.c | grep -q 'uint8_t \*q[0-9]* = q[0-9]*, '; then
    echo "PASS: run_branch.ptx's run holds its branch and shares its accesses' checks"
else
    echo "FAIL: run_branch.ptx's compiled C:"; cat "$t"/keep-branch/*.c 2>/dev/null | grep 'goto fail\|uint64_t c[0-9]*;\|if (!c\|= q[0-9]*,'; fail=1
fi
# run_cut.ptx's runs end where the next one starts (a branch target), and only its copy loop's
# run, which a barrier's short turn may enter, has a run after its first access: no
# instruction is in more than two runs (each ld/st.shared pair used to start a run to the end)
(cd "$here/tier" && PTXEMU_JIT_KEEP=1 PTXEMU_JIT_CACHE=$t/keep-cut "$build/tests/ptxrun" run_cut.ptx >/dev/null 2>&1)
runs=$(cat "$t"/keep-cut/*.c 2>/dev/null | sed -n 's|^/\* instructions \([0-9]*\)\.\.\([0-9]*\) \*/$|\1 \2|p' |
       awk '{ for (i = $1; i <= $2; i++) if (++n[i] > m) m = n[i]; r++ } END { print r + 0, m + 0 }')
if [ "${runs% *}" -ge 4 ] && [ "${runs#* }" -le 2 ]; then
    echo "PASS: run_cut.ptx's runs ($runs: runs, most runs an instruction is in) do not repeat its code"
else
    echo "FAIL: run_cut.ptx's runs (runs, most runs an instruction is in: $runs):"
    cat "$t"/keep-cut/*.c 2>/dev/null | grep '^/\* instructions'; fail=1
fi
# run_rowkey.ptx's 8-byte gather tests its own address's lanes, not the row the run redefined
(cd "$here/tier" && PTXEMU_JIT_KEEP=1 PTXEMU_JIT_CACHE=$t/keep-rowkey "$build/tests/ptxrun" run_rowkey.ptx >/dev/null 2>&1)
if cat "$t"/keep-rowkey/*.c 2>/dev/null |
   grep -q 'c[0-9]* |= ((uint64_t)v[0-9]*\[l\]) ^ (o0 + (uint64_t)l \* (sizeof(uint64_t) \* 1))'; then
    echo "PASS: run_rowkey.ptx's lane test reads its address, not a row the run redefined"
else
    echo "FAIL: run_rowkey.ptx's lane tests:"; cat "$t"/keep-rowkey/*.c 2>/dev/null | grep 'c[0-9]* |='; fail=1
fi
# and shfl_known.ptx's five shuffles of known offset, clamp and membermask registers take the
# form whose lanes' sources are known when compiled (jit/translate.c's known_value), its
# seven others not
(cd "$here/tier" && PTXEMU_JIT_REPORT=json PTXEMU_JIT_CACHE=$t/report-cache "$build/tests/ptxrun" shfl_known.ptx \
    2>&1 >/dev/null | grep '^{"kernel"' >"$t/report")
if grep -q '"handler":"shfl_down","op":"shfl","calls":0,"partial":12,"known":5}' "$t/report"; then
    echo "PASS: registers of a known value give shuffles their immediate form"
else
    echo "FAIL: shfl_known's shuffles of known registers:"; cat "$t/report"; fail=1
fi
# A kernel over JIT_O2_MAX instructions is compiled as several units by concurrent compilers
# (PTXEMU_JIT_JOBS) and linked into one object: ops_large.ptx (7 parts, 4 units of 2) gives
# the interpreter's bytes with one compiler at a time and with two. With two, each unit's
# compiler waits (up to 60 s) until two have started, so a build that ran them one at a time
# is seen, not just slower.
printf '#!/bin/sh\ncase "$*" in *" -c "*)\n  : >"%s/started.$$"; n=0\n  while [ $(ls "%s" | grep -c "^started\\.") -lt 2 ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done\n  [ $n -lt 600 ] || echo serial >>"%s/serial";;\nesac\nexec %s "$@"\n' \
    "$t" "$t" "$t" "$(command -v "${PTXEMU_JIT_CC:-cc}")" >"$t/paircc" && chmod +x "$t/paircc"
cpus=$(nproc 2>/dev/null || echo 1)   # the CPUs of our affinity, as PTXEMU_JIT_JOBS is capped
(cd "$here/tier" && PTXEMU_TIER=interp "$build/tests/ptxrun" ops_large.ptx >"$t/units.interp" 2>&1; echo "exit=$?" >>"$t/units.interp")
for nj in 1 2; do
    cc_=${PTXEMU_JIT_CC:-cc}
    [ $nj = 2 ] && [ "$cpus" -ge 2 ] && cc_=$t/paircc
    (cd "$here/tier" && PTXEMU_JIT_JOBS=$nj PTXEMU_JIT_CC=$cc_ PTXEMU_JIT_CACHE=$t/units$nj \
        "$build/tests/ptxrun" ops_large.ptx >"$t/units$nj.out" 2>&1; echo "exit=$?" >>"$t/units$nj.out")
    if ! cmp -s "$t/units.interp" "$t/units$nj.out"; then
        echo "FAIL: ops_large.ptx built by $nj compilers at once:"; diff "$t/units.interp" "$t/units$nj.out" | head -20; fail=1
    elif [ -s "$t/serial" ]; then
        echo "FAIL: PTXEMU_JIT_JOBS=2 compiled ops_large.ptx's units one at a time"; fail=1
    elif [ "$cc_" = "$t/paircc" ] && [ "$(ls "$t" | grep -c '^started\.')" -lt 2 ]; then
        echo "FAIL: ops_large.ptx was not compiled as several units"; fail=1
    elif [ "$(ls "$t/units$nj" | grep -c '\.so$')" != 1 ] || ls "$t/units$nj" | grep -q '\.o$'; then
        echo "FAIL: PTXEMU_JIT_JOBS=$nj: the cache holds:"; ls "$t/units$nj"; fail=1
    else
        echo "PASS: ops_large.ptx's units built by $nj compiler(s) at once give the interpreter's bytes"
    fi
done
# A module's kernels are built at once (jit/module.c's translate_siblings): siblings.ptx's
# first launch starts its two other kernels' builds beside its own. With PTXEMU_JIT_JOBS=2
# each compiler waits (up to 60 s) until two have started, so builds one after another are
# seen; with PTXEMU_JIT_JOBS=1 a compiler that starts while another runs is seen. Either way
# the launched kernel gives the interpreter's bytes.
printf '#!/bin/sh\ncase "$*" in *.c*)\n  : >"%s/sibcc.$$"; n=0\n  while [ $(ls "%s" | grep -c "^sibcc\\.") -lt 2 ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done\n  [ $n -lt 600 ] || echo serial >>"%s/sibserial";;\nesac\nexec %s "$@"\n' \
    "$t" "$t" "$t" "$(command -v "${PTXEMU_JIT_CC:-cc}")" >"$t/sibpaircc" && chmod +x "$t/sibpaircc"
printf '#!/bin/sh\nls "%s" | grep -q "^run\\." && echo overlap >>"%s/siboverlap"\n: >"%s/run.$$"\n%s "$@"; r=$?\nrm -f "%s/run.$$"\nexit $r\n' \
    "$t" "$t" "$t" "$(command -v "${PTXEMU_JIT_CC:-cc}")" "$t" >"$t/siboncecc" && chmod +x "$t/siboncecc"
(cd "$here/tier" && PTXEMU_TIER=interp "$build/tests/ptxrun" siblings.ptx >"$t/sib.interp" 2>&1; echo "exit=$?" >>"$t/sib.interp")
for nj in 1 2; do
    cc_=$([ $nj = 1 ] && echo "$t/siboncecc" || echo "$t/sibpaircc")
    [ $nj = 2 ] && [ "$cpus" -lt 2 ] && continue
    (cd "$here/tier" && PTXEMU_JIT_JOBS=$nj PTXEMU_JIT_CC=$cc_ PTXEMU_JIT_CACHE=$t/sib$nj \
        "$build/tests/ptxrun" siblings.ptx >"$t/sib$nj.out" 2>&1; echo "exit=$?" >>"$t/sib$nj.out")
    if ! cmp -s "$t/sib.interp" "$t/sib$nj.out"; then
        echo "FAIL: siblings.ptx under PTXEMU_JIT_JOBS=$nj:"; diff "$t/sib.interp" "$t/sib$nj.out" | head -20; fail=1
    elif [ $nj = 2 ] && [ -s "$t/sibserial" ]; then
        echo "FAIL: PTXEMU_JIT_JOBS=2 built siblings.ptx's kernels one at a time"; fail=1
    elif [ $nj = 2 ] && [ "$(ls "$t" | grep -c '^sibcc\.')" -lt 2 ]; then
        echo "FAIL: siblings.ptx's other kernels were not built with the first"; fail=1
    elif [ $nj = 1 ] && [ -s "$t/siboverlap" ]; then
        echo "FAIL: PTXEMU_JIT_JOBS=1 ran two compilers at once for siblings.ptx"; fail=1
    else
        echo "PASS: siblings.ptx's kernels built together by $nj compiler(s) at once, the launched one gives the interpreter's bytes"
    fi
done
# A unit whose compiler fails, or is killed, fails the whole kernel as a failed compile does
# (under PTXEMU_TIER=compiled it does not load; named with the unit's source and log), its
# siblings' objects go, nothing enters the cache, and the next run builds it.
printf '#!/bin/sh\ncase "$*" in *.1.c*) exit 1;; esac\nexec %s "$@"\n' \
    "$(command -v "${PTXEMU_JIT_CC:-cc}")" >"$t/failcc" && chmod +x "$t/failcc"
printf '#!/bin/sh\ncase "$*" in *.2.c*) kill -KILL $$;; esac\nexec %s "$@"\n' \
    "$(command -v "${PTXEMU_JIT_CC:-cc}")" >"$t/killcc" && chmod +x "$t/killcc"
for how in fail kill; do
    (cd "$here/tier" && PTXEMU_JIT_JOBS=2 PTXEMU_JIT_CC=$t/${how}cc PTXEMU_JIT_CACHE=$t/$how \
        "$build/tests/ptxrun" ops_large.ptx >"$t/$how.out" 2>&1; echo "exit=$?" >>"$t/$how.out")
    bad=$([ $how = fail ] && echo 1 || echo 2)
    if ! grep -q "kernel .* could not be compiled (.*\.$bad\.c, .*\.$bad\.log)" "$t/$how.out" ||
       ! grep -q "the compiled tier could not build it" "$t/$how.out" || grep -q '^exit=0$' "$t/$how.out"; then
        echo "FAIL: a unit's compiler that ends by $how: the kernel was not failed as a failed compile is:"
        cat "$t/$how.out"; fail=1
    elif ls "$t/$how" | grep -q '\.so$\|\.o$'; then
        echo "FAIL: a unit's compiler that ends by $how left in the cache:"; ls "$t/$how"; fail=1
    else
        (cd "$here/tier" && PTXEMU_JIT_CACHE=$t/$how "$build/tests/ptxrun" ops_large.ptx >"$t/$how.again" 2>&1
         echo "exit=$?" >>"$t/$how.again")
        if cmp -s "$t/units.interp" "$t/$how.again"; then
            echo "PASS: a unit's compiler that ends by $how fails the kernel's build, and the next run builds it"
        else
            echo "FAIL: after a unit's compiler ended by $how, the next run:"; diff "$t/units.interp" "$t/$how.again" | head; fail=1
        fi
    fi
done
# A program killed while the units of its kernel compile leaves none of their compilers running
# (each under its own watching shell, jit/compile.c's cc_watch)
running() { s_=$(ps -o stat= -p "$1" 2>/dev/null); [ -n "$s_" ] && [ "${s_#Z}" = "$s_" ]; }
printf '#!/bin/sh\necho $$ >>"%s/pids"\nwhile :; do sleep 1; done\n' "$t" >"$t/slowcc" && chmod +x "$t/slowcc"
: >"$t/pids"
(cd "$here/tier" && PTXEMU_JIT_JOBS=2 PTXEMU_JIT_CC=$t/slowcc PTXEMU_JIT_CACHE=$t/slow \
    timeout -s KILL 5 "$build/tests/ptxrun" ops_large.ptx >/dev/null 2>&1; :) 2>/dev/null   # nor the shell's "Killed"
want=$([ "$cpus" -ge 2 ] && echo 2 || echo 1)
n=0
while [ $n -lt 20 ]; do
    left=0
    for p in $(cat "$t/pids"); do running "$p" && left=$((left + 1)); done
    [ $left = 0 ] && break
    sleep 0.5; n=$((n + 1))
done
if [ "$(wc -l <"$t/pids")" -lt "$want" ]; then
    echo "FAIL: $want of ops_large.ptx's unit compilers did not start within 5 s: $(cat "$t/pids")"; fail=1
elif [ $left != 0 ]; then
    echo "FAIL: $left of the unit compilers $(cat "$t/pids") still run 10 s after their program was killed"; fail=1
    kill $(cat "$t/pids") 2>/dev/null
else
    echo "PASS: a program killed while $(wc -l <"$t/pids") unit compilers run leaves none running"
fi
rm -rf "$t"
echo "== CUDA suite, compiled tier"
if [ -n "${PTXEMU_SANITIZER_BUILD:-}" ]; then
    # the sanitizer build checks the library's side of compiled code with the PTX suite; the
    # CUDA suite's ~500 kernels would cost its run another ten minutes of compiling. One
    # program runs (and is built for the checks below)
    echo "(CUDA suite but divergence skipped in a sanitizer build: scripts/sanitize-check.sh)"
    sh "$here/run_cuda_tests.sh" "$build" divergence
    rc=$?
else
    # fma_contract_async is left out: 152 kernels each run once, 160 s of compiling for no
    # more than the PTX suite shows - contraction is decided in jit/contract.c, before
    # either tier, and its fma_contract_* neighbours run here
    names=$(cd "$here/cuda" && ls *.cu | sed 's/\.cu$//' | grep -vx fma_contract_async)
    in_parts "$here/run_cuda_tests.sh" "$build" $names
    rc=$?
fi
[ $rc = 77 ] && { echo "(CUDA suite skipped: no nvcc)"; rc=0; }
# The compiler the tier starts gets the environment without LD_PRELOAD: the launcher puts the
# CUDA shim there (in a sanitizer build the ASan runtime too), which cc must not load.
if [ -x "$build/tests/cuda-bin/divergence" ]; then
    t=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-tier.XXXXXX") || exit 99
    printf '#!/bin/sh\nprintf "%%s" "${LD_PRELOAD:-}" >>"%s/preload"\nexec %s "$@"\n' \
        "$t" "$(command -v "${PTXEMU_JIT_CC:-cc}")" >"$t/cc" && chmod +x "$t/cc"
    : >"$t/preload"
    PTXEMU_JIT_CC=$t/cc PTXEMU_JIT_CACHE=$t/cache "$build/runtime/ptxemu" \
        "$build/tests/cuda-bin/divergence" >"$t/out" 2>&1
    if [ $? = 0 ] && [ -d "$t/cache" ] && [ ! -s "$t/preload" ]; then
        echo "PASS: the compiler runs without the launcher's LD_PRELOAD"
    else
        echo "FAIL: the compiler ran with LD_PRELOAD='$(cat "$t/preload")' (or the program failed):"
        cat "$t/out"; fail=1
    fi
    # A program that ends while the auto tier still compiles one of its kernels in the
    # background stops that compiler instead of waiting for it (a big kernel's build can
    # take longer than the whole program did): the compiler here never ends by itself, so a
    # program that waited would be stopped by timeout (124), and its process is gone after.
    rm -f "$t/pid"
    printf '#!/bin/sh\nprintf "%%s" "$$" >"%s/pid"\nwhile :; do sleep 1; done\n' "$t" >"$t/slowcc" && chmod +x "$t/slowcc"
    # running: a process that is not a zombie (the compiler is the grandchild of the program,
    # under the shell of jit/compile.c; killed, it waits for an init that may reap it late)
    running() { s_=$(ps -o stat= -p "$1" 2>/dev/null); [ -n "$s_" ] && [ "${s_#Z}" = "$s_" ]; }
    PTXEMU_TIER=auto PTXEMU_JIT_HOT=1 PTXEMU_JIT_CC=$t/slowcc PTXEMU_JIT_CACHE=$t/cache2 \
        timeout 120 "$build/runtime/ptxemu" "$build/tests/cuda-bin/divergence" >"$t/out" 2>&1
    rc2=$?
    if [ $rc2 != 0 ]; then
        echo "FAIL: a program whose kernel still compiled at its exit ended with $rc2 (124: it waited):"
        cat "$t/out"; fail=1
    elif [ ! -s "$t/pid" ]; then
        echo "PASS: a program that ends before its kernel's background compile starts (not started this run)"
    elif running "$(cat "$t/pid")"; then
        echo "FAIL: the background compiler still runs after its program ended"; fail=1
        kill "$(cat "$t/pid")"
    elif grep -q 'could not be compiled' "$t/out"; then
        echo "FAIL: a compile stopped at the program's exit was reported as failed:"; cat "$t/out"; fail=1
    else
        echo "PASS: a program ends while its kernel compiles: the compiler is stopped, not waited for"
    fi
    # A program killed while its kernel compiles (by a signal it cannot catch, as `timeout -s
    # KILL` or a batch system's limit do) takes its compiler with it: the compiler's shell
    # watches a pipe only the program holds (jit/compile.c, cc_watch).
    rm -f "$t/pid"
    PTXEMU_TIER=compiled PTXEMU_JIT_CC=$t/slowcc PTXEMU_JIT_CACHE=$t/cache3 \
        timeout -s KILL 5 "$build/runtime/ptxemu" "$build/tests/cuda-bin/divergence" >"$t/out" 2>&1
    n=0
    while [ -s "$t/pid" ] && running "$(cat "$t/pid")" && [ $n -lt 20 ]; do sleep 0.5; n=$((n + 1)); done
    if [ ! -s "$t/pid" ]; then
        echo "FAIL: the compiler did not start within 5 s"; cat "$t/out"; fail=1
    elif running "$(cat "$t/pid")"; then
        echo "FAIL: the compiler still runs 10 s after its program was killed"; fail=1
        kill "$(cat "$t/pid")"
    else
        echo "PASS: a program killed while its kernel compiles leaves no compiler running"
    fi
    rm -rf "$t"
fi
[ $rc = 0 ] || fail=1
exit $fail
