#!/bin/bash
# compare.sh - the difference between what the GPU printed (tests/expected/hecbench/NAME.out)
# and what ptxemu printed (EMU_OUTDIR/NAME.out) for each named program, as status.sh compares
# them (lines of times, rates and the device's name set aside, and volatile.txt's lines).
# Usage: tests/hecbench/compare.sh EMU_OUTDIR NAME...
set -u
here=$(cd "$(dirname "$0")" && pwd)
emu=${1:?usage: compare.sh EMU_OUTDIR NAME...}
shift
# shellcheck source=tests/hecbench/normal.sh
. "$here/normal.sh"
for name in "$@"; do
    echo "== $name"
    diff <(normal "$name" "$here/../expected/hecbench/$name.out") <(normal "$name" "$emu/$name.out")
done
