# normal.sh - sourced by tests/hecbench/status.sh and compare.sh: `normal NAME FILE` prints a
# HeCBench program's output as it is compared between the GPU and ptxemu: lines that carry a
# time, a bandwidth or a rate set aside (measurements, not results), lines naming the device
# (an H200 there, ptxemu's emulated H100 here) set aside, ptxemu's own diagnostics taken
# out, and the lines
# tests/hecbench/volatile.txt names for the program (what differs from run to run on the GPU
# itself); "@unordered" there compares the lines in any order.
hecbench_timing='[0-9.]+ *\(?(ms|s|us|usec|ns|sec|secs|seconds|msec|milliseconds|microseconds)\)?( |$|\.|,)|[Tt]ime|TIME|[Dd]uration|[Ee]lapsed|[Bb]andwidth|[Tt]hroughput|[kKGMT](B|b|Byte|byte|bytes|Bytes)/s|GiB/s|[GMT]?[Ff][Ll][Oo][Pp][Ss]|[GMT]?FLOP/s|GOPS|[GM]elem|[GMK]?[Ee]lements/s|[Pp]erformance|per second|per (ns|us|ms|s|sec)\b|[Ss]peed[- ]?up|[Ss]ec(ond)?s?\)?$|\bus\b|\bms\b'
hecbench_device='H100|H200|GPU memory usage|[Dd]evice [Nn]ame|GPU [Nn]ame|Running on'
normal() {
    local v unordered=0 here_=${HECBENCH_TESTS:-$(dirname "${BASH_SOURCE[0]}")}
    v=$(sed -n "s/^$1[[:space:]]\+//p" "$here_/volatile.txt" 2>/dev/null)
    case $v in @unordered*) unordered=1; v=${v#@unordered}; v=${v# } ;; esac
    # ptxemu's own diagnostics (about the program: an out-of-bounds access the H100 lets
    # pass) go to stderr and may land in the middle of a line of the program's: taken out, and
    # the rest of that line joined with the next, as the program printed them
    sed -e ':a' -e '/ptxemu: /{ s/ptxemu: .*$//; $!{ N; s/\n//; ba; }; }' "$2" |
        grep -avE "$hecbench_timing" | grep -avE "$hecbench_device" |
        { if [ -n "$v" ]; then grep -avE "$v"; else cat; fi; } |
        { if [ $unordered = 1 ]; then sort; else cat; fi; }
}
