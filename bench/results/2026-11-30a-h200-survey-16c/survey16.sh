#!/bin/bash
# The cuda-samples survey under ptxemu on the GPU machine's 16 cores (issue 22: "the full
# survey completes under 30 minutes on 16 cores"): tests/cuda-samples/survey.sh with JOBS=16,
# the long samples first, started in a session of its own so that it outlives this call;
# later calls (poll16.sh) wait for it. Writes $OUT/progress.txt now and then.
c=.dev/lead/b8
export LD_LIBRARY_PATH=$PWD/$c/syslib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
command -v mpirun mpicxx || echo "no MPI"
mkdir -p /tmp/cs && tar -xzf $c/cs.tar.gz -C /tmp/cs || exit 1
date +%s > /tmp/survey.t0
setsid bash -c "RUNNER=$PWD/$c/ptx/ptxemu JOBS=16 TIMEOUT=${TMO:-1500} \
    FIRST='simpleAttributes UnifiedMemoryPerf globalToShmemAsyncCopy cudaTensorCoreGemm scan' \
    bash tests/cuda-samples/survey.sh /tmp/cs/cuda-samples /tmp/survey > /tmp/survey.txt 2>&1; date +%s > /tmp/survey.t1" \
    </dev/null >/dev/null 2>&1 &
bash $c/poll16.sh
