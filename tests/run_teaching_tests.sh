#!/bin/sh
# run_teaching_tests.sh - what a class hits in its first week (issue 23), on the small programs
# of tests/teach/first_week.cu: warp-synchronous intrinsics after lanes exited, and a lane
# outside its own membermask reported as undefined behaviour; an access past an allocation
# that a plain run only warns about is an error for --report-json and ptxemu race.
# Exit: 0 all passed, 1 some failed, 77 (automake "skipped") without nvcc.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "${abs_top_srcdir:-$here/..}" && pwd)
builddir=${abs_top_builddir:-$(pwd)}
ptxemu=${PTXEMU:-$builddir/runtime/ptxemu}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "run_teaching_tests: no nvcc: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-teach.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); [ -f "$tmp/err" ] && head -n 5 "$tmp/err"; }
prog=$tmp/first_week
src=$srcdir/tests/teach/first_week.cu
line_of() { grep -n -- "$1" "$src" | head -n 1 | cut -d: -f1; }   # the line of a marker
L_shfl=$(line_of "__shfl_sync(0x0000ffff")
L_syncwarp=$(line_of "    __syncwarp(0x0000ffff)")
L_oob=$(line_of "i == n writes one element past")
L_race_w=$(line_of "s\[threadIdx.x\] = threadIdx.x;")
L_race_r=$(line_of "the other warp's element, no barrier")
L_winner=$(line_of "threads 0, 8, ..., 56 share")
(cd "$srcdir/tests/teach" && "$NVCC" -arch=sm_90 --cudart shared -O2 -lineinfo -o "$prog" first_week.cu) || exit 99

# 1. lanes 16-31 returned: a full mask waits only for lanes 0-15 (no false deadlock)
"$ptxemu" "$prog" half_return >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -qx "sum 120 ballot ffff" "$tmp/out" && grep -qx "half_return: cudaSuccess" "$tmp/out" &&
   [ ! -s "$tmp/err" ]; then
    ok "exited lanes are not waited for by a full-mask shuffle and ballot"
else
    bad "exited lanes are not waited for by a full-mask shuffle and ballot (exit $rc)"
fi

# 1. a lane outside its own membermask: reported with the line, the run goes on as on an H200
"$ptxemu" --report-json "$tmp/r.json" "$prog" shfl_outside >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -qx "lane 0 100 lane 31 100" "$tmp/out" &&
   grep -q "^ptxemu: undefined behaviour: kernel .*first_week.cu:$L_shfl.*thread (16,0,0): lane 16 executes shfl.sync with membermask 0x0000ffff, which does not name it (16 lanes of the warp do so)" "$tmp/err" &&
   [ "$(grep -c 'undefined behaviour' "$tmp/err")" = 1 ] &&
   grep -q '"errors":1,' "$tmp/r.json" && grep -q '"kind":"undefined"' "$tmp/r.json"; then
    ok "a lane outside its shfl.sync membermask is reported as undefined behaviour, once, and counted"
else
    bad "a lane outside its shfl.sync membermask is reported as undefined behaviour, once, and counted (exit $rc)"
fi
"$ptxemu" "$prog" syncwarp_outside >"$tmp/out" 2>"$tmp/err"
if grep -q "^ptxemu: undefined behaviour: .*first_week.cu:$L_syncwarp.*lane 16 executes bar.warp.sync with membermask 0x0000ffff" "$tmp/err" &&
   grep -qx "syncwarp_outside: cudaSuccess" "$tmp/out"; then
    ok "a lane outside its __syncwarp mask is reported as undefined behaviour"
else
    bad "a lane outside its __syncwarp mask is reported as undefined behaviour"
fi

# 3. an out-of-bounds write the GPU's pages tolerate: a warning on a plain run, an error in
# --report-json and for ptxemu race (compute-sanitizer's memcheck counts it)
"$ptxemu" "$prog" oob >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -q "^ptxemu: warning: .*first_week.cu:$L_oob.*invalid global write of 4 bytes.*(past its end)" "$tmp/err" &&
   grep -qx "oob: cudaSuccess" "$tmp/out"; then
    ok "a tolerated out-of-bounds write warns on a plain run"
else
    bad "a tolerated out-of-bounds write warns on a plain run (exit $rc)"
