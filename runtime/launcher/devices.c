/* devices.c - `ptxemu --devices [--json]`: the emulated devices as programs see them.
 *
 * The launcher asks ptxemu's own libcuda.so.1 (dlopen'ed from the library directory), like
 * any driver-API program, so what it prints is what programs get, PTXEMU_DEVICES included:
 * each device's identity, a deviceQuery-style summary, every attribute the driver answers
 * (named after cuda.h's CU_DEVICE_ATTRIBUTE_* enumerators: attr_names.def is generated from
 * the CUDA headers at build time), and every pair's peer link.
 */
#include "devices.h"
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver entry points used, with the driver's signatures (ints for enums). */
typedef struct Drv {
    int (*init)(unsigned);
    int (*version)(int *);
    int (*count)(int *);
    int (*name)(char *, int, int);
    int (*uuid)(unsigned char *, int);
    int (*mem)(size_t *, int);
    int (*attr)(int *, int, int);
    int (*bus)(char *, int, int);
    int (*can_peer)(int *, int, int);
    int (*p2p)(int *, int, int, int);
} Drv;

typedef struct AttrName { int num; const char *name; } AttrName;
static const AttrName attr_names[] = {
#define A(num, name) { num, name },
#include "runtime/launcher/attr_names.def"
#undef A
};

static const struct { int num; const char *name; } p2p_names[] = {
    { 2, "access_supported" }, { 1, "performance_rank" }, { 3, "native_atomic_supported" },
    { 4, "cuda_array_access_supported" }, { 5, "only_partial_native_atomic_supported" },
};

static int load(const char *libdir, Drv *d)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/libcuda.so.1", libdir) >= (int)sizeof path) return -1;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "ptxemu: --devices: cannot load %s: %s\n", path, dlerror());
        return -1;
    }
    const char *names[] = { "cuInit", "cuDriverGetVersion", "cuDeviceGetCount",
                            "cuDeviceGetName", "cuDeviceGetUuid_v2", "cuDeviceTotalMem_v2",
                            "cuDeviceGetAttribute", "cuDeviceGetPCIBusId",
                            "cuDeviceCanAccessPeer", "cuDeviceGetP2PAttribute" };
    void **slots[] = { (void **)&d->init, (void **)&d->version, (void **)&d->count,
                       (void **)&d->name, (void **)&d->uuid, (void **)&d->mem,
                       (void **)&d->attr, (void **)&d->bus, (void **)&d->can_peer,
                       (void **)&d->p2p };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!(*slots[i] = dlsym(h, names[i]))) {
            fprintf(stderr, "ptxemu: --devices: %s has no %s\n", path, names[i]);
            return -1;
        }
    return 0;
}

/* The attribute's value; 0 when the driver does not answer it (then *ok is 0). */
static int attr(const Drv *d, int dev, int num, int *ok)
{
    int v = 0;
    *ok = d->attr(&v, num, dev) == 0;
    return v;
}

