/* tcore.h - the tensor cores' floating-point dot product, shared by mma, wmma and wgmma
 * (emu/exec_mma.c has the model and the measurements behind it). */
#ifndef PTXEMU_TCORE_H
#define PTXEMU_TCORE_H
#include <stdint.h>

enum { TC_F16, TC_BF16, TC_TF32, TC_F32 };

/* One element of D: the dot product of K elements of a and b (format TC_*; tf32 elements are
 * f32 bit patterns) added to c (f32 bits, or f16 bits when acc16), as the H100 computes it;
 * returns D's bits. */
uint32_t tc_dot(const uint32_t *a, const uint32_t *b, int K, int f, uint32_t c, int acc16);

#endif
