#!/bin/bash
# course.sh - a CUDA course's exercise solutions (the public OLCF CUDA training series, the
# list and build commands of tests/courses/survey.sh) as timed programs: each is built, run
# under ptxemu's default tier as a student would, and timed against a grading limit; the
# output is compared with the H100's (tests/courses/h100/, timing lines set aside). Issue 22
# asks for each to finish within a 120 s grading limit on 2 cores. Method: docs/benchmarks.md.
#
# Usage: bench/course.sh COURSE_DIR [NAME...]
# Environment: PTXEMU (default ./runtime/ptxemu), BASE_PTXEMU (another build's launcher, run
#   too: a before/after in one run), BENCH_OUT (default ./bench/out-course), NVCC,
#   BENCH_COURSE_TIMEOUT (seconds, default 120), PTXEMU_THREADS (default 2), JOBS (programs
#   at once, default 1; with PIN_CORES=1 run k of them is pinned to cores 2k and 2k+1, so
#   several 2-core runs share a larger machine without sharing cores).
set -u
src=${1:?usage: bench/course.sh COURSE_DIR [NAME...]}
shift
src=$(cd "$src/exercises" && pwd) || exit 1
here=$(cd "$(dirname "$0")/.." && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
PTXEMU=${PTXEMU:-$here/runtime/ptxemu}
BASE_PTXEMU=${BASE_PTXEMU:-}
BENCH_OUT=${BENCH_OUT:-$here/bench/out-course}
TMO=${BENCH_COURSE_TIMEOUT:-120}
JOBS=${JOBS:-1}
export PTXEMU_THREADS=${PTXEMU_THREADS:-2}
unset PTXEMU_TIER PTXEMU_SEED PTXEMU_RACECHECK
mkdir -p "$BENCH_OUT/bin" || exit 1
timing='[0-9.]+ *(ms|s|us|sec|seconds|GB/s|MB/s)\b|[Tt]ime|[Dd]uration|[Ee]lapsed|[Bb]andwidth'

list=$(sed -n "/^done <<'LIST'/,/^LIST/p" "$here/tests/courses/survey.sh" | sed '1d;$d')
names=
while IFS='|' read -r name file flags args; do
    name=$(echo $name); file=$(echo $file)
    if [ $# -gt 0 ]; then case " $* " in *" $name "*) ;; *) continue ;; esac; fi
    [ -f "$here/tests/courses/h100/$name.out" ] || continue   # no GPU output (not built on the H100)
    # shellcheck disable=SC2086  # flag lists
    (cd "$(dirname "$src/$file")" && "$NVCC" -o "$BENCH_OUT/bin/$name" "$(basename "$file")" $flags) \
        >"$BENCH_OUT/$name.build.log" 2>&1 || { echo "$name: build failed ($BENCH_OUT/$name.build.log)"; continue; }
    echo "$name|$args" >>"$BENCH_OUT/jobs.$$"
    names="$names $name"
done <<<"$list"

# one program under one launcher: seconds (or >TMO) and whether its output is the H100's
run_one() { # LABEL LAUNCHER NAME ARGS SLOT
    local label=$1 launcher=$2 name=$3 args=$4 slot=$5 pin=() t0 t1 rc same
    [ "${PIN_CORES:-0}" = 1 ] && pin=(taskset -c "$((2 * slot)),$((2 * slot + 1))")
    local out=$BENCH_OUT/$name.$label.out
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086  # args is a list
    (cd "$BENCH_OUT/bin" && timeout "$TMO" "${pin[@]}" "$launcher" "./$name" $args) >"$out" 2>&1 </dev/null
    rc=$?
    t1=$(date +%s.%N)
    echo "exit=$rc" >>"$out"   # as the H100's files end: the same status is part of the same output
    same=no
    diff <(grep -vE "$timing" "$here/tests/courses/h100/$name.out") <(grep -vE "$timing" "$out") >/dev/null && same=yes
    if [ $rc = 124 ]; then echo ">$TMO $same"; else echo "$t0 $t1 $same" | awk '{printf "%.1f %s", $2 - $1, $3}'; fi
}

slot_runs() { # SLOT: every JOBS-th program from SLOT
    local k=0
    while IFS='|' read -r name args; do
        if [ $((k % JOBS)) = "$1" ]; then
            a=$(run_one emu "$PTXEMU" "$name" "$args" "$1")
            b="- -"
            [ -n "$BASE_PTXEMU" ] && b=$(run_one base "$BASE_PTXEMU" "$name" "$args" "$1")
            echo "$name $a $b" >"$BENCH_OUT/$name.result"
        fi
        k=$((k + 1))
    done <"$BENCH_OUT/jobs.$$"
}
for s in $(seq 0 $((JOBS - 1))); do slot_runs "$s" & done
wait
rm -f "$BENCH_OUT/jobs.$$"
printf '%-20s %10s %6s %10s %6s  (seconds; limit %s s, %s workers)\n' program ptxemu same base same "$TMO" "$PTXEMU_THREADS"
for name in $names; do
    read -r n a sa b sb <"$BENCH_OUT/$name.result"
    printf '%-20s %10s %6s %10s %6s\n' "$n" "$a" "$sa" "$b" "$sb"
done
