#!/bin/bash
# run_determinism_tests.sh - deterministic mode (PTXEMU_SEED) and schedule record/replay.
# Builds tests/det/race.cu with nvcc and runs it through the build-tree launcher:
#   1. the same seed twice gives the same bytes;
#   2. the same seed with 1 and with 2 worker threads gives the same bytes;
#   3. eight seeds give at least two different interleavings (the schedule really varies);
#   4. a recorded schedule replays to the same bytes; a damaged one is refused;
#   5. race-free samples give the H100's output under a seed;
#   6. `ptxemu race` finds the planted lost update of tests/det/planted.cu within 40 seeds
#      (by its output without the detector, by the detector's report at seed 1 with it)
#      and prints a replay command that reproduces it; it finds nothing in a clean sample;
#   7. `ptxemu race --shard I/N --json F` writes each shard's result, `--merge` answers as one
#      run over all the seeds: the first seed found, exit 1; a shard missing, a file of
#      another search, a damaged file, a reference output that differs between shards
#      (the same seed must give the same bytes everywhere) are each said; arguments with
#      spaces are quoted in the replay command (docs/cluster.md).
# Usage: tests/run_determinism_tests.sh [BUILDDIR]   (exit 77 without nvcc)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${abs_top_builddir:-$PWD}}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: no nvcc"; exit 77; }
launcher=$build/runtime/ptxemu
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
"$NVCC" -arch=sm_90 --cudart shared -O2 -o "$work/race" "$here/det/race.cu" || exit 1
"$NVCC" -arch=sm_90 --cudart shared -O2 -o "$work/planted" "$here/det/planted.cu" || exit 1
pass=0 fail=0
check() {   # name, condition result
    if [ "$2" = 0 ]; then echo "PASS: $1"; pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi
}
run() { "$launcher" "$@" 2>>"$work/stderr"; }
PYTHON=${PYTHON:-python3}

run --seed 1 "$work/race" >"$work/a" && run --seed 1 "$work/race" >"$work/b"
cmp -s "$work/a" "$work/b"; check "same seed, same output" $?
PTXEMU_THREADS=1 run --seed 1 "$work/race" >"$work/c" && PTXEMU_THREADS=2 run --seed 1 "$work/race" >"$work/d"
cmp -s "$work/a" "$work/c" && cmp -s "$work/c" "$work/d"; check "same output with 1 and 2 workers" $?
for s in 1 2 3 4 5 6 7 8; do run --seed $s "$work/race"; done | sort -u >"$work/distinct"
[ "$(wc -l <"$work/distinct")" -ge 3 ]; check "seeds give different interleavings ($(wc -l <"$work/distinct") distinct lines)" $?
run --seed 3 --record "$work/sched" "$work/race" >"$work/rec" && run --replay "$work/sched" "$work/race" >"$work/rep"
cmp -s "$work/rec" "$work/rep"; check "replay gives the recorded output" $?
head -n 3 "$work/sched" >"$work/short"
run --replay "$work/short" "$work/race" >"$work/bad"
grep -q "replayed schedule" "$work/stderr"; check "a damaged schedule is refused with a message" $?
for s in histogram clusterHistogram; do
    [ -x "$build/samples/$s" ] || continue
    run --seed 11 "$build/samples/$s" >"$work/$s.out"
    cmp -s "$work/$s.out" "$here/expected/samples/$s.out"; check "sample $s under a seed matches the H100" $?
done
run race --seeds 40 --jobs 2 --no-racecheck "$work/planted" >"$work/explore"
st=$?
seed=$(sed -n 's/^replay: ptxemu --seed \([0-9]*\) .*/\1/p' "$work/explore")
[ "$st" = 1 ] && [ -n "$seed" ]; check "race finds the planted lost update (seed ${seed:-none})" $?
if [ -n "$seed" ]; then
    run --seed 1 "$work/planted" >"$work/p1"; run --seed "$seed" "$work/planted" >"$work/p2"
    ! cmp -s "$work/p1" "$work/p2"; check "its replay command reproduces the different output" $?
fi
# with the race detector (the default) the first seed already reports the race, whatever
# its output
run race --seeds 40 "$work/planted" >"$work/explore_rc"
st=$?
[ "$st" = 1 ] && grep -q "^ptxemu race: seed 1 reports a hazard or fault:" "$work/explore_rc" &&
    grep -q "^ptxemu: race: [a-z-]* in shared memory at offset 0x0 of block (0,0,0), kernel planted(int\*): thread (32,0,0)" "$work/explore_rc" &&
    grep -q "^replay: ptxemu --seed 1 --racecheck .*planted$" "$work/explore_rc"
check "race runs the race detector on every seed and reports the race at seed 1" $?
run race --seeds 8 --shard 1/2 --no-racecheck "$work/planted" >"$work/shard"
grep -q "^ptxemu race:" "$work/shard"; check "race runs a shard of the seeds" $?
# shards as JSON, and their merge
for i in 0 1 2 3; do
    run race --seeds 40 --no-racecheck --shard $i/4 --json "$work/s$i.json" "$work/planted" >/dev/null
