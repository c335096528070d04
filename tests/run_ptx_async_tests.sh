#!/bin/sh
# run_ptx_async_tests.sh - the PTX tests of the asynchronous machinery and clusters
# (tests/ptx-async, recorded on an H100), run like tests/run_ptx_tests.sh.
PTX_TEST_DIR=$(dirname "$0")/ptx-async exec sh "$(dirname "$0")/run_ptx_tests.sh" "$@"