static int A_(const Drv *d, int dev, int num)
{
    int ok;
    return attr(d, dev, num, &ok);
}

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi writes UUIDs. */
static void uuid_text(const unsigned char u[16], char out[48])
{
    int n = sprintf(out, "GPU-");
    for (int i = 0; i < 16; i++)
        n += sprintf(out + n, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
}

/* A name as a person reads it: "MAX_THREADS_PER_BLOCK" -> "max threads per block". */
static void readable(const char *name, char sep, char *out, size_t n)
{
    size_t i = 0;
    for (; name[i] && i + 1 < n; i++)
        out[i] = name[i] == '_' ? sep : (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    out[i] = 0;
}

/* Whether attr_names[i] is the first name of its number (cuda.h has aliases). */
static int first_of_number(size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (attr_names[j].num == attr_names[i].num) return 0;
    return 1;
}

typedef struct Ident { char name[256], bus[32], uuid[48]; size_t mem; } Ident;

static void ident(const Drv *d, int dev, Ident *id)
{
    unsigned char u[16] = { 0 };
    strcpy(id->name, "?");
    strcpy(id->bus, "?");
    d->name(id->name, sizeof id->name, dev);
    d->bus(id->bus, sizeof id->bus, dev);
    d->uuid(u, dev);
    uuid_text(u, id->uuid);
    id->mem = 0;
    d->mem(&id->mem, dev);
}

/* Attribute numbers of cuda.h used in the summary. */
enum { MAX_THREADS = 1, BLOCK_X = 2, BLOCK_Y = 3, BLOCK_Z = 4, GRID_X = 5, GRID_Y = 6,
       GRID_Z = 7, SMEM_BLOCK = 8, CONST_MEM = 9, WARP = 10, REGS_BLOCK = 12, CLOCK = 13,
       SMS = 16, MEM_CLOCK = 36, BUS_WIDTH = 37, L2 = 38, THREADS_SM = 39, CC_MAJOR = 75,
       CC_MINOR = 76, SMEM_SM = 81, SMEM_OPTIN = 97 };

static void print_summary(const Drv *d, int dev, const Ident *id)
{
    printf("Device %d: \"%s\"\n", dev, id->name);
    printf("  UUID                                   %s\n", id->uuid);
    printf("  PCI bus id                             %s\n", id->bus);
    printf("  compute capability                     %d.%d\n", A_(d, dev, CC_MAJOR), A_(d, dev, CC_MINOR));
    printf("  global memory                          %zu MBytes (%zu bytes)\n", id->mem >> 20, id->mem);
    printf("  multiprocessors                        %d\n", A_(d, dev, SMS));
    printf("  GPU clock rate                         %d MHz\n", A_(d, dev, CLOCK) / 1000);
    printf("  memory clock rate                      %d MHz\n", A_(d, dev, MEM_CLOCK) / 1000);
    printf("  memory bus width                       %d-bit\n", A_(d, dev, BUS_WIDTH));
    printf("  L2 cache                               %d bytes\n", A_(d, dev, L2));
    printf("  constant memory                        %d bytes\n", A_(d, dev, CONST_MEM));
    printf("  shared memory per block                %d bytes (%d with opt-in)\n",
           A_(d, dev, SMEM_BLOCK), A_(d, dev, SMEM_OPTIN));
    printf("  shared memory per multiprocessor       %d bytes\n", A_(d, dev, SMEM_SM));
    printf("  registers per block                    %d\n", A_(d, dev, REGS_BLOCK));
    printf("  warp size                              %d\n", A_(d, dev, WARP));
    printf("  threads per multiprocessor             %d\n", A_(d, dev, THREADS_SM));
    printf("  threads per block                      %d\n", A_(d, dev, MAX_THREADS));
    printf("  block dimensions                       (%d, %d, %d)\n", A_(d, dev, BLOCK_X),
           A_(d, dev, BLOCK_Y), A_(d, dev, BLOCK_Z));
    printf("  grid dimensions                        (%d, %d, %d)\n", A_(d, dev, GRID_X),
           A_(d, dev, GRID_Y), A_(d, dev, GRID_Z));
    printf("  all attributes (cuDeviceGetAttribute):\n");
    for (size_t i = 0; i < sizeof attr_names / sizeof attr_names[0]; i++) {
        int ok, v = attr(d, dev, attr_names[i].num, &ok);
        if (!ok || !first_of_number(i)) continue;
        char r[96];
        readable(attr_names[i].name, ' ', r, sizeof r);
        printf("    %-66s %d\n", r, v);
    }
}

static void print_peers(const Drv *d, int n)
{
    if (n < 2) return;
    printf("Peer access (cuDeviceCanAccessPeer, row: from, column: to):\n      ");
    for (int b = 0; b < n; b++) printf(" %3d", b);
    printf("\n");
    for (int a = 0; a < n; a++) {
        printf("  %3d ", a);
        for (int b = 0; b < n; b++) {
            int v = 0;
            d->can_peer(&v, a, b);
            printf(" %3s", a == b ? "-" : v ? "yes" : "no");
        }
        printf("\n");
    }
    printf("Links (cuDeviceGetP2PAttribute, the same for every pair of devices here):\n");
    for (size_t i = 0; i < sizeof p2p_names / sizeof p2p_names[0]; i++) {
        int v = 0;
        char r[64];
        readable(p2p_names[i].name, ' ', r, sizeof r);
        if (d->p2p(&v, p2p_names[i].num, 0, 1) == 0) printf("  %-40s %d\n", r, v);
    }
}

static void json_device(const Drv *d, int dev, const Ident *id, int last)
{
    printf("    {\"ordinal\": %d, \"name\": \"%s\", \"uuid\": \"%s\", \"pci_bus_id\": \"%s\", "
           "\"total_memory\": %zu,\n     \"attributes\": {", dev, id->name, id->uuid, id->bus,
           id->mem);
    const char *sep = "";
    for (size_t i = 0; i < sizeof attr_names / sizeof attr_names[0]; i++) {
        int ok, v = attr(d, dev, attr_names[i].num, &ok);
        if (!ok || !first_of_number(i)) continue;
        char r[96];
        readable(attr_names[i].name, '_', r, sizeof r);
        printf("%s\n       \"%s\": %d", sep, r, v);
        sep = ",";
    }
    printf("}}%s\n", last ? "" : ",");
}

static void json_peers(const Drv *d, int n)
{
    const char *sep = "";
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b) continue;
            int can = 0;
            d->can_peer(&can, a, b);
            printf("%s\n    {\"from\": %d, \"to\": %d, \"can_access_peer\": %d", sep, a, b, can);
            for (size_t i = 0; i < sizeof p2p_names / sizeof p2p_names[0]; i++) {
                int v = 0;
                if (d->p2p(&v, p2p_names[i].num, a, b) == 0)
                    printf(", \"%s\": %d", p2p_names[i].name, v);
            }
            printf("}");
            sep = ",";
        }
}

int devices_main(const char *libdir, int json)
{
    Drv d;
    if (load(libdir, &d)) return 1;
    int rc = d.init(0), n = 0, version = 0;
    if (rc == 0) rc = d.count(&n);
    if (rc != 0) {
        fprintf(stderr, "ptxemu: --devices: the driver did not start (CUresult %d)\n", rc);
        return 1;
    }
    d.version(&version);
    if (json)
        printf("{\n  \"driver_version\": %d,\n  \"device_count\": %d,\n  \"devices\": [\n", version, n);
    else
        printf("ptxemu: %d emulated device%s (PTXEMU_DEVICES%s), driver API version %d.%d\n\n", n,
               n == 1 ? "" : "s", getenv("CUDA_VISIBLE_DEVICES") ? ", CUDA_VISIBLE_DEVICES" : "",
               version / 1000, version % 1000 / 10);
    for (int dev = 0; dev < n; dev++) {
        Ident id;
        ident(&d, dev, &id);
        if (json) json_device(&d, dev, &id, dev == n - 1);
        else { print_summary(&d, dev, &id); printf("\n"); }
    }
    if (json) {
        printf("  ],\n  \"peers\": [");
        json_peers(&d, n);
        printf("%s]\n}\n", n > 1 ? "\n  " : "");
    } else {
        print_peers(&d, n);
    }
    return 0;
}