done
"$launcher" race --merge "$work"/s[0-3].json >"$work/merged" 2>/dev/null
st=$?
seed=$(sed -n 's/^replay: ptxemu --seed \([0-9]*\) .*planted$/\1/p' "$work/merged")
first=$(for i in 0 1 2 3; do "$PYTHON" -c 'import json,sys; f=json.load(open(sys.argv[1]))["finding"]; print(f["seed"] if f else "")' "$work/s$i.json"; done | grep . | sort -n | head -n 1)
[ $st = 1 ] && [ -n "$seed" ] && [ "$seed" = "$first" ] &&
    grep -q "^ptxemu race: seed $seed gives different output than seed 1$" "$work/merged" &&
    grep -q "^  line 1, seed 1: s = " "$work/merged" && grep -q "^found by shard [0-3]/4 " "$work/merged"
check "race --merge: the lowest seed any shard found ($seed), its shard and replay; exit 1" $?
"$PYTHON" - "$work" <<'PYEOF'
import json, sys
w = sys.argv[1]
d = json.load(open(w + "/s0.json"))
assert d["ptxemu_race"] == 1 and d["shards"] == 4 and d["shard"] == 0 and d["seeds"] == 40
assert d["result"] in ("clean", "found") and d["reference"]["seed"] == 1
assert len(d["reference"]["output_fnv1a64"]) == 16 and d["program"][0].endswith("planted")
PYEOF
check "a shard's JSON document" $?
"$launcher" race --merge "$work"/s0.json "$work"/s1.json >"$work/m2" 2>"$work/m2.err"
st=$?
grep -q "no file of shard 2/4" "$work/m2.err" && grep -q "no file of shard 3/4" "$work/m2.err" &&
    { [ $st = 2 ] || { [ $st = 1 ] && grep -q "a lower seed may also fail" "$work/m2.err"; }; }
check "race --merge with shards missing: incomplete (exit 2, or 1 with a warning)" $?
run race --seeds 40 --no-racecheck --shard 0/2 --json "$work/other.json" "$work/planted" x >/dev/null
echo '{"ptxemu_race":1,' >"$work/broken.json"
"$launcher" race --merge "$work"/s[0-3].json "$work/other.json" "$work/broken.json" >/dev/null 2>"$work/m3.err"
st=$?
grep -q "other.json belongs to another search than .*s0.json (another program or other arguments differs)" "$work/m3.err" &&
    grep -q "broken.json: not JSON (offset " "$work/m3.err" && [ $st = 1 ]
check "race --merge refuses a file of another search and a damaged one, and says so" $?
# the same seed gave another output on some machine: the merge reports the reference seed
sed 's/"output_fnv1a64":"[0-9a-f]*"/"output_fnv1a64":"0000000000000000"/' "$work/s2.json" >"$work/s2x.json"
run race --merge "$work"/s0.json "$work"/s1.json "$work"/s2x.json "$work"/s3.json >"$work/m4" 2>&1
st=$?
[ $st = 1 ] && grep -q "^ptxemu race: seed 1 gives different output or exit status in shard 2/4 (host .*s2x.json) than in shard 0/4" "$work/m4" &&
    grep -q "^replay: ptxemu --seed 1 .*planted$" "$work/m4"
check "race --merge reports a reference seed whose output differs between shards" $?
# a clean search merges to exit 0; arguments with spaces are quoted for the shell
run race --seeds 4 --no-racecheck --shard 0/2 --json "$work/c0.json" "$work/planted" "a b" "it's" >/dev/null
st0=$?
run race --seeds 4 --no-racecheck --shard 1/2 --json "$work/c1.json" "$work/planted" "a b" "it's" >/dev/null
run race --merge "$work/c0.json" "$work/c1.json" >"$work/m5" 2>&1
st=$?
if [ $st = 1 ]; then
    grep -q "^replay: ptxemu --seed [0-9]* .*planted 'a b' 'it'\\''s'$" "$work/m5"
else
    [ $st = 0 ] && grep -q "^ptxemu race: 4 seeds over 2 shards, all outputs identical to seed 1, no hazard reported$" "$work/m5"
fi
check "race --merge of a search (exit $st): its total, or a replay with quoted arguments" $?
if [ -x "$build/samples/histogram" ]; then
    run race --seeds 4 "$build/samples/histogram" >"$work/clean"
    st=$?
    [ $st = 0 ] && grep -q "no hazard reported (race detector on)" "$work/clean"
    check "race finds nothing in a clean sample, with the detector on" $?
