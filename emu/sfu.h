/* sfu.h - the H100's approximate functions (MUFU), bit for bit (sfu.c, docs/sfu.md). */
#ifndef PTXEMU_SFU_H
#define PTXEMU_SFU_H

/* Each takes and returns f32 values; ftz: the .ftz form. Results are the H100's, NaN as the
 * canonical 0x7fffffff. sfu_ready() loads the tables (once, on first use); when that failed
 * it returns 0 and the caller falls back to its own approximation. */
int sfu_ready(void);
extern int sfu_loaded;                  /* 1 once the tables are in: the hot path's test */
static inline int sfu_ok(void) { return __atomic_load_n(&sfu_loaded, __ATOMIC_ACQUIRE) || sfu_ready(); }
float sfu_ex2(float x, int ftz);
float sfu_rcp(float x, int ftz);
float sfu_rsqrt(float x, int ftz);
float sfu_sqrt(float x, int ftz);                /* sqrt.approx{.ftz}.f32 */
float sfu_lg2(float x, int ftz);
float sfu_div(float a, float b, int ftz);       /* div.approx{.ftz}.f32 */
float sfu_div_full(float a, float b, int ftz);  /* div.full{.ftz}.f32   */

#endif
