/* tcore.h - the tensor cores' floating-point dot product, shared by mma, wmma and wgmma
 * (emu/exec_mma.c has the model and the measurements behind it). */
#ifndef PTXEMU_TCORE_H
#define PTXEMU_TCORE_H
#include <stddef.h>
#include <stdint.h>

enum { TC_F16, TC_BF16, TC_TF32, TC_F32 };

/* One element of D: the dot product of K elements of a and b (format TC_*; tf32 elements are
 * f32 bit patterns) added to c, as the H100 computes it; returns D's bits. acc16 says which
 * accumulators are f16: 0 none, 1 both c and D, TC_C16_D32 c only, TC_C32_D16 D only. */
enum { TC_C16_D32 = 2, TC_C32_D16 = 3 };
#define TC_ACC_C16(x) ((x) == 1 || (x) == TC_C16_D32)
#define TC_ACC_D16(x) ((x) == 1 || (x) == TC_C32_D16)
uint32_t tc_dot(const uint32_t *a, const uint32_t *b, int K, int f, uint32_t c, int acc16);

/* An element decoded once for many dot products (an mma reads each A row and B column for
 * several results): value = (-1)^s m 2^q, alignment exponent x, or special (Inf/NaN). */
typedef struct TcElem { uint32_t m, raw; int16_t q, x; uint8_t s, special; } TcElem;
void tc_decode(const uint32_t *raw, int n, int f, TcElem *out);
/* tc_dot on decoded elements: the same result, without decoding each element per product. */
uint32_t tc_dot_dec(const TcElem *a, const TcElem *b, int K, int f, uint32_t c, int acc16);

/* A row of A or a column of B decoded for tc_row_dot (wmma's f16, bf16 and tf32 path): per
 * element the value (-1)^s m 2^q and alignment exponent x as in TcElem, except that a zero's
 * q and x are TC_ROW_ZERO; special: some element is Inf or NaN. */
enum { TC_ROW_K = 16, TC_ROW_ZERO = -16384 };
typedef struct TcRow {
    uint32_t m[TC_ROW_K], s[TC_ROW_K], raw[TC_ROW_K];
    int32_t q[TC_ROW_K], x[TC_ROW_K];
    int special;
} TcRow;
void tc_row_decode(const uint32_t *raw, int n, int f, TcRow *out);
/* tc_dot_dec of elements k0 .. k0+K-1 of a and b: bit for bit the same result. */
uint32_t tc_row_dot(const TcRow *a, const TcRow *b, int k0, int K, int f, uint32_t c, int acc16);
/* wmma's f16/bf16 tile (K = 16): c[i][j] becomes tc_row_dot(dec + i, dec + 32 + j, 0, 16, f,
 * c[i][j], acc16) for i < M, j < N (rows of A in dec[0..31], columns of B in dec[32..63]). */
void tc_row_tile16(const TcRow *dec, int M, int N, int f, uint32_t c[32][32], int acc16);
/* The same without AVX2, which tc_row_tile16 runs on hosts without it (tests call it). */
void tc_row_tile16_plain(const TcRow *dec, int M, int N, int f, uint32_t c[32][32], int acc16);

/* wmma's f16 m16n16k16 tile with f32 accumulators (a[i][k], b[k][j] f16 bits, c[i][j] f32
 * bits): c becomes D, each element tc_dot's result, computed in vectors (AVX-512 or AVX2
 * where the host has them). Returns 0, or 1 with c untouched when an element of a, b or c is
 * Inf or NaN (the caller takes the reference path). _plain: without AVX (tests call it). */
int tc_tile16_f16(const uint16_t a[16][16], const uint16_t b[16][16], uint32_t c[16][16]);
int tc_tile16_f16_plain(const uint16_t a[16][16], const uint16_t b[16][16], uint32_t c[16][16]);
/* The same tile where no term is cut (exec_mma.c says when): returns 0 with c become D, or
 * 1 with c untouched where that is not known for every element. tc_tile16_f16 tries it
 * first. _plain: without AVX (tests call it). */
int tc_tile16_f16_exact(const uint16_t a[16][16], const uint16_t b[16][16], uint32_t c[16][16]);
int tc_tile16_f16_exact_plain(const uint16_t a[16][16], const uint16_t b[16][16], uint32_t c[16][16]);

/* fp8 wgmma's dot product (the fp8 tensor cores' 14 bits) on the values decoded as f16;
 * c is f32 bits, or f16 bits when acc16. */
uint32_t tc_dot_fp8(const TcElem *a, const TcElem *b, int K, uint32_t c, int acc16);

/* An fp8 value (e4m3, or e5m2 with e5) as f16 bits: exact, as F2FP.F16.E4M3 converts it. */
uint32_t tc_fp8_to_f16(uint32_t v, int e5);

/* Per-thread scratch for decoded tensor-core operands (exec_mma.c): buffer `which`
 * (TC_SCRATCH_*) of at least `size` bytes, kept for the thread's next calls and freed when
 * it exits (a program thread that launched kernels may exit long before the process). */
enum { TC_SCRATCH_WMMA, TC_SCRATCH_WGMMA, TC_SCRATCH_EXACT, TC_SCRATCH_COUNT };
void *tc_thread_scratch(int which, size_t size);

#endif
