/* fuzz_ptx.c - libFuzzer harness: the PTX front end (lexer, parser, translation to the
 * decoded form, module variables) on arbitrary text. A clean error or a module: anything
 * else (a crash, a leak, undefined behaviour) is a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "jit/jit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static int ready;
    if (!ready) ready = emu_init(1) == 0 ? 1 : -1;
    if (ready < 0) abort();
    char *text = malloc(n + 1);
    if (!text) return 0;
    memcpy(text, data, n);
    text[n] = 0;
    char err[1024];
    int code = 0;
    JitModule *m = jit_module_load(text, n, "fuzz.ptx", err, sizeof err, &code);
    if (m) {
        for (int i = 0; i < jit_module_kernel_count(m); i++) {
            JitKernelInfo info;
            jit_kernel_info(jit_module_kernel_at(m, i), &info);   /* translates the kernel */
        }
        jit_module_free(m);
    }
    free(text);
    return 0;
}
