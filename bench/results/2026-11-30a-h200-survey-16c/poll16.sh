#!/bin/bash
# Wait (up to LIMIT seconds, default 560) for survey16.sh's survey; then copy what it has
# so far to $OUT (survey.txt, the samples' outputs and times as a tarball).
c=.dev/lead/b8
end=$(( $(date +%s) + ${LIMIT:-560} ))
while [ ! -f /tmp/survey.t1 ] && [ $(date +%s) -lt $end ]; do
    sleep 10
    { echo "elapsed $(( $(date +%s) - $(cat /tmp/survey.t0) )) s"; cat /tmp/survey.txt; uptime; } > $OUT/progress.txt
done
{ echo "elapsed $(( $(cat /tmp/survey.t1 2>/dev/null || date +%s) - $(cat /tmp/survey.t0) )) s"; cat /tmp/survey.txt; uptime
  ps -eo etimes,args | grep -v grep | grep 'ptxemu\|/build/' | head -40; } > $OUT/progress.txt
(cd /tmp/survey && tar czf $OUT/survey-out.tgz *.out *.time verdicts 2>/dev/null)
[ -f /tmp/survey.t1 ] && echo SURVEY-DONE
cat $OUT/progress.txt | tail -60
