#!/bin/bash
# survey.sh - how many of HeCBench's CUDA programs (github.com/zjin-lcf/HeCBench, src/*-cuda)
# run, built with their own Makefiles at sm_90 and run with their Makefiles' `run` commands.
# Not a test: a measurement (docs/compatibility.md). Run on a GPU machine with no RUNNER it
# records what the GPU prints (tests/hecbench/record_gpu.sh); with RUNNER=path/to/ptxemu it
# runs the same programs on ptxemu, and tests/hecbench/status.sh compares the two.
#
#   survey.sh list  HECBENCH [NAME...]    prints NAME<TAB>RUN COMMAND for every program with a
#                                         Makefile, from `make -n run` after the build (commit
#                                         it as runs.txt)
#   survey.sh build HECBENCH OUTDIR [NAME...]   builds (make ARCH=sm_90) in the checkout
#   survey.sh run   HECBENCH OUTDIR [NAME...]   runs what was built, each under RUNNER with a
#                                         time limit: OUTDIR/NAME.out is its output with
#                                         `exit=STATUS` last; OUTDIR/times.txt the seconds each
#                                         took
#
# A program is skipped, saying what it needs, when its Makefile links or its sources include a
# library beside the CUDA runtime and driver (cuBLAS, cuSPARSE, cuFFT, cuSOLVER, cuRAND's host
# API, cuDNN, NCCL, MPI, GSL, ...), when its run command is a Python script driving a PyTorch
# extension, or when it has no Makefile. Header-only libraries (Thrust, CUB, Boost's headers,
# cuRAND's device API) are compiled in. The run command of a program is the one in
# tests/hecbench/reduced.txt where that file names it (sizes and repetitions reduced so that
# ptxemu finishes within the survey's time limit, each change written there with its reason),
# else its Makefile's (tests/hecbench/runs.txt). Builds and runs go JOBS at a time.
#
# One line per program on stdout: NAME built|build-failed|skipped (needs WHAT) for build;
# NAME runs|fails (exit N)|timeout|not-built for run.
#
# The whole measurement, in order: survey.sh build (here, with nvcc); pack.sh of the built
# programs, carried to the GPU machine and run there by gpu_batch.sh (record_gpu.sh);
# import_gpu.sh of what came back (tests/expected/hecbench/); survey.sh run with
# RUNNER=runtime/ptxemu here; status.sh >tests/hecbench/status.txt; make compatibility.
#
# Environment: RUNNER (empty: the GPU), TIMEOUT (seconds a program, 300), CPULIMIT (CPU seconds a
# program, none: on a shared machine a limit that does not depend on the load), JOBS (1), NVCC,
# REDUCED=0 to run the Makefiles' own commands where reduced.txt has others.
set -u
here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "usage: survey.sh list HECBENCH | build|run HECBENCH OUTDIR [NAME...]" >&2; exit 64; }
mode=${1:-}
[ $# -ge 2 ] || usage
hb=$(cd "$2" && pwd) || exit 66
src=$hb/src
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export PATH=$(dirname "$NVCC"):$PATH

# The CUDA libraries and other libraries a program needs (empty: the runtime and driver do):
# from its Makefile's -l flags and its sources' #includes. An include the build does not
# reach (under #ifdef) is only named when the build fails (build_one).
cuda_libs='cublas|cublasLt|cusparse|cusolver|curand|cufft|cudnn|nccl|nvToolsExt|nvJitLink|npp[a-z]*|nvjpeg|cutensor'
other_libs='mpi|mpi_cxx|gsl|gslcblas|z|bz2|gdal|boost_[a-z]+|metis|parmetis|gfortran|tbb|dnnl'
needs() {
    local d=$1 l
    [ -f "$d/Makefile" ] || { echo "a Makefile (it has only a CMake build)"; return; }
    if grep -rqsE '#include *[<"](torch/|ATen/)' "$d"; then echo "PyTorch (its run is a Python script over a C++ extension)"; return; fi
    l=$(grep -hoE -- "-l($cuda_libs|$other_libs)\b" "$d/Makefile" | sed 's/^-l//' | sort -u | tr '\n' ' ')
    [ -n "$l" ] && echo "a library (${l% })"
}
# the libraries a failed build's sources include, for its reason
included_libs() {
    grep -rhoE '#include *[<"](cublas|cublasLt|cusparse|cusolver[A-Za-z]*|curand|cufft|cudnn|nccl|mpi|gsl/|boost/|tbb/|zlib|gdal|metis|parmetis)[A-Za-z0-9_]*' \
        "$1" --include='*.c' --include='*.cc' --include='*.cpp' --include='*.cu' --include='*.h' \
        --include='*.hpp' --include='*.cuh' 2>/dev/null | sed -E 's/#include *[<"]//; s/\/.*//; s/_v2$//' | sort -u | tr '\n' ' '
}

# the data a program's folder, or a folder its Makefile names, keeps in HeCBench's DVC store
# (an S3 bucket) rather than in git: "its data from DVC (FILE ...)", or nothing
dvc_data() {
    local d=$src/$1-cuda f
    f=$( { ls "$d"/*.dvc 2>/dev/null
           for o in $(grep -hoE '\.\./[A-Za-z0-9_+.-]+-(cuda|sycl|hip|omp)\b' "$d/Makefile" 2>/dev/null | sort -u); do
               ls "$d/$o"/*.dvc 2>/dev/null
           done; } | sed "s#^$src/##; s#^[^/]*-cuda/\.\./##" | sort -u | tr '\n' ' ')
    [ -n "$f" ] && echo "its data from HeCBench's DVC store, not in git (${f% })"
}

programs() {   # the names asked for, or every *-cuda folder
    if [ $# -gt 0 ]; then printf '%s\n' "$@"
    else (cd "$src" && ls -d *-cuda | sed 's/-cuda$//'); fi
}

# the program's run command: reduced.txt's, else runs.txt's
run_command() {
    local c=
    [ "${REDUCED:-1}" = 1 ] && c=$(awk -F'\t' -v n="$1" '$1 == n { print $2; exit }' "$here/reduced.txt" 2>/dev/null)
    [ -n "${c:-}" ] || c=$(awk -F'\t' -v n="$1" '$1 == n { print $2; exit }' "$here/runs.txt" 2>/dev/null)
    echo "$c"
}

build_one() {
    local name=$1 out=$2 d=$src/$1-cuda reason arch
    reason=$(needs "$d")
    if [ -n "$reason" ]; then echo "$name skipped (needs $reason)"; return; fi
    # ARCH is sm_90 in the Makefiles' own terms: a few spell it without the sm_ prefix
    arch=sm_90
    grep -qE '(sm|compute)_\$[({]ARCH[)}]' "$d/Makefile" && arch=90
    if (cd "$d" && make -s ARCH=$arch) >"$out/$name.build.log" 2>&1; then
        echo "$name built"
    else
        reason=$(included_libs "$d")
        if [ -n "$reason" ]; then echo "$name skipped (needs a library (${reason% }))"
        elif [ -n "$(dvc_data "$name")" ]; then echo "$name skipped (needs $(dvc_data "$name"))"
        else echo "$name build-failed"; fi
    fi
}

run_one() {
    local name=$1 out=$2 d=$src/$1-cuda cmd rc start
    cmd=$(run_command "$name")
    if [ -z "$cmd" ]; then echo "$name not-built (no run command)"; return; fi
    start=$(date +%s.%N)
    # shellcheck disable=SC2086  # RUNNER may carry options
    (cd "$d" && { [ -z "${CPULIMIT:-}" ] || ulimit -t "$CPULIMIT"; } &&
        timeout "${TIMEOUT:-300}" $RUNNER bash -c "$cmd") >"$out/$name.out" 2>&1 </dev/null
    rc=$?
    # the wall-clock seconds each run took (a measurement of this machine, kept apart)
    awk -v n="$name" -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%s %.2f\n", n, b - a }' >>"$out/times.txt"
    echo "exit=$rc" >>"$out/$name.out"
    case $rc in
        0) echo "$name runs" ;;
        124|152) echo "$name timeout" ;;   # the time limit, or CPULIMIT (SIGXCPU)
        *) echo "$name fails (exit $rc)" ;;
    esac
}

case $mode in
    list)
        shift 2
        for name in $(programs "$@"); do
            d=$src/$name-cuda
            [ -f "$d/Makefile" ] || continue
            # the recipe of `run` with LAUNCHER empty, as one command line (after a build:
            # make then prints no build step)
            # make stops at the first command that fails: so does the joined line
            cmd=$(cd "$d" && make -s -n run LAUNCHER= 2>/dev/null | sed -e ':a' -e '/\\$/N; s/\\\n[[:space:]]*/ /; ta' |
                  grep -vE '^make|^[[:space:]]*(#|$)' |
                  sed -E 's/[[:space:];]+$//' | awk '{ printf "%s%s", (NR > 1 ? " && " : ""), $0 } END { print "" }')
            printf '%s\t%s\n' "$name" "$cmd"
        done ;;
    build|run)
        [ $# -ge 3 ] || usage
        mkdir -p "$3" || exit 73
        out=$(cd "$3" && pwd)
        shift 3
        export -f needs included_libs dvc_data build_one run_one run_command
        export src here cuda_libs other_libs RUNNER="${RUNNER:-}"
        programs "$@" | xargs -P "${JOBS:-1}" -I{} bash -c "${mode}_one {} '$out'" ;;
    *) usage ;;
esac
