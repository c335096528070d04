#!/bin/bash
# record_samples_async.sh - on a machine with an H100: records the expected outputs of the
# samples of Hopper's asynchronous machinery, which Makefile.am builds with NVCC_FLAGS_90A
# (sm_90a) instead of NVCC_FLAGS. Runs tests/gpu/record_samples.sh with those flags (each
# sample run RUNS times, default 3, and checked to print the same thing every time) and
# renames its RECORDED_ON.txt to RECORDED_ON_async.txt. Copy OUTDIR's NAME.out files (and
# RECORDED_ON_async.txt) into tests/expected/samples/ afterwards.
#
# Usage: tests/gpu/record_samples_async.sh OUTDIR [NAME...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: record_samples_async.sh OUTDIR [NAME...]}
shift
[ $# -eq 0 ] && set -- pipelineGemm tmaSwizzle clusterHistogram multicastBroadcast bulkReduce
NVCC_FLAGS=${NVCC_FLAGS_90A:--arch=sm_90a --cudart shared -O2} bash "$here/record_samples.sh" "$out" "$@"
status=$?
mv "$out/RECORDED_ON.txt" "$out/RECORDED_ON_async.txt"
exit $status
