#!/bin/bash
# run_labs.sh - the teaching labs (labs/NN-name/) graded by their autograder, labs/autograde.py.
# For every lab directory it grades four programs and checks the grade:
#     solution.cu   must pass;
#     bug_race.cu   must fail with `race` among the reasons;
#     bug_fault.cu  must fail with `fault` among the reasons;
#     starter.cu    must fail with `wrong-result`, and not with crash, fault, deadlock or
#                   timeout (the starter runs to its end; only its kernel is unfinished).
# One PASS/FAIL line per check (failures with the grader's checklist), then the totals.
# LABS_ONLY=NN-name runs one lab. Everything is built in a temporary directory.
# Usage: tests/run_labs.sh [BUILDDIR]  (77 without nvcc or python3)
set -u
here=$(cd "$(dirname "$0")" && pwd)
labs=$(cd "$here/../labs" && pwd)
build=${1:-${abs_top_builddir:-$here/..}}
launcher=$build/runtime/ptxemu
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
case $NVCC in /*) ;; *) NVCC=$(command -v "$NVCC" || echo "$NVCC") ;; esac
[ -x "$NVCC" ] || { echo "SKIP: no nvcc"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
[ -x "$launcher" ] || { echo "ERROR: no launcher at $launcher"; exit 1; }
[ -r "$labs/autograde.py" ] || { echo "ERROR: no $labs/autograde.py"; exit 1; }
export NVCC
only=${LABS_ONLY:-}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

pass=0 fail=0
start=$(date +%s)

# grade LAB FILE: runs the grader, leaves its output in $work/out and the reasons (one line,
# space-separated, "ERROR" when the grader could not run) in $reasons
grade() {
    local lab=$1 file=$2
    rm -rf "$work/grade.json" "$work/keep"
    python3 "$labs/autograde.py" --launcher "$launcher" --json "$work/grade.json" --keep "$work/keep" \
        "$labs/$lab" "$labs/$lab/$file" >"$work/out" 2>&1 </dev/null
    rc=$?
    if [ $rc = 2 ] || [ ! -s "$work/grade.json" ]; then
        reasons=ERROR
        return
    fi
    reasons=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(d["reasons"]) if d["reasons"] else "none")' "$work/grade.json")
}

has() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }

result() {    # result OK|BAD LAB FILE WHAT
    if [ "$1" = OK ]; then
        pass=$((pass + 1))
        echo "PASS: $2 $3: $4 (reasons: $reasons)"
    else
        fail=$((fail + 1))
        echo "FAIL: $2 $3: $4 (reasons: $reasons)"
        sed 's/^/    /' "$work/out"
    fi
}

# same_as_h100 LAB VARIANT: the program printed the RESULT line the H100 printed
# (labs/h100/, recorded by labs/h100/record.sh)
same_as_h100() {
    local want got
    want=$(grep '^RESULT:' "$labs/h100/$1.$2.out" 2>/dev/null)
    got=$(grep '^RESULT:' "$work/keep/stdout.txt" 2>/dev/null)
    if [ -n "$want" ] && [ "$want" = "$got" ]; then
        pass=$((pass + 1))
        echo "PASS: $1 $2.cu: prints what the H100 printed ($want)"
    else
        fail=$((fail + 1))
        echo "FAIL: $1 $2.cu: prints '$got', the H100 printed '$want'"
    fi
}

nlabs=0
for dir in "$labs"/[0-9][0-9]-*/; do
    lab=$(basename "$dir")
    [ -n "$only" ] && [ "$lab" != "$only" ] && continue
    nlabs=$((nlabs + 1))
    for f in lab.conf README.md starter.cu solution.cu bug_race.cu bug_fault.cu; do
        if [ ! -r "$dir/$f" ]; then
            fail=$((fail + 1))
            echo "FAIL: $lab: no $f"
        fi
    done

    grade "$lab" solution.cu
    if [ "$reasons" = none ]; then ok=OK; else ok=BAD; fi
    result $ok "$lab" solution.cu "must pass"
    same_as_h100 "$lab" solution

    grade "$lab" bug_race.cu
    if [ "$reasons" != ERROR ] && has "$reasons" race; then ok=OK; else ok=BAD; fi
    result $ok "$lab" bug_race.cu "must fail with a race"

    grade "$lab" bug_fault.cu
    if [ "$reasons" != ERROR ] && has "$reasons" fault; then ok=OK; else ok=BAD; fi
    result $ok "$lab" bug_fault.cu "must fail with a fault"

    grade "$lab" starter.cu
    ok=BAD
    if [ "$reasons" != ERROR ] && has "$reasons" wrong-result; then
        ok=OK
        for r in crash fault deadlock timeout; do has "$reasons" $r && ok=BAD; done
    fi
    result $ok "$lab" starter.cu "must fail with a wrong result only (no crash, fault or hang)"
    same_as_h100 "$lab" starter
done

[ $nlabs = 0 ] && { echo "ERROR: no labs found in $labs"; exit 1; }
echo "labs: $nlabs labs graded in $(($(date +%s) - start)) s"
echo "labs: $pass passed, $fail failed"
[ $fail = 0 ]
