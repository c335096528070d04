/* sem.h - the meaning of each operation on one lane, written once: the interpreter
 * (kernels.c) compiles it, and the C backend (emit_c.c) pastes the same text at the top of
 * every file it generates. The gccjit and LLVM backends have to say the same again through
 * their own APIs; the digest check of main.c holds all of them to it.
 *
 * Rows are 64-bit; a 32-bit result is stored zero-extended, an f32 as its bits, and a NaN
 * result as the canonical NaN 0x7fffffff (fp_canon32 of emu/fp.h). Generated C must be
 * compiled with -ffp-contract=off: GCC contracts a mul and an add of two statements into an
 * fma otherwise, which PTX's mul.rn + add.rn forbid.
 */
#ifndef JITCMP_SEM_H
#define JITCMP_SEM_H

#define SEM_DEFS                                                                             \
static inline float sem_f(uint64_t x)                                                      \
{ uint32_t u = (uint32_t)x; float f; __builtin_memcpy(&f, &u, 4); return f; }              \
static inline uint64_t sem_u(float f)                                                      \
{ uint32_t u; __builtin_memcpy(&u, &f, 4); return f != f ? 0x7fffffffu : u; }              \
static inline uint64_t sem_mov(uint64_t a) { return a; }                                   \
static inline uint64_t sem_add_s32(uint64_t a, uint64_t b) { return (uint32_t)(a + b); }   \
static inline uint64_t sem_add_s64(uint64_t a, uint64_t b) { return a + b; }               \
static inline uint64_t sem_mul_lo_s32(uint64_t a, uint64_t b)                              \
{ return (uint32_t)((uint32_t)a * (uint32_t)b); }                                          \
static inline uint64_t sem_mad_lo_s32(uint64_t a, uint64_t b, uint64_t c)                  \
{ return (uint32_t)((uint32_t)a * (uint32_t)b + (uint32_t)c); }                            \
static inline uint64_t sem_mul_wide_s32(uint64_t a, uint64_t b)                            \
{ return (uint64_t)((int64_t)(int32_t)a * (int64_t)(int32_t)b); }                          \
static inline uint64_t sem_shl_b32(uint64_t a, uint64_t b)                                 \
{ return (uint32_t)b > 31 ? 0 : (uint32_t)((uint32_t)a << (uint32_t)b); }                  \
static inline uint64_t sem_xor_b32(uint64_t a, uint64_t b) { return (uint32_t)(a ^ b); }   \
static inline uint64_t sem_and_b32(uint64_t a, uint64_t b) { return (uint32_t)(a & b); }   \
static inline uint64_t sem_min_s32(uint64_t a, uint64_t b)                                 \
{ return (int32_t)a < (int32_t)b ? (uint32_t)a : (uint32_t)b; }                            \
static inline uint32_t sem_lt_s32(uint64_t a, uint64_t b) { return (int32_t)a < (int32_t)b; } \
static inline uint32_t sem_ge_s32(uint64_t a, uint64_t b) { return (int32_t)a >= (int32_t)b; } \
static inline uint64_t sem_selp_b32(uint64_t a, uint64_t b, uint32_t p)                    \
{ return p ? (uint32_t)a : (uint32_t)b; }                                                  \
static inline uint64_t sem_add_f32(uint64_t a, uint64_t b) { return sem_u(sem_f(a) + sem_f(b)); } \
static inline uint64_t sem_mul_f32(uint64_t a, uint64_t b) { return sem_u(sem_f(a) * sem_f(b)); } \
static inline uint64_t sem_fma_f32(uint64_t a, uint64_t b, uint64_t c)                     \
{ return sem_u(__builtin_fmaf(sem_f(a), sem_f(b), sem_f(c))); }

#define SEM_STR_(...) #__VA_ARGS__
#define SEM_STR(...) SEM_STR_(__VA_ARGS__)

#endif
