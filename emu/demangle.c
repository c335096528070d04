/* demangle.c - C++ names for messages (see demangle.h).
 *
 * The demangler is the C++ runtime's own, __cxa_demangle (the one c++filt and gdb agree
 * with), found at run time: a program built by nvcc has libstdc++ loaded already, and a
 * plain C program with extern "C" kernels has no mangled names to show. No link-time
 * dependency on the C++ library. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "demangle.h"

typedef char *(*DemangleFn)(const char *mangled, char *buf, size_t *len, int *status);

static DemangleFn demangler;
static pthread_once_t found = PTHREAD_ONCE_INIT;

static void find_demangler(void)
{
    void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!f) {   /* not loaded by the program: the system's C++ runtime, kept open */
        void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (lib) f = dlsym(lib, "__cxa_demangle");
    }
    demangler = (DemangleFn)f;
}

char *emu_demangle(const char *name)
{
    if (!name) return NULL;
    if (!strncmp(name, "_Z", 2)) {
        pthread_once(&found, find_demangler);
        int status = -1;
        char *d = demangler ? demangler(name, NULL, NULL, &status) : NULL;
        if (d && !status) return d;
        free(d);
    }
    return strdup(name);
}
