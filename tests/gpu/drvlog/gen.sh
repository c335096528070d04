#!/bin/bash
# gen.sh STUB_LIBCUDA OUTDIR - writes names.h and stubs.S: one exported function per cu* name of
# the driver, jumping through drvlog_ptrs[i] (filled with logging trampolines at load).
set -eu
stub=$1 out=$2
names=$(nm -D --defined-only "$stub" | awk '$2=="T"{print $3}' | grep -E '^cu' | sort -u)
{
    printf '#define DRVLOG_NAMES'
    for n in $names; do printf ' \\\n    X(%s)' "$n"; done
    printf '\n'
} >"$out/names.h"
{
    echo '.text'
    echo '.hidden drvlog_ptrs'
    i=0
    for n in $names; do
        echo ".globl $n"
        echo ".type $n,@function"
        echo "$n: jmp *drvlog_ptrs+$((8 * i))(%rip)"
        i=$((i + 1))
    done
    echo '.section .note.GNU-stack,"",@progbits'
} >"$out/stubs.S"
