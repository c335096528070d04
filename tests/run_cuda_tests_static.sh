#!/bin/sh
# run_cuda_tests_static.sh - tests/run_cuda_tests.sh with every program built the default way
# (nvcc's static runtime, which drives ptxemu's libcuda.so.1 through cuGetProcAddress and the
# export tables) and checked against the same H100 recordings.
CUDA_TEST_RUNTIME=static exec sh "$(dirname "$0")/run_cuda_tests.sh" "$@"
