/* jit_shim.c - libptxemu-jit.so: keeps the PTX behind the cubins that NVRTC and nvJitLink
 * hand to a program, so that ptxemu's driver can run those cubins.
 *
 * A program that compiles at run time asks NVRTC (or nvJitLink) for a cubin - SASS, which
 * ptxemu cannot run - and loads it with cuModuleLoadData. The ptxemu launcher preloads this
 * library: nvrtcGetCUBIN and nvJitLinkGetLinkedCubin are passed on to the real library, and
 * the PTX of the same compilation (NVRTC keeps it; nvJitLink is asked to link again with
 * -ptx) is remembered under the cubin's bytes. The driver looks cubins up with
 * ptxemu_nvrtc_ptx(). Programs that never compile at run time are not affected.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the remembered pairs ---- */

typedef struct Entry {
    struct Entry *next;
    unsigned char *cubin;
    size_t size;
    char *ptx;
    size_t len;
} Entry;

static Entry *entries;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void remember(const void *cubin, size_t size, const char *ptx, size_t len)
{
    Entry *e = calloc(1, sizeof *e);
    if (!e || !(e->cubin = malloc(size)) || !(e->ptx = malloc(len + 1))) {
        if (e) free(e->cubin);
        free(e);
        return;
    }
    memcpy(e->cubin, cubin, size);
    memcpy(e->ptx, ptx, len);
    e->ptx[len] = 0;
    e->size = size;
    e->len = len;
    pthread_mutex_lock(&mu);
    e->next = entries;
    entries = e;
    pthread_mutex_unlock(&mu);
}

/* The PTX of a cubin this process was handed (its first `size` bytes compared), or NULL. */
const char *ptxemu_nvrtc_ptx(const void *cubin, size_t size, size_t *len);
const char *ptxemu_nvrtc_ptx(const void *cubin, size_t size, size_t *len)
{
    const char *found = NULL;
    pthread_mutex_lock(&mu);
    for (Entry *e = entries; e && !found; e = e->next) {
        size_t n = size < e->size ? size : e->size;
        if (n && !memcmp(e->cubin, cubin, n)) {
            found = e->ptx;
            *len = e->len;
        }
    }
    pthread_mutex_unlock(&mu);
    return found;
}

static void *next_fn(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

/* ---- NVRTC ---- */

typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin);
nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)
{
    nvrtcResult (*get)(nvrtcProgram, char *) = next_fn("nvrtcGetCUBIN");
    nvrtcResult (*cubin_size)(nvrtcProgram, size_t *) = next_fn("nvrtcGetCUBINSize");
    nvrtcResult (*ptx_size)(nvrtcProgram, size_t *) = next_fn("nvrtcGetPTXSize");
    nvrtcResult (*get_ptx)(nvrtcProgram, char *) = next_fn("nvrtcGetPTX");
    if (!get) return 7;   /* NVRTC_ERROR_INTERNAL_ERROR: no NVRTC behind us */
    nvrtcResult r = get(prog, cubin);
    size_t n = 0, m = 0;
    if (r != 0 || !cubin_size || !ptx_size || !get_ptx || cubin_size(prog, &n) || !n ||
        ptx_size(prog, &m) || !m)
        return r;
    char *ptx = malloc(m);
    if (ptx && get_ptx(prog, ptx) == 0) remember(cubin, n, ptx, strnlen(ptx, m));
    free(ptx);
    return r;
}

/* ---- nvJitLink (versioned entry points of CUDA 13.0) ---- */

typedef int nvJitLinkResult;
typedef struct nvJitLink *nvJitLinkHandle;

typedef struct Input { int type; void *data; size_t size; char *name; int file; } Input;
typedef struct Link {
    struct Link *next;
    nvJitLinkHandle h;
    char **opts;
    uint32_t nopts;
    Input *in;
    int nin;
} Link;

static Link *links;

static Link *link_of(nvJitLinkHandle h)
{
    for (Link *l = links; l; l = l->next)
        if (l->h == h) return l;
    return NULL;
}

nvJitLinkResult __nvJitLinkCreate_13_0(nvJitLinkHandle *handle, uint32_t n, const char **options);
nvJitLinkResult __nvJitLinkCreate_13_0(nvJitLinkHandle *handle, uint32_t n, const char **options)
{
    nvJitLinkResult (*create)(nvJitLinkHandle *, uint32_t, const char **) =
        next_fn("__nvJitLinkCreate_13_0");
    if (!create) return 4;   /* NVJITLINK_ERROR_INTERNAL */
    nvJitLinkResult r = create(handle, n, options);
    Link *l = r == 0 ? calloc(1, sizeof *l) : NULL;
    if (!l) return r;
    l->h = *handle;
    l->opts = calloc((size_t)n + 2, sizeof *l->opts);
    for (uint32_t i = 0; l->opts && i < n; i++) l->opts[i] = strdup(options[i]);
    l->nopts = n;
    pthread_mutex_lock(&mu);
    l->next = links;
    links = l;
    pthread_mutex_unlock(&mu);
    return r;
}

static void add_input(nvJitLinkHandle h, int type, const void *data, size_t size,
                      const char *name, int file)
{
    pthread_mutex_lock(&mu);
    Link *l = link_of(h);
    Input *in = l ? realloc(l->in, (size_t)(l->nin + 1) * sizeof *in) : NULL;
    if (in) {
        l->in = in;
        Input *x = &in[l->nin++];
        x->type = type;
        x->size = size;
        x->file = file;
        x->name = name ? strdup(name) : NULL;
        x->data = file ? NULL : malloc(size ? size : 1);
        if (x->data) memcpy(x->data, data, size);
    }
    pthread_mutex_unlock(&mu);
}

