#!/bin/bash
# status.sh - one line per sample of NVIDIA's cuda-samples (categories 0-6) with its status on
# ptxemu, for docs/compatibility.md: the verdict of tests/cuda-samples/survey.sh run under the
# ptxemu launcher, the H100's verdict and whether ptxemu printed what the H100 printed
# (tests/expected/cuda-samples/survey/, lines with times and bandwidths and those named in
# tests/cuda-samples/volatile.txt set aside), and the note on it from
# tests/cuda-samples/notes.txt.
# Writes "CATEGORY|NAME|PTXEMU VERDICT|H100 VERDICT|OUTPUT|NOTE" lines, sorted, to stdout:
# commit them as tests/cuda-samples/status.txt.
#
# Samples for several GPUs run with four emulated devices in the survey, but the H100 that
# recorded them was one GPU: ONE_DEVICE_OUTDIR, when given, holds their runs with one device,
# and those are what is compared.
#
# Usage: tests/cuda-samples/status.sh SAMPLES_DIR SURVEY_TXT EMU_OUTDIR [ONE_DEVICE_OUTDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${1:?usage: status.sh SAMPLES_DIR SURVEY_TXT EMU_OUTDIR}
survey=${2:?usage: status.sh SAMPLES_DIR SURVEY_TXT EMU_OUTDIR}
emu=${3:?usage: status.sh SAMPLES_DIR SURVEY_TXT EMU_OUTDIR}
one=${4:-}
gpu=$here/../expected/cuda-samples/survey
timing='[0-9.]+ *(ms|s|us|sec|seconds|GB/s|MB/s)\b|[Tt]ime|[Dd]uration|[Ee]lapsed|[Bb]andwidth|[Tt]hroughput|[MG](pixels|texlookups|samples|pix)/s|TFLOPS|TOPS\b|GFlop/s|per second'
verdict() { sed -n "s/^$2 //p" "$1" | head -n 1; }
# A run's output as compared: paths of the samples' sources cut to Samples/..., lines with
# times and bandwidths set aside, and the lines tests/cuda-samples/volatile.txt names for
# this sample (what differs from run to run on the GPU itself: measurements, input seeded
# from the clock); "@unordered" there compares the lines in any order (printf from
# several blocks, whose order the GPU's block scheduling decides).
normal() {
    local v unordered=0
    v=$(sed -n "s/^$name[[:space:]]\+//p" "$here/volatile.txt" 2>/dev/null)
    case $v in @unordered*) unordered=1; v=${v#@unordered}; v=${v# } ;; esac
    sed -E 's#/[^ :]*/Samples/#Samples/#g' "$1" | grep -vE "$timing" |
        { if [ -n "$v" ]; then grep -vE "$v"; else cat; fi; } |
        { if [ $unordered = 1 ]; then sort; else cat; fi; }
}
for dir in "$src"/Samples/[0-6]_*/*/; do
    name=$(basename "$dir")
    cat=$(basename "$(dirname "$dir")")
    mine=$(verdict "$survey" "$name")
    [ -n "$mine" ] || continue
    theirs=$(verdict "$gpu/survey.txt" "$name")
    output=-
    mine_out=$emu/$name.out
    [ -n "$one" ] && [ -f "$one/$name.out" ] && mine_out=$one/$name.out
    if [ -f "$gpu/$name.out" ] && [ -f "$mine_out" ]; then
        if diff <(normal "$gpu/$name.out") <(normal "$mine_out") >/dev/null
        then output=same; else output=differs; fi
    fi
    note=$(sed -n "s/^$name[[:space:]]\+//p" "$here/notes.txt" 2>/dev/null | head -n 1)
    echo "$cat|$name|$mine|${theirs:--}|$output|$note"
done | sort
