#!/bin/bash
# pack.sh - what the GPU machine needs to run the survey's programs as built here: each named
# program's folder without its sources (so: the executables the build made and the data they
# read), the shared src/data and src/include folders, and the folders of other programs a
# program's Makefile or sources name (../X-sycl/...) for their data; written as one
# zstd-compressed tar to TARBALL, with the layout of a HeCBench checkout (src/NAME-cuda/...).
# The same binaries then run on the GPU (tests/hecbench/record_gpu.sh) and under ptxemu.
#
# Usage: tests/hecbench/pack.sh HECBENCH TARBALL NAME...
set -u
hb=$(cd "${1:?usage: pack.sh HECBENCH TARBALL NAME...}" && pwd) || exit 66
tarball=${2:?usage: pack.sh HECBENCH TARBALL NAME...}
shift 2
list=$(mktemp) || exit 1
trap 'rm -f "$list"' EXIT
cd "$hb" || exit 66
# the files of folder $1 a run can read: not sources, objects or build and licence files
data_files() {
    find "src/$1" -type f ! -name '*.cu' ! -name '*.cuh' ! -name '*.h' ! -name '*.hpp' \
        ! -name '*.hh' ! -name '*.c' ! -name '*.cc' ! -name '*.cpp' ! -name '*.cxx' \
        ! -name '*.o' ! -name 'Makefile*' ! -name 'CMakeLists.txt' ! -name 'LICENSE*' \
        ! -name 'README*' ! -name '*.md' ! -name '*.dvc' ! -name '.gitignore' ! -path '*/.git/*'
}
dirs=$(for n in "$@"; do
    echo "$n-cuda"
    # folders named as ../X from the program's Makefile and sources
    grep -rhoE '\.\./[A-Za-z0-9_+.-]+-(cuda|sycl|hip|omp)\b|\.\./data\b' "src/$n-cuda" 2>/dev/null |
        sed 's#^\.\./##'
done | sort -u)
for d in $dirs data include; do
    [ -d "src/$d" ] && data_files "$d"
done | sort -u >"$list"
tar -cf - -T "$list" | zstd -q -19 --long=27 -T0 -o "$tarball" -f
echo "$(wc -l <"$list") files, $(du -h "$tarball" | cut -f1) in $tarball"