fi
"$ptxemu" --report-json "$tmp/r.json" "$prog" oob >"$tmp/out" 2>"$tmp/err"
if grep -q '"errors":1,' "$tmp/r.json" && grep -q '"out_of_bounds":\[' "$tmp/r.json" &&
   grep -q '"kind":"out-of-bounds".*"src_line":'"$L_oob" "$tmp/r.json"; then
    ok "--report-json counts a tolerated out-of-bounds write as an error"
else
    bad "--report-json counts a tolerated out-of-bounds write as an error"
fi
PTXEMU_LOG=0 "$ptxemu" --report-json "$tmp/r.json" "$prog" oob >"$tmp/out" 2>"$tmp/err"
if grep -q '"errors":1,' "$tmp/r.json" && ! grep -q "warning" "$tmp/err"; then
    ok "PTXEMU_LOG=0 silences the warning but the report still counts it"
else
    bad "PTXEMU_LOG=0 silences the warning but the report still counts it"
fi
"$ptxemu" race --seeds 3 "$prog" oob >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && grep -q "seed 1 reports a hazard or fault" "$tmp/out" && grep -q "replay: ptxemu --seed 1" "$tmp/out"; then
    ok "ptxemu race stops at a tolerated out-of-bounds write"
else
    bad "ptxemu race stops at a tolerated out-of-bounds write (exit $rc)"
fi
"$ptxemu" race --seeds 2 "$prog" half_return >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -q "2 seeds, all outputs identical" "$tmp/out"; then
    ok "ptxemu race passes a correct program"
else
    bad "ptxemu race passes a correct program (exit $rc)"
fi

# 4. the profiler counts the instructions some lane executes: a fully converged copy kernel,
# whose bounds check is a branch no lane takes, has all 32 lanes active (was 30.1)
"$ptxemu" --profile --report-json "$tmp/r.json" "$prog" copy >"$tmp/out" 2>"$tmp/err"
if grep -q "^ptxemu: profile:   instructions: 1024 warp, 32768 thread; 32.0 of 32 lanes active on average$" "$tmp/err" &&
   grep -q '"kind":"profile",.*"warp_instructions":1024,"thread_instructions":32768' "$tmp/r.json"; then
    ok "the profile counts only instructions some lane executes: 32.0 of 32 lanes active"
else
    bad "the profile counts only instructions some lane executes: 32.0 of 32 lanes active"
fi

# 2. deterministic mode: asynchronous work completes where the seed says, between its issue
# and the synchronisation that orders it, so a missing synchronisation gives a wrong result
# under some seeds (the same ones every time); without a seed work completes at issue
: >"$tmp/sums"
for s in 1 2 3 4 5 6 7 8; do
    "$ptxemu" --seed $s "$prog" nosync >>"$tmp/sums" 2>"$tmp/err"
done
"$ptxemu" --seed 3 "$prog" nosync >"$tmp/again3" 2>&1
"$ptxemu" --seed 3 "$prog" nosync >"$tmp/once3" 2>&1
"$ptxemu" "$prog" nosync >"$tmp/noseed" 2>&1
if grep -q "^sum before synchronising 0, after 65655$" "$tmp/sums" &&
   grep -q "^sum before synchronising 65655, after 65655$" "$tmp/sums" &&
   cmp -s "$tmp/again3" "$tmp/once3" && grep -q "^sum before synchronising 65655, after 65655$" "$tmp/noseed"; then
    ok "a missing synchronisation gives a wrong result under some seeds, the same each time"
else
    bad "a missing synchronisation gives a wrong result under some seeds, the same each time"
    sort "$tmp/sums" | uniq -c
fi
# 2. with --racecheck the host's read of the download in flight is a host-device race
"$ptxemu" --racecheck --report-json "$tmp/r.json" "$prog" nosync >"$tmp/out" 2>"$tmp/err"
if grep -q "^ptxemu: race: host-device in pinned memory at 0x[0-9a-f]* (offset 0 of a 8192-byte allocation at 0x[0-9a-f]*): the host reads it at .*first_week+0x[0-9a-f]* while cuMemcpyDtoHAsync_v2, issued on stream #1 at .*, writes it, and nothing has made the host wait for that work; synchronise before" "$tmp/err" &&
   grep -q '"kind":"host-device","space":"pinned"' "$tmp/r.json" && grep -q '"errors":1,' "$tmp/r.json"; then
    ok "--racecheck reports the host's read of a download in flight, with the call, stream and place"
