#!/bin/bash
# compare_outputs.sh - compares two runs of the same programs (the GPU's and ptxemu's), each
# a folder of NAME.out files, program by program: "same" when the outputs agree once lines
# that carry times or bandwidths are set aside, "differs" otherwise (with the first differing
# lines), and totals. The GPU's runs are kept in tests/courses/h100/ (tests/courses/survey.sh)
# and tests/expected/cuda-samples/ (tests/cuda-samples/build_run.sh).
# Usage: tests/compare_outputs.sh GPU_OUTDIR EMU_OUTDIR   (e.g. tests/courses/h100 /tmp/emu)
set -u
gpu=${1:?usage: compare_outputs.sh GPU_OUTDIR EMU_OUTDIR}
emu=${2:?usage: compare_outputs.sh GPU_OUTDIR EMU_OUTDIR}
timing='[0-9.]+ *(ms|s|us|sec|seconds|GB/s|MB/s)\b|[Tt]ime|[Dd]uration|[Ee]lapsed|[Bb]andwidth'
same=0 differs=0
for g in "$gpu"/*.out; do
    name=$(basename "$g" .out)
    e=$emu/$name.out
    if [ ! -f "$e" ]; then echo "$name: not run here"; differs=$((differs + 1)); continue; fi
    if diff <(grep -vE "$timing" "$g") <(grep -vE "$timing" "$e") >/dev/null; then
        echo "$name: same"
        same=$((same + 1))
    else
        echo "$name: differs"
        diff <(grep -vE "$timing" "$g") <(grep -vE "$timing" "$e") | head -n 6 | sed 's/^/    /'
        differs=$((differs + 1))
    fi
done
echo "same output as the GPU: $same; different: $differs"
