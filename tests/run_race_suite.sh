#!/bin/bash
# run_race_suite.sh - the labelled race-detector suite (tests/race/suite). Each .cu file there
# is one program whose argv[1] picks a small kernel; tests/race/suite/labels.txt labels every
# case, one line each:
#     FILE CASE LABEL KIND DESCRIPTION
# LABEL is race or free; KIND is the race kind the detector must report (any: any race kind;
# -: none). Every file is built once, every case runs with PTXEMU_RACECHECK=1 under seeds 1, 2
# and 3 (RACE_SUITE_SEEDS overrides them). A race counts as found only when every seed reports
# it with the expected kind; a race-free case is a false alarm when any seed reports a race, or
# a run prints a "ptxemu: kernel" fault or deadlock line, or does not end in "case N: no error".
# One PASS/FAIL line per case (failures with the detector's lines), then the totals. Misses
# listed in tests/race/suite/known_misses.txt (with their reason) are KNOWN; exit 0 only with
# no other miss, no false alarm, and no known miss that is found after all (take it off the
# list). RACE_SUITE_ONLY=FILE.cu runs one file.
# Usage: tests/run_race_suite.sh [BUILDDIR]  (77 without nvcc)
set -u
here=$(cd "$(dirname "$0")" && pwd)
suite=$here/race/suite
labels=$suite/labels.txt
build=${1:-${abs_top_builddir:-$here/..}}
launcher=$build/runtime/ptxemu
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: no nvcc"; exit 77; }
[ -x "$launcher" ] || { echo "ERROR: no launcher at $launcher"; exit 1; }
[ -r "$labels" ] || { echo "ERROR: no $labels"; exit 1; }
seeds=${RACE_SUITE_SEEDS:-1 2 3}
only=${RACE_SUITE_ONLY:-}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

kinds="read-after-write write-after-read write-after-write read-before-async-copy-complete
write-before-async-copy-complete write-before-async-copy-read-complete
async-proxy-read-without-proxy-fence mbarrier-used-before-fence-mbarrier-init
mbarrier-wait-on-observed-phase mbarrier-tx-beyond-phase wgmma-accumulator-before-wait
host-device"

# check the labels and build each file they name, once
files=
while read -r file num label kind desc; do
    case $file in '' | '#'*) continue ;; esac
    case $label/$kind in
    free/-) ;;
    race/any) ;;
    race/*) echo " $kinds " | tr '\n' ' ' | grep -q " $kind " || { echo "ERROR: $file $num: unknown kind $kind"; exit 1; } ;;
    *) echo "ERROR: $file $num: bad label/kind $label $kind"; exit 1 ;;
    esac
    [ -r "$suite/$file" ] || { echo "ERROR: $file $num: no $suite/$file"; exit 1; }
    [ -n "$only" ] && [ "$file" != "$only" ] && continue
    case " $files " in *" $file "*) ;; *) files="$files $file" ;; esac
done <"$labels"
start=$(date +%s)
for f in $files; do
    "$NVCC" -arch=sm_90 --cudart shared -O2 -lineinfo -o "$work/${f%.cu}" "$suite/$f" 2>"$work/build.err" ||
        { cat "$work/build.err"; echo "ERROR: building $f failed"; exit 1; }
done
echo "race suite: built$files in $(($(date +%s) - start)) s"

found=0 missed=0 known=0 falarm=0 nfree=0 pass=0 fail=0
is_known() { grep -q "^$1 $2 " "$suite/known_misses.txt" 2>/dev/null; }
while read -r file num label kind desc; do
    case $file in '' | '#'*) continue ;; esac
    [ -n "$only" ] && [ "$file" != "$only" ] && continue
    bin=$work/${file%.cu}
    pat=$kind
    [ "$kind" = any ] && pat='[a-z-]*'
    ok=1 why= details=
    for s in $seeds; do
        PTXEMU_RACECHECK=1 PTXEMU_SEED=$s timeout 120 "$launcher" "$bin" "$num" \
            >"$work/out" 2>"$work/err" </dev/null
        rc=$?
        got=$(grep -o '^ptxemu: race: [a-z-]*' "$work/err" | sed 's/^ptxemu: race: //' | sort -u | tr '\n' ' ')
        faults=$(grep -c '^ptxemu: kernel' "$work/err")
        if [ "$label" = race ]; then
            if ! grep -q "^ptxemu: race: $pat " "$work/err"; then
                ok=0
                why="$why seed $s: ${got:-no report}${got:+(wrong kind)}$([ "$faults" != 0 ] && echo ", fault/deadlock");"
                details="$details$(grep -m 3 '^ptxemu: \(race\|kernel\)' "$work/err" | cut -c1-400 | sed "s/^/    seed $s: /")"$'\n'
            fi
        else
            if [ -n "$got" ] || [ "$faults" != 0 ] || [ "$rc" != 0 ] || ! grep -q "^case $num: no error" "$work/out"; then
                ok=0
                why="$why seed $s: ${got:+reports $got}$([ "$faults" != 0 ] && echo "fault/deadlock ")$([ "$rc" = 124 ] && echo "timeout ")$(grep -q "^case $num: no error" "$work/out" || echo "run did not end in 'no error' ")(exit $rc);"
                details="$details$(grep -m 3 '^ptxemu: \(race\|kernel\)' "$work/err" | cut -c1-400 | sed "s/^/    seed $s: /")"$'\n'
            fi
        fi
    done
    if [ "$label" = race ]; then
        if [ $ok = 1 ]; then found=$((found + 1)); else missed=$((missed + 1)); fi
    else
        nfree=$((nfree + 1))
        [ $ok = 1 ] || falarm=$((falarm + 1))
    fi
    if [ "$label" = race ] && is_known "$file" "$num"; then
        if [ $ok = 1 ]; then
            fail=$((fail + 1))
            echo "FAIL: $file $num: found now, but known_misses.txt still lists it"
        else
            known=$((known + 1)); missed=$((missed - 1))
            echo "KNOWN MISS: $file $num $label $kind: $desc ($(grep "^$file $num " "$suite/known_misses.txt" | cut -d' ' -f3-))"
        fi
    elif [ $ok = 1 ]; then
        pass=$((pass + 1))
        echo "PASS: $file $num $label $kind: $desc"
    else
        fail=$((fail + 1))
        if [ "$label" = race ]; then res="MISSED"; else res="FALSE ALARM"; fi
        echo "FAIL: $file $num $label $kind: $desc: $res:$why"
        printf '%s' "$details" | grep -v '^$'
    fi
done <"$labels"
echo "race suite: ran in $(($(date +%s) - start)) s"
echo "race suite: $found races found, $((missed + known)) missed ($known known, listed in known_misses.txt), $falarm false alarms of $nfree race-free"
echo "race suite: $pass passed, $fail failed"
[ "$fail" = 0 ]
