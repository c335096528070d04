#!/bin/sh
# autogen.sh - generates ./configure and Makefile.in from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"

missing=
command -v autoreconf >/dev/null 2>&1 || missing="$missing autoconf"
command -v automake   >/dev/null 2>&1 || missing="$missing automake"
command -v libtoolize >/dev/null 2>&1 || missing="$missing libtool"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
if [ -n "$missing" ]; then
    echo "autogen.sh: missing tools; install the Debian packages:$missing" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
fi

mkdir -p m4 build-aux
autoreconf --force --install
echo "Now run ./configure (see ./configure --help; --with-cuda=DIR if CUDA is not in /usr/local/cuda)."
