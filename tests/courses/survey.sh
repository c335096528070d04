#!/bin/bash
# survey.sh - how many of a CUDA course's exercise solutions run, each built with the command
# the course gives (minus -arch=sm_70, which nvcc 13 no longer accepts, so: the default
# build). Not a test: a measurement (docs/driver.md). The programs are listed below as
# "NAME | SOURCE (relative to the course's exercises/) | nvcc flags | arguments"; the course is
# the public OLCF CUDA training series (github.com/olcf/cuda-training-series). Each program is
# built, run under RUNNER (empty on a GPU machine) with a time limit, and its output kept in
# OUTDIR/NAME.out with the exit status on the last line, so that two runs (the GPU's and
# ptxemu's) can be compared with tests/compare_outputs.sh.
#
# Usage: RUNNER=path/to/ptxemu tests/courses/survey.sh COURSE_DIR OUTDIR
set -u
src=${1:?usage: survey.sh COURSE_DIR OUTDIR}
out=${2:?usage: survey.sh COURSE_DIR OUTDIR}
src=$(cd "$src/exercises" && pwd)
mkdir -p "$out/bin"
out=$(cd "$out" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
RUNNER=${RUNNER:-}
TIMEOUT=${TIMEOUT:-300}
ran=0 ok=0 nobuild=0
while IFS='|' read -r name file flags args; do
    name=$(echo "$name" | tr -d ' ')
    case $name in ''|'#'*) continue ;; esac
    file=$(echo "$file" | tr -d ' ')
    # shellcheck disable=SC2086  # flag lists
    if ! (cd "$(dirname "$src/$file")" && "$NVCC" -o "$out/bin/$name" "$(basename "$file")" $flags) \
           >"$out/$name.build.log" 2>&1; then
        echo "$name build-failed"
        nobuild=$((nobuild + 1))
        continue
    fi
    # shellcheck disable=SC2086  # RUNNER may carry options; args is a list
    (cd "$out/bin" && timeout "$TIMEOUT" $RUNNER "./$name" $args) >"$out/$name.out" 2>&1 </dev/null
    rc=$?
    echo "exit=$rc" >>"$out/$name.out"
    ran=$((ran + 1))
    [ $rc = 0 ] && ok=$((ok + 1))
    echo "$name exit=$rc"
done <<'LIST'
hello            | hw1/hello_solution.cu                    |                        |
matrix_mul       | hw1/matrix_mul_solution.cu               |                        |
vector_add1      | hw1/vector_add_solution.cu               |                        |
matrix_mul_shared| hw2/matrix_mul_shared_solution.cu        |                        |
stencil_1d       | hw2/stencil_1d_solution.cu               |                        |
vector_add3      | hw3/vector_add_solution.cu               |                        |
matrix_sums4     | hw4/matrix_sums_solution.cu              |                        |
matrix_sums5     | hw5/matrix_sums_solution.cu              |                        |
max_reduction    | hw5/max_reduction_solution.cu            |                        |
reductions       | hw5/reductions.cu                        |                        |
array_inc        | hw6/array_inc_solution.cu                |                        |
linked_list      | hw6/linked_list_solution.cu              |                        |
multi            | hw7/multi_solution.cu                    |                        |
overlap          | hw7/overlap_solution.cu                  | -DUSE_STREAMS          |
task1_hw8        | hw8/task1/task1_solution.cu              | -O3                    |
task2_hw8        | hw8/task2/task2_solution.cu              | -O3                    |
task3_hw8        | hw8/task3/task3_solution.cu              | -O3                    |
task1_hw9        | hw9/task1_solution.cu                    | -std=c++11             |
task2_hw9        | hw9/task2_solution.cu                    | -rdc=true -std=c++11   |
streams          | hw10/streams_solution.cu                 | -DUSE_STREAMS          |
test_hw11        | hw11/test.cu                             | -DNO_MPI               | 1048576 1
task1_hw12       | hw12/task1_solution.cu                   | -lineinfo              |
task2_hw12       | hw12/task2_solution.cu                   | -G -g -std=c++14       |
axpy_capture     | hw13/Solutions/axpy_stream_capture_solution.cu |                  |
axpy_cublas      | hw13/Solutions/axpy_cublas_solution.cu   | -lcublas               |
LIST
echo "built and run: $ran; exit 0: $ok; did not build: $nobuild"