else
    bad "--racecheck reports the host's read of a download in flight, with the call, stream and place"
fi

# 5. kernel names as people read them in messages, the profile and the timeline; JSON keeps both
"$ptxemu" --report-json "$tmp/r.json" --timeline "$tmp/tl.json" "$prog" oob >"$tmp/out" 2>"$tmp/err"
if grep -q "^ptxemu: warning: kernel byte_hist(unsigned char const\*, int, unsigned int\*), " "$tmp/err" &&
   grep -q '"kernel":"_Z9byte_histPKhiPj","demangled":"byte_hist(unsigned char const\*, int, unsigned int\*)"' "$tmp/r.json" &&
   grep -q '"name":"byte_hist(unsigned char const\*, int, unsigned int\*)","cat":"launch","ph":"X"' "$tmp/tl.json"; then
    ok "kernel names are demangled in messages and the timeline; the report keeps both"
else
    bad "kernel names are demangled in messages and the timeline; the report keeps both"
fi

# 5. race reports: the hint fits the race's scope (a block-level race is told about
# __syncthreads(), a race inside one warp about __syncwarp()); the JSON carries it; on a
# terminal the report is wrapped to its width and the hint comes once, on lines of its own
"$ptxemu" --report-json "$tmp/r.json" --racecheck "$prog" block_race >"$tmp/out" 2>"$tmp/err"
if [ "$(grep -c '^ptxemu: race: ' "$tmp/err")" = 2 ] &&
   [ "$(grep -c "with nothing ordering them; no barrier separates first_week.cu:\($L_race_w\|$L_race_r\) and first_week.cu:\($L_race_w\|$L_race_r\): a __syncthreads() (bar.sync) between these lines.* (32 times; seed 1)\$" "$tmp/err")" = 2 ] &&
   ! grep -q "__syncwarp" "$tmp/err" && grep -q '"hint":"no barrier separates first_week.cu' "$tmp/r.json"; then
    ok "a block-level race is hinted at with __syncthreads(), in its JSON too"
else
    bad "a block-level race is hinted at with __syncthreads(), in its JSON too"
fi
"$ptxemu" --racecheck "$prog" warp_race >"$tmp/out" 2>"$tmp/err"
if grep -q "^ptxemu: race: [a-z-]* .*; both threads are in one warp .* a __syncwarp() there orders the lanes of a warp" "$tmp/err"; then
    ok "a race between lanes of one warp is hinted at with __syncwarp()"
else
    bad "a race between lanes of one warp is hinted at with __syncwarp()"
fi
# two stores of one line to one word (a "winner" store): the hint says that the hardware's
# order picks the value, and names atomics and an explicit choice, not only x++
"$ptxemu" --report-json "$tmp/r.json" --racecheck "$prog" winner >"$tmp/out" 2>"$tmp/err"
if grep -q "^ptxemu: race: write-after-write in shared memory .*first_week.cu:$L_winner.* with nothing ordering them; both writes come from first_week.cu:$L_winner: when threads store to one location there, the value that stays is the one the hardware happens to store last; .*(atomicMin of its index)" "$tmp/err" &&
   ! grep -q "read-modify-write" "$tmp/err" && grep -q '"hint":"both writes come from first_week.cu' "$tmp/r.json" &&
   grep -qx "winner: cudaSuccess" "$tmp/out"; then
    ok "a write-after-write of one line is hinted at as the hardware's choice of the value that stays"
else
    bad "a write-after-write of one line is hinted at as the hardware's choice of the value that stays"
fi
if command -v script >/dev/null 2>&1; then
    COLUMNS=80 script -q -e -c "stty cols 80 2>/dev/null; '$ptxemu' --racecheck '$prog' block_race" /dev/null >"$tmp/tty" 2>&1
    tr -d '\r' <"$tmp/tty" >"$tmp/tty2"
    long=$(awk 'length($0) > 80' "$tmp/tty2" | wc -l)
    if [ "$long" = 0 ] && [ "$(grep -c '^ptxemu: race: ' "$tmp/tty2")" = 2 ] &&
       [ "$(grep -c '^    hint: no barrier separates' "$tmp/tty2")" = 2 ] && [ "$(grep -c 'hint' "$tmp/tty2")" = 2 ] &&
       grep -q '^    .*(32 times; seed 1)$' "$tmp/tty2"; then
        ok "on a terminal a race report is wrapped to its width with the hint once, on its own lines"
    else
        bad "on a terminal a race report is wrapped to its width with the hint once, on its own lines"
        head -n 12 "$tmp/tty2"
    fi
