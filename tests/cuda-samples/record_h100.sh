#!/bin/bash
# record_h100.sh - on a machine with a real GPU: runs tests/cuda-samples/survey.sh over a
# checkout of NVIDIA's cuda-samples with no RUNNER (the samples on the GPU itself), split into
# JOBS shards that build and run side by side, and gathers what each sample printed into
# OUTDIR/NAME.out, the verdicts into OUTDIR/survey.txt and the GPU, driver and nvcc into
# OUTDIR/RECORDED_ON.txt. tests/cuda-samples/compare.sh holds ptxemu's runs against them.
#
# Usage: tests/cuda-samples/record_h100.sh SAMPLES_DIR OUTDIR [CATEGORY...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "${1:?usage: record_h100.sh SAMPLES_DIR OUTDIR [CATEGORY...]}" && pwd)
out=${2:?usage: record_h100.sh SAMPLES_DIR OUTDIR [CATEGORY...]}
shift 2
[ $# -eq 0 ] && set -- 0_Introduction 1_Utilities 2_Concepts_and_Techniques 3_CUDA_Features 4_CUDA_Libraries 5_Domain_Specific 6_Performance
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    echo "nvcc: $(nvcc --version | tail -n 2 | head -n 1)"
    echo "built by tests/cuda-samples/survey.sh (the default way: no -arch), run on the GPU"
    echo "date: $(date -u +%Y-%m-%d)"
} >"$out/RECORDED_ON.txt"
# shard k holds every jobs-th sample, as links into the checkout
k=0
for cat in "$@"; do
    for dir in "$src/Samples/$cat"/*/; do
        s=$work/shard$((k % jobs))
        mkdir -p "$s/Samples/$cat"
        ln -s "$dir" "$s/Samples/$cat/$(basename "$dir")"
        ln -sfn "$src/Common" "$s/Common"
        k=$((k + 1))
    done
done
for s in "$work"/shard*; do
    cats=$(cd "$s/Samples" && ls)
    # shellcheck disable=SC2086  # the shard's categories
    RUNNER= bash "$here/survey.sh" "$s" "$s.out" $cats >"$s.txt" 2>&1 &
done
wait
cat "$work"/shard*.txt | grep -v '^built and run' | sort >"$out/survey.txt"
for f in "$work"/shard*.out/*.out; do cp "$f" "$out/"; done
echo "$(grep -c ' runs$' "$out/survey.txt") of $(grep -vc ' skipped' "$out/survey.txt") ran to success on the GPU" >>"$out/RECORDED_ON.txt"
