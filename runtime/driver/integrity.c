/* integrity.c - the digest NVIDIA's runtime asks of the driver before it trusts it.
 *
 * The static runtime (and NVIDIA's shared libcudart) calls entry 1 of export table
 * d4082055-bde6-704b-8d34-ba123c66e1f2 as check(version, unix_seconds, out[16]) three times
 * and computes the same answer itself. For versions ending in 0 and 1 the answer is a fixed
 * pair of words; otherwise it is HMAC-MD2 under a fixed 16-byte key over the process and
 * thread ids, the driver version, the export tables' addresses, the time and each device's
 * UUID and PCI location (docs/driver.md gives the layout and how it was checked on an H100).
 */
#include <string.h>
#include "runtime/driver/integrity.h"

/* RFC 1319's substitution table (a permutation of 0..255 from the digits of pi). */
static const unsigned char md2_s[256] = {
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19,
    98, 167, 5, 243, 192, 199, 115, 140, 152, 147, 43, 217, 188, 76, 130, 202,
    30, 155, 87, 60, 253, 212, 224, 22, 103, 66, 111, 24, 138, 23, 229, 18,
    190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47, 238, 122,
    169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33,
    128, 127, 93, 154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3,
    255, 25, 48, 179, 72, 165, 181, 209, 215, 94, 146, 42, 172, 86, 170, 198,
    79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4, 241,
    69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2,
    27, 96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15,
    85, 71, 163, 35, 221, 81, 175, 58, 195, 92, 249, 206, 186, 197, 234, 38,
    44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205, 244, 65, 129, 77, 82,
    106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57,
    242, 239, 183, 14, 102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10,
    49, 68, 80, 180, 143, 237, 31, 26, 219, 153, 141, 51, 159, 17, 131, 20,
};

typedef struct Md2 {
    unsigned char x[48];       /* state, block, state ^ block            */
    unsigned char sum[16];     /* running checksum                       */
    unsigned char buf[16];
    unsigned n;                /* bytes waiting in buf                    */
} Md2;

static void md2_block(Md2 *m, const unsigned char *b)
{
    unsigned char l = m->sum[15];
    for (int i = 0; i < 16; i++) l = m->sum[i] ^= md2_s[b[i] ^ l];
    for (int i = 0; i < 16; i++) {
        m->x[16 + i] = b[i];
        m->x[32 + i] = (unsigned char)(b[i] ^ m->x[i]);
    }
    unsigned t = 0;
    for (unsigned round = 0; round < 18; round++) {
        for (int k = 0; k < 48; k++) t = m->x[k] ^= md2_s[t];
        t = (t + round) & 0xff;
    }
}

static void md2_update(Md2 *m, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len--) {
        m->buf[m->n++] = *p++;
        if (m->n == 16) {
            md2_block(m, m->buf);
            m->n = 0;
        }
    }
}

static void md2_final(Md2 *m, unsigned char out[16])
{
    unsigned char pad[16], sum[16];
    unsigned k = 16 - m->n;
    memset(pad, (int)k, sizeof pad);
    md2_update(m, pad, k);
    memcpy(sum, m->sum, sizeof sum);
    md2_update(m, sum, sizeof sum);
    memcpy(out, m->x, 16);
}

void md2_digest(const void *data, size_t len, unsigned char out[16])
{
    Md2 m;
    memset(&m, 0, sizeof m);
    md2_update(&m, data, len);
    md2_final(&m, out);
}

/* The key of the digest: fixed bytes, the same in every driver seen. */
static const unsigned char key[16] = {
    0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52, 0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f,
};

/* The fixed answers for versions ending in 0 and 1 (little-endian words). */
static const uint64_t fixed[2][2] = {
    { 0x3341181c03cb675cull, 0x8ed383aa1f4cd1e8ull },
    { 0x1841181c03cb675cull, 0x8ed383aa1f4cd1e8ull },
};

static void put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The message, byte by byte as the runtime lays it out (little-endian, no padding). */
static size_t message(const IntegrityInput *in, const IntegrityDevice *devs, int ndevs,
                      unsigned char *msg)
{
    unsigned char *p = msg;
    uint32_t w[4] = { in->driver_version, in->version, in->process, in->thread };
    for (int i = 0; i < 4; i++, p += 4)
        for (int b = 0; b < 4; b++) p[b] = (unsigned char)(w[i] >> (8 * b));
    put_le64(p, (uint64_t)(uintptr_t)in->cudart_table); p += 8;
    put_le64(p, (uint64_t)(uintptr_t)in->integrity_table); p += 8;
    put_le64(p, (uint64_t)(uintptr_t)in->check_fn); p += 8;
    put_le64(p, in->unix_seconds); p += 8;
    for (int d = 0; d < ndevs; d++) {
        memcpy(p, devs[d].uuid, 16);
        p += 16;
        int32_t v[3] = { devs[d].pci_domain, devs[d].pci_bus, devs[d].pci_device };
        for (int i = 0; i < 3; i++, p += 4)
            for (int b = 0; b < 4; b++) p[b] = (unsigned char)((uint32_t)v[i] >> (8 * b));
    }
    return (size_t)(p - msg);
}

#define MAX_DEVS 16

void integrity_answer(const IntegrityInput *in, const IntegrityDevice *devs, int ndevs,
                      unsigned char out[16])
{
    if (in->version % 10 < 2) {
        put_le64(out, fixed[in->version % 10][0]);
        put_le64(out + 8, fixed[in->version % 10][1]);
        return;
    }
    if (ndevs > MAX_DEVS) ndevs = MAX_DEVS;
    unsigned char msg[48 + MAX_DEVS * 28], pad[16], inner[16];
    size_t len = message(in, devs, ndevs, msg);
    Md2 m;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < 16; i++) pad[i] = key[i] ^ 0x36;
    md2_update(&m, pad, 16);
    md2_update(&m, msg, len);
    md2_final(&m, inner);
    memset(&m, 0, sizeof m);
    for (int i = 0; i < 16; i++) pad[i] = key[i] ^ 0x5c;
    md2_update(&m, pad, 16);
    md2_update(&m, inner, 16);
    md2_final(&m, out);
}
