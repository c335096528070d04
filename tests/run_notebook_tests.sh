#!/bin/bash
# run_notebook_tests.sh - the IPython extension (python/ptxemu, %load_ext ptxemu): Debian's
# jupyter-nbconvert executes tests/notebook/cuda_magic.ipynb, whose %%cuda cells compile with
# nvcc and run on this build's ptxemu - a kernel's printf, a race, a fault and a time limit
# shown as blocks that quote the cell's lines, --profile and --timeline drawn as pictures,
# nvcc and program arguments, a compile error - and tests/notebook/check_outputs.py checks
# every cell's outputs against what its metadata expects.
# Exit: 0 passed, 1 failed, 77 (skipped) without nvcc, jupyter-nbconvert, ipykernel or
# matplotlib (apt-get install jupyter-nbconvert python3-ipykernel python3-matplotlib).
set -u
[ -z "${PTXEMU_SANITIZER_BUILD:-}" ] ||
    { echo "SKIP: a sanitizer build (scripts/sanitize-check.sh): the Python interpreter's allocations are not ptxemu's"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "${abs_top_srcdir:-$here/..}" && pwd)
builddir=${abs_top_builddir:-$(pwd)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "SKIP: no nvcc"; exit 77; }
nbconvert=$(command -v jupyter-nbconvert || echo /usr/bin/jupyter-nbconvert)
[ -x "$nbconvert" ] || { echo "SKIP: no jupyter-nbconvert"; exit 77; }
# the kernel is the Python that runs nbconvert: it needs IPython, ipykernel and matplotlib
py=$(sed -n '1s/^#! *//p' "$nbconvert" | cut -d' ' -f1)
[ -x "$py" ] || py=python3
"$py" -c 'import ipykernel, IPython, matplotlib' 2>/dev/null ||
    { echo "SKIP: $py lacks ipykernel, IPython or matplotlib"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ptxemu-notebook.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
# everything Jupyter and matplotlib write goes to the temporary folder
export JUPYTER_RUNTIME_DIR=$work/rt JUPYTER_DATA_DIR=$work/data JUPYTER_CONFIG_DIR=$work/cfg
export IPYTHONDIR=$work/ipython MPLCONFIGDIR=$work/mpl MPLBACKEND=Agg
export PYTHONPATH=$srcdir/python${PYTHONPATH:+:$PYTHONPATH}
export PTXEMU=$builddir/runtime/ptxemu NVCC
cp "$srcdir/tests/notebook/cuda_magic.ipynb" "$work/" || exit 99
if ! (cd "$work" && timeout 900 "$nbconvert" --to notebook --execute \
        --ExecutePreprocessor.timeout=600 --ExecutePreprocessor.kernel_name=python3 \
        --output executed.ipynb cuda_magic.ipynb) >"$work/nbconvert.log" 2>&1; then
    echo "FAIL: jupyter-nbconvert --execute did not complete:"
    tail -n 30 "$work/nbconvert.log"
    exit 1
fi
"$py" "$srcdir/tests/notebook/check_outputs.py" "$work/executed.ipynb"
