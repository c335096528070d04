#!/bin/sh
# build_sample.sh - builds one sample as samples/BUILD says (the Makefile's sample rules and
# tests/gpu/record_samples.sh both use it, so what is recorded is what is tested).
# Usage: tests/build_sample.sh NAME OUTPUT     Environment: NVCC, NVCCFLAGS (added flags)
set -u
name=${1:?usage: build_sample.sh NAME OUTPUT}
output=${2:?usage: build_sample.sh NAME OUTPUT}
here=$(cd "$(dirname "$0")" && pwd)
samples=$(cd "$here/../samples" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
line=$(grep -E "^$name( |\$)" "$samples/BUILD" | head -n 1)
if [ -z "$line" ]; then
    echo "build_sample: $name is not in samples/BUILD" >&2
    exit 1
fi
rest=${line#"$name"}
case $rest in
    *" -- "*) flags=${rest%% -- *} more=${rest#* -- } ;;
    *) flags=$rest more= ;;
esac
case $output in /*) ;; *) output=$(pwd)/$output ;; esac
mkdir -p "$(dirname "$output")"
cd "$samples" || exit 1
# shellcheck disable=SC2086  # flag lists
exec "$NVCC" $flags ${NVCCFLAGS:-} -o "$output" "$name.cu" $more