fi

# 5. ptxemu race on a terminal keeps a progress line (seeds done, rate, time left) on stderr,
# erased at the end; in a file or pipe there is none
if command -v script >/dev/null 2>&1; then
    script -q -e -c "'$ptxemu' race --seeds 3 '$prog' half_return" /dev/null >"$tmp/tty" 2>&1
    if grep -q "ptxemu race: 2 of 3 seeds done, [0-9.]* seeds/s, about [0-9]* s left" "$tmp/tty" &&
       grep -q "ptxemu race: 3 seeds, all outputs identical" "$tmp/tty"; then
        ok "ptxemu race shows its progress on a terminal"
    else
        bad "ptxemu race shows its progress on a terminal"
    fi
fi
"$ptxemu" race --seeds 3 "$prog" half_return >"$tmp/out" 2>"$tmp/err"
if ! grep -q "seeds done" "$tmp/out" "$tmp/err"; then
    ok "ptxemu race shows no progress line in a file"
else
    bad "ptxemu race shows no progress line in a file"
fi

# 5. device printf keeps the GPU's FIFO: a record of 256 bytes a line, at least 512 KiB, fixed
# once a kernel printed; the lines that do not fit are dropped and counted (as an H200 does,
# tests/gpu/printf_fifo_h200.txt; the GPU says nothing, ptxemu warns)
"$ptxemu" --report-json "$tmp/r.json" "$prog" printf_fifo >"$tmp/out" 2>"$tmp/err"
if [ "$(grep -c '^line ' "$tmp/out")" = 2048 ] && grep -q "^set cudaSuccess, now 524288$" "$tmp/err" &&
   grep -q "^set after a launch: cudaErrorInvalidValue$" "$tmp/err" &&
   grep -q "^ptxemu: warning: kernel say(): device printf dropped 2048 of its 4096 lines: the printf FIFO (cudaLimitPrintfFifoSize, 524288 bytes) holds 2048, 256 bytes each" "$tmp/err"; then
    ok "device printf keeps the GPU's FIFO: 2048 lines in 512 KiB, the rest dropped and counted"
else
    bad "device printf keeps the GPU's FIFO: 2048 lines in 512 KiB, the rest dropped and counted"
fi
"$ptxemu" "$prog" printf 300 >"$tmp/out" 2>"$tmp/err"
if [ "$(grep -c '^line ' "$tmp/out")" = 512 ] && ! grep -q "dropped" "$tmp/err"; then
    ok "device printf within the default FIFO prints every line"
else
    bad "device printf within the default FIFO prints every line"
fi

# 5. option values are checked before the program starts: a clear error, exit status 2
for o in "--timeout abc" "--timeout -3" "--threads 0" "-t many" "--log 7" "--seed -1" "--seed 1x" \
         "--device-count 17" "--clock fast"; do
    # shellcheck disable=SC2086  # o is an option and its value
    "$ptxemu" $o "$prog" half_return >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc = 2 ] && grep -q "^ptxemu: $o: expected " "$tmp/err" && [ ! -s "$tmp/out" ]; then
        ok "ptxemu $o is refused with exit status 2"
    else
        bad "ptxemu $o is refused with exit status 2 (exit $rc)"
    fi
done
PTXEMU_TIMEOUT=abc "$ptxemu" "$prog" half_return >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q "^ptxemu: PTXEMU_TIMEOUT=abc: expected a number of seconds" "$tmp/err"; then
    ok "PTXEMU_TIMEOUT=abc is refused with exit status 2"
else
    bad "PTXEMU_TIMEOUT=abc is refused with exit status 2 (exit $rc)"
fi
"$ptxemu" --timeout 2.5 --seed 0x10 -t 2 "$prog" half_return >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -qx "sum 120 ballot ffff" "$tmp/out"; then
    ok "good option values are taken"
else
    bad "good option values are taken (exit $rc)"
fi
"$ptxemu" debug --seed x "$prog" half_return >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q "^ptxemu debug: --seed x: expected a seed" "$tmp/err"; then
    ok "ptxemu debug --seed x is refused"
else
    bad "ptxemu debug --seed x is refused (exit $rc)"
fi

echo "teaching tests: $pass passed, $fail failed"
[ $fail = 0 ]
