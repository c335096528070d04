#!/bin/sh
# embed-headers.sh - writes jit/jit_headers.c: the machine's headers the compiled tier's C
# includes (jit/compile.c writes them into its cache), as {path, text} pairs.
# Usage: embed-headers.sh SRCDIR HEADER... > jit_headers.c   (paths relative to SRCDIR)
set -e
src=$1
shift
echo "/* jit_headers.c - made by scripts/embed-headers.sh from the headers it names; do not edit. */"
echo "const char *const jit_headers[][2] = {"
for h in "$@"; do
    printf '    { "%s",\n' "$h"
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/      "/' -e 's/$/\\n"/' "$src/$h"
    echo "    },"
done
echo "    { 0, 0 }"
echo "};"