fi
# a loop polling a flag nobody sets is a deadlock in deterministic mode, with its line; a
# flag another warp sets, and a long read-only loop that makes progress, are not
"$NVCC" -arch=sm_90 -lineinfo -o "$work/spin" "$here/det/spin.cu" || exit 1
PTXEMU_REPORT="$work/spin.json" timeout 120 "$launcher" --seed 3 "$work/spin" 0 >"$work/spin0" 2>"$work/spin0.err"
grep -q "^mode 0: unspecified launch failure" "$work/spin0" &&
    grep -q "spin.cu:[0-9]*, PTX .*: deadlock: this loop spins without progress" "$work/spin0.err" &&
    grep -q '"kind":"deadlock".*"state":"spins in a loop that reads memory without progress"' "$work/spin.json"
check "a loop polling a flag nobody sets is reported as a deadlock at its line" $?
# a poller that stepped aside gets turns again while the warp that waits for its answer walks
# memory (before, that warp kept the highest priority and the launch ran to the time limit)
ok=0
for s in 1 2 3 4; do
    out=$(timeout 60 "$launcher" --seed $s "$work/spin" 3 2>>"$work/stderr")
    [ "$out" = "mode 3: no error" ] || ok=1
done
check "a poller that stepped aside answers a warp that waits in a loop walking memory (seeds 1-4)" $ok
# blocks that wait for blocks after them (tests/cuda/blocks_wait.cu): the window of resident
# blocks grows, as the H100 holds every block of a grid that fits, and a recorded schedule
# (with its "g" lines) replays
"$NVCC" -arch=sm_90 -O2 -o "$work/blocks_wait" "$here/cuda/blocks_wait.cu" || exit 1
ok=0
for s in 1 2 3; do
    timeout 120 "$launcher" --seed $s "$work/blocks_wait" >"$work/bw$s" 2>>"$work/stderr" &&
        diff -q <(head -n 2 "$here/expected/cuda/blocks_wait.0.out") "$work/bw$s" >/dev/null || ok=1
done
check "blocks that wait for each other give the H200's output under seeds 1-3" $ok
timeout 120 "$launcher" --seed 2 --record "$work/bw.sched" "$work/blocks_wait" >"$work/bwrec" 2>>"$work/stderr" &&
    timeout 120 "$launcher" --replay "$work/bw.sched" "$work/blocks_wait" >"$work/bwrep" 2>>"$work/stderr" &&
    grep -q "^g [0-9]" "$work/bw.sched" && cmp -s "$work/bwrec" "$work/bwrep"
check "a schedule in which the window grew replays to the same output" $?
# %globaltimer counts steps: a completion right after a step ("c" line) is no step of its own
# in a replay either (before, replays of seeds with such completions read later times)
"$NVCC" -arch=sm_90 -O2 -o "$work/globaltimer" "$here/det/globaltimer.cu" || exit 1
ok=0
for s in 2 3; do
    run --seed $s --record "$work/gt.sched" "$work/globaltimer" >"$work/gtrec" &&
        run --replay "$work/gt.sched" "$work/globaltimer" >"$work/gtrep" && cmp -s "$work/gtrec" "$work/gtrep" &&
        grep -q "^c [0-9]" "$work/gt.sched" || ok=1
done
check "a replay reads the recording's %globaltimer, with completions after steps" $ok
# a wrong-parity mbarrier wait (two warps that soon wait for phases that never come) is a
# deadlock reported within moments under every seed, race detector on or off, and in the
# parallel scheduler; the time limit guards the test (before, some seeds took minutes). With
# the right parity the pipeline runs to its end under every seed.
"$NVCC" -arch=sm_90 -lineinfo -o "$work/parity" "$here/det/parity.cu" || exit 1
ok=0
for s in $(seq 1 20); do
    for rc in --racecheck ""; do
        # shellcheck disable=SC2086  # rc is an option or nothing
        timeout 120 "$launcher" --timeout 60 $rc --seed $s "$work/parity" >"$work/par" 2>&1
        grep -q "deadlock: mbarrier wait never completes" "$work/par" && grep -q "^cudaErrorLaunchFailure" "$work/par" || { ok=1; echo "seed $s $rc:"; tail -n 3 "$work/par"; }
        timeout 120 "$launcher" --timeout 60 $rc --seed $s "$work/parity" 0 >"$work/par" 2>&1
        grep -q "^cudaSuccess" "$work/par" || { ok=1; echo "seed $s $rc, right parity:"; tail -n 3 "$work/par"; }
    done
done
timeout 120 "$launcher" --timeout 60 "$work/parity" >"$work/par" 2>&1
grep -q "deadlock: mbarrier wait never completes" "$work/par" || ok=1
check "a wrong-parity mbarrier deadlock is reported at once under seeds 1-20 (and in parallel)" $ok
ok=0
for m in 1 2; do
    for s in 1 2; do
        timeout 120 "$launcher" --seed $s "$work/spin" $m >"$work/spinok" 2>&1
        grep -q "^mode $m: no error" "$work/spinok" && ! grep -q deadlock "$work/spinok" || ok=1
    done
done
check "a flag another warp sets, and a read-only loop that makes progress, are not deadlocks" $ok
echo "determinism tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
