#!/bin/bash
# record_ptx_async.sh - records the expected outputs of tests/ptx-async/*.ptx (Hopper async
# copies, mbarrier, clusters) on a real NVIDIA GPU of compute capability 9.0: record_ptx.sh
# run for that folder. Usage: OUT=/some/dir bash tests/gpu/record_ptx_async.sh [NAME ...]
PTX_TEST_DIR=ptx-async OUT=${OUT:-/tmp/ptx_async_record} exec bash "$(dirname "$0")/record_ptx.sh" "$@"
