/* integrity.h - the keyed digest with which NVIDIA's runtime checks the driver it talks to
 * (export table d4082055-..., docs/driver.md). */
#ifndef PTXEMU_INTEGRITY_H
#define PTXEMU_INTEGRITY_H

#include <stddef.h>
#include <stdint.h>

/* What the runtime and the driver both know, in the order they digest it. */
typedef struct IntegrityInput {
    uint32_t driver_version;       /* cuDriverGetVersion's answer                        */
    uint32_t version;              /* the first argument of the check                    */
    uint32_t process;              /* getpid()                                           */
    uint32_t thread;               /* pthread_self(), low 32 bits                        */
    const void *cudart_table;      /* the runtime-interface export table (6bd5fb6c-...)   */
    const void *integrity_table;   /* this check's own export table                      */
    const void *check_fn;          /* the check function (entry 1 of that table)         */
    uint64_t unix_seconds;         /* the second argument                                */
} IntegrityInput;

/* One device as digested: its UUID and PCI location. */
typedef struct IntegrityDevice {
    unsigned char uuid[16];
    int32_t pci_domain, pci_bus, pci_device;
} IntegrityDevice;

/* MD2 (RFC 1319) of len bytes. */
void md2_digest(const void *data, size_t len, unsigned char out[16]);

/* The 16 bytes the check writes for version `in->version` (as two little-endian words). */
void integrity_answer(const IntegrityInput *in, const IntegrityDevice *devs, int ndevs,
                      unsigned char out[16]);

#endif