nvJitLinkResult __nvJitLinkAddData_13_0(nvJitLinkHandle h, int type, const void *data, size_t size,
                                        const char *name);
nvJitLinkResult __nvJitLinkAddData_13_0(nvJitLinkHandle h, int type, const void *data, size_t size,
                                        const char *name)
{
    nvJitLinkResult (*add)(nvJitLinkHandle, int, const void *, size_t, const char *) =
        next_fn("__nvJitLinkAddData_13_0");
    if (!add) return 4;
    nvJitLinkResult r = add(h, type, data, size, name);
    if (r == 0) add_input(h, type, data, size, name, 0);
    return r;
}

nvJitLinkResult __nvJitLinkAddFile_13_0(nvJitLinkHandle h, int type, const char *file);
nvJitLinkResult __nvJitLinkAddFile_13_0(nvJitLinkHandle h, int type, const char *file)
{
    nvJitLinkResult (*add)(nvJitLinkHandle, int, const char *) = next_fn("__nvJitLinkAddFile_13_0");
    if (!add) return 4;
    nvJitLinkResult r = add(h, type, file);
    if (r == 0) add_input(h, type, NULL, 0, file, 1);
    return r;
}

/* Link the same inputs again with -ptx, and remember the PTX under the cubin. */
static void shadow_ptx(Link *l, const void *cubin, size_t size)
{
    nvJitLinkResult (*create)(nvJitLinkHandle *, uint32_t, const char **) =
        next_fn("__nvJitLinkCreate_13_0");
    nvJitLinkResult (*add)(nvJitLinkHandle, int, const void *, size_t, const char *) =
        next_fn("__nvJitLinkAddData_13_0");
    nvJitLinkResult (*addf)(nvJitLinkHandle, int, const char *) = next_fn("__nvJitLinkAddFile_13_0");
    nvJitLinkResult (*complete)(nvJitLinkHandle) = next_fn("__nvJitLinkComplete_13_0");
    nvJitLinkResult (*psize)(nvJitLinkHandle, size_t *) = next_fn("__nvJitLinkGetLinkedPtxSize_13_0");
    nvJitLinkResult (*ptx)(nvJitLinkHandle, char *) = next_fn("__nvJitLinkGetLinkedPtx_13_0");
    nvJitLinkResult (*destroy)(nvJitLinkHandle *) = next_fn("__nvJitLinkDestroy_13_0");
    if (!create || !add || !addf || !complete || !psize || !ptx || !destroy || !l->opts) return;
    l->opts[l->nopts] = "-ptx";
    nvJitLinkHandle h;
    int ok = create(&h, l->nopts + 1, (const char **)l->opts) == 0;
    l->opts[l->nopts] = NULL;
    if (!ok) return;
    for (int i = 0; ok && i < l->nin; i++)
        ok = (l->in[i].file ? addf(h, l->in[i].type, l->in[i].name)
                            : add(h, l->in[i].type, l->in[i].data, l->in[i].size, l->in[i].name)) == 0;
    size_t n = 0;
    if (ok && complete(h) == 0 && psize(h, &n) == 0 && n) {
        char *text = malloc(n);
        if (text && ptx(h, text) == 0) remember(cubin, size, text, strnlen(text, n));
        free(text);
    }
    destroy(&h);
}

nvJitLinkResult __nvJitLinkGetLinkedCubin_13_0(nvJitLinkHandle h, void *cubin);
nvJitLinkResult __nvJitLinkGetLinkedCubin_13_0(nvJitLinkHandle h, void *cubin)
{
    nvJitLinkResult (*get)(nvJitLinkHandle, void *) = next_fn("__nvJitLinkGetLinkedCubin_13_0");
    nvJitLinkResult (*size)(nvJitLinkHandle, size_t *) = next_fn("__nvJitLinkGetLinkedCubinSize_13_0");
    if (!get) return 4;
    nvJitLinkResult r = get(h, cubin);
    size_t n = 0;
    if (r != 0 || !size || size(h, &n) || !n) return r;
    pthread_mutex_lock(&mu);
    Link *l = link_of(h);
    pthread_mutex_unlock(&mu);
    if (l) shadow_ptx(l, cubin, n);
    return r;
}

nvJitLinkResult __nvJitLinkDestroy_13_0(nvJitLinkHandle *h);
nvJitLinkResult __nvJitLinkDestroy_13_0(nvJitLinkHandle *h)
{
    nvJitLinkResult (*destroy)(nvJitLinkHandle *) = next_fn("__nvJitLinkDestroy_13_0");
    if (!destroy) return 4;
    pthread_mutex_lock(&mu);
    for (Link **pp = &links; h && *pp; pp = &(*pp)->next) {
        if ((*pp)->h != *h) continue;
        Link *l = *pp;
        *pp = l->next;
        for (uint32_t i = 0; l->opts && i < l->nopts; i++) free(l->opts[i]);
        free(l->opts);
        for (int i = 0; i < l->nin; i++) { free(l->in[i].data); free(l->in[i].name); }
        free(l->in);
        free(l);
        break;
    }
    pthread_mutex_unlock(&mu);
    return destroy(h);
}
