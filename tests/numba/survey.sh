#!/bin/bash
# survey.sh - runs every module of Numba's CUDA test suite (numba.cuda.tests, from Debian's
# python3-numba) under ptxemu, each module in a process of its own, and writes one line per
# test: "<outcome> <test id> <message>" (tests/numba/runner.py), then per module the counts.
#   tests/numba/survey.sh [PTXEMU] [OUTPUT]      (defaults: runtime/ptxemu, stdout)
# PYTHON (default /usr/bin/python3, Debian's, which has numba), SURVEY_TIMEOUT seconds a
# module may take (default 900), SURVEY_MODULES a list of modules instead of all of them,
# SURVEY_DEVICES how many GPUs ptxemu emulates (default 2, so that the multi-GPU tests run).
# docs/gen_compatibility.sh turns the recorded output (tests/numba/survey.txt) and the
# reasons (tests/numba/reasons.txt) into the table of docs/compatibility.md.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ptxemu=$(realpath "${1:-$top/runtime/ptxemu}")
out=$(realpath "${2:-/dev/stdout}")
py=${PYTHON:-/usr/bin/python3}
limit=${SURVEY_TIMEOUT:-900}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PTXEMU_DEVICES=${SURVEY_DEVICES:-2}
if ! tests=$("$py" -c 'import numba.cuda.tests, os; print(os.path.dirname(numba.cuda.tests.__file__))' 2>/dev/null); then
    echo "survey: $py cannot import numba.cuda.tests (apt-get install python3-numba)" >&2
    exit 77
fi
modules=${SURVEY_MODULES:-$(cd "$tests" && find . -name 'test_*.py' | sort |
    sed -e 's|^\./|numba.cuda.tests.|' -e 's|\.py$||' -e 's|/|.|g')}
work=$(mktemp -d /tmp/ptxemu-numba-survey.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1   # the suite writes caches and files beside it
{
    echo "# numba $("$py" -c 'import numba; print(numba.__version__)') on $("$ptxemu" --version), $PTXEMU_DEVICES emulated GPUs"
    for m in $modules; do
        timeout -k 10 "$limit" "$ptxemu" "$py" "$top/tests/numba/runner.py" "$m" \
            >"$work/out" 2>"$work/err"
        rc=$?
        sed -n 's/^RESULT //p' "$work/out"
        if ! grep -q "^DONE $m\$" "$work/out"; then
            why="exit status $rc"
            [ $rc -eq 124 ] && why="stopped after ${limit}s"
            [ $rc -gt 128 ] && [ $rc -ne 137 ] && why="killed by signal $((rc - 128))"
            echo "error $m.run the module did not finish: $why; last line of stderr: $(tail -n 1 "$work/err" | cut -c1-200)"
        fi
    done
} >"$out"
