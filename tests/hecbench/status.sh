#!/bin/bash
# status.sh - one line per HeCBench CUDA program with its status on ptxemu, for
# docs/compatibility.md: the verdict of the build (tests/hecbench/survey.sh build: built, or
# skipped and what it needs), the verdict of its run under ptxemu, the GPU's verdict
# (tests/expected/hecbench/survey.txt), whether ptxemu printed what the GPU printed, and the
# note on it from tests/hecbench/notes.txt (for a program nodata.txt names, the GPU verdict is
# no-data and the note what the GPU printed). Outputs are compared with lines of times,
# bandwidths and rates set aside, and the lines tests/hecbench/volatile.txt names for the
# program; the GPU's output is NAME.out, and where the GPU's own runs differ from each other
# also NAME.run2.out, NAME.run3.out: ptxemu's output is the same when it is one of those.
# Writes "NAME|PTXEMU VERDICT|GPU VERDICT|OUTPUT|NOTE" lines, sorted, to stdout: commit them as
# tests/hecbench/status.txt.
#
# Usage: tests/hecbench/status.sh BUILD_SURVEY_TXT EMU_OUTDIR
#   (EMU_OUTDIR: survey.sh run's output folder under ptxemu, with its verdicts in survey.txt)
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: status.sh BUILD_SURVEY_TXT EMU_OUTDIR}
emu=${2:?usage: status.sh BUILD_SURVEY_TXT EMU_OUTDIR}
gpu=$here/../expected/hecbench
# shellcheck source=tests/hecbench/normal.sh
. "$here/normal.sh"
verdict() { sed -n "s/^$2 //p" "$1" 2>/dev/null | head -n 1; }
while read -r name built; do
    note=$(awk -F'\t' -v n="$name" '$1 == n { print $2; exit }' "$here/notes.txt" 2>/dev/null)
    [ -n "$note" ] || note=$(awk -F'\t' -v n="$name" '$1 == n { print "the H200 printed `" $2 "`"; exit }' "$here/nodata.txt" 2>/dev/null)
    theirs=$(verdict "$gpu/survey.txt" "$name")
    # a program without its input data (nodata.txt) is no-data on the GPU, whatever its exit
    grep -q "^$name	" "$here/nodata.txt" 2>/dev/null && theirs=no-data
    case $built in
        built) ;;
        *) echo "$name|$built|${theirs:--}|-|$note"; continue ;;
    esac
    mine=$(verdict "$emu/survey.txt" "$name")
    output=-
    if [ -f "$gpu/$name.out" ] && [ -f "$emu/$name.out" ]; then
        output=differs
        for g in "$gpu/$name.out" "$gpu/$name".run[0-9].out; do
            [ -f "$g" ] || continue
            if diff <(normal "$name" "$g") <(normal "$name" "$emu/$name.out") >/dev/null; then
                output=same
                break
            fi
        done
    fi
    # what ptxemu said about the program (compared without it), for the note
    warn=$(grep -aom1 'ptxemu: warning: .*' "$emu/$name.out" 2>/dev/null | cut -c1-240 | tr "|\\\`" "/'")
    [ -n "$warn" ] && note="${note:+$note; }ptxemu warns \`${warn#ptxemu: warning: }\`"
    echo "$name|${mine:-not run}|${theirs:--}|$output|$note"
done <"$build" | sort
