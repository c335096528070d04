#!/bin/sh
# install-deps.sh - installs the Debian packages ptxemu needs to build (as root, or through
# sudo). nvcc (CUDA 13) is not a Debian package: it is expected in /usr/local/cuda.
set -e
packages="build-essential autoconf automake libtool pkg-config libffi-dev libzstd-dev python3 clang libclang-rt-dev tmux python3-numba python3-ipython python3-ipykernel jupyter-nbconvert python3-matplotlib slurm-wlm parallel"
missing=
for p in $packages; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then run=; elif command -v sudo >/dev/null; then run=sudo; else
    echo "install-deps: need root (or sudo) to install:$missing" >&2
    exit 1
fi
$run env DEBIAN_FRONTEND=noninteractive apt-get update
$run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
