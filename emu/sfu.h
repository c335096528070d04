/* sfu.h - the H100's approximate functions (MUFU), bit for bit (sfu.c, docs/sfu.md). */
#ifndef PTXEMU_SFU_H
#define PTXEMU_SFU_H

#include <stdint.h>

/* Each takes and returns f32 values; ftz: the .ftz form. Results are the H100's, NaN as the
 * canonical 0x7fffffff. The tables come in families, each loaded on its first use:
 * sfu_ready(family) loads it (once) and returns 0 when that failed, and the caller falls back
 * to its own approximation; sfu_ok(family) is the hot path's test. sfu_ex2 and sfu_half's
 * ex2 need SFU_EX2; sfu_rcp, sfu_div, sfu_div_full and sfu_rcp64 SFU_RCP; sfu_rsqrt,
 * sfu_rsqrt64_ftz and sfu_rsqrt64 SFU_RSQRT; sfu_sqrt SFU_SQRT; sfu_lg2 SFU_LG2. */
enum { SFU_EX2, SFU_RCP, SFU_RSQRT, SFU_SQRT, SFU_LG2, SFU_FAMILIES };
int sfu_ready(int family);
extern int sfu_loaded[SFU_FAMILIES];    /* 1 once the family's tables are in */
static inline int sfu_ok(int family)
{
    return __atomic_load_n(&sfu_loaded[family], __ATOMIC_ACQUIRE) || sfu_ready(family);
}
float sfu_ex2(float x, int ftz);
float sfu_rcp(float x, int ftz);
float sfu_rsqrt(float x, int ftz);
float sfu_sqrt(float x, int ftz);                /* sqrt.approx{.ftz}.f32 */
float sfu_lg2(float x, int ftz);
float sfu_div(float a, float b, int ftz);       /* div.approx{.ftz}.f32 */
float sfu_div_full(float a, float b, int ftz);  /* div.full{.ftz}.f32   */

/* The second file's tables (sin/cos, tanh, tanh on halves), each family loaded on its first
 * use; *_ok() is the hot path's test. */
int sfu_trig_ready(void);
int sfu_tanh_ready(void);
int sfu_halfs_ready(void);
extern int sfu_trig_loaded, sfu_tanh_loaded, sfu_halfs_loaded;
static inline int sfu_trig_ok(void) { return __atomic_load_n(&sfu_trig_loaded, __ATOMIC_ACQUIRE) || sfu_trig_ready(); }
static inline int sfu_tanh_ok(void) { return __atomic_load_n(&sfu_tanh_loaded, __ATOMIC_ACQUIRE) || sfu_tanh_ready(); }
static inline int sfu_halfs_ok(void) { return __atomic_load_n(&sfu_halfs_loaded, __ATOMIC_ACQUIRE) || sfu_halfs_ready(); }
float sfu_sin(float x, int ftz);                /* sin.approx{.ftz}.f32 */
float sfu_cos(float x, int ftz);                /* cos.approx{.ftz}.f32 */
float sfu_tanh(float x);                        /* tanh.approx.f32      */
/* ex2.approx.f16 / ex2.approx.ftz.bf16 (op_tanh 0) and tanh.approx.f16 / .bf16 (op_tanh 1)
 * on one 16-bit value (the x2 forms are two of these) */
uint16_t sfu_half(int op_tanh, uint16_t h, int bf);
/* rcp.approx.ftz.f64, rsqrt.approx.ftz.f64 (bits in, bits out) and rsqrt.approx.f64 */
uint64_t sfu_rcp64(uint64_t x);
uint64_t sfu_rsqrt64_ftz(uint64_t x);
double sfu_rsqrt64(double x);

#endif
