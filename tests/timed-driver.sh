#!/bin/sh
# timed-driver.sh DRIVER ARGS... - runs automake's test driver (DRIVER, given ARGS) and adds
# the test's wall time to the end of its log as one line, "ptxemu-test-seconds: N", which
# .ci/run reads to list the slowest tests (CI has a time budget; this says where it goes).
drv=$1
shift
log= prev=
for a in "$@"; do
    [ "$prev" = --log-file ] && log=$a
    prev=$a
done
start=$(date +%s)
${SHELL:-/bin/sh} "$drv" "$@"
rc=$?
[ -n "$log" ] && [ -f "$log" ] && echo "ptxemu-test-seconds: $(($(date +%s) - start))" >>"$log"
exit $rc
