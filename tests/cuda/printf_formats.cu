// printf_formats.cu - device-side printf conversions, flags, widths, precisions and length
// modifiers, special values, printf's return value, several printfs per thread and printf
// in divergent branches. Each launch is one warp (lines of one warp come out in lane
// order on the GPU), and every launch is synchronized before the next one.
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>

__device__ const char dev_word[] = "device-string";

// Integer conversions, one line per lane, values depending on the lane.
__global__ void p_ints(int base)
{
    int l = threadIdx.x;
    int v = base + l * 37 - 500;
    printf("%2d|%d|%i|%u|%x|%X|%o|%5d|%-5d|%05d|%+d|% d|%#x|%#o|\n", l, v, -v, (unsigned)v,
           (unsigned)v, (unsigned)v, (unsigned)(l * 9), v, l, l, l - 16, l - 16, l * 255, l);
}

// Floating-point conversions per lane.
__global__ void p_floats(double scale)
{
    int l = threadIdx.x;
    double d = (l - 16) * scale;
    float f = (float)(l * 0.1);
    printf("%2d|%f|%e|%E|%g|%G|%.2f|%10.3f|%-10.1e|%+.0f|%#.0f|%.10g|%a|\n", l, d, d, d, d, d,
           f, d, f, d, d, f, d);
}

// Fixed corner cases, printed by lane 0 only.
__global__ void p_corners(float fzero, double dzero, const char *empty)
{
    if (threadIdx.x != 0) return;
    float finf = 1.0f / fzero, fnan = fzero / fzero;
    double dinf = 1.0 / dzero, dnan = dzero / dzero;
    printf("int: %d %d %u %x %ld %lld %llu %llx\n", INT_MIN, INT_MAX, UINT_MAX, INT_MIN,
           LONG_MIN, LLONG_MIN, ULLONG_MAX, LLONG_MIN);
    // No hh conversions: the H100's device printf misreads them and the arguments after them
    // (it printed bytes of the format string; docs/testing.md).
    printf("short: %hd %hu %hx\n", (short)-12345, (unsigned short)65535, (short)-1);
    printf("char: %c%c%c|%3c|%-3c|%c\n", 'x', 'y', 'z', 'a', 'b', 0x41 + 25);
    printf("long: %ld %lu %lx %li %lo\n", -1234567890123L, 18446744073709551615UL,
           0xfedcba9876543210UL, 42L, 8UL);
    printf("zero: %f %f %e %e %g %g\n", dzero, -dzero, dzero, -dzero, dzero, -dzero);
    printf("fzero: %f %f %a %a\n", fzero, -fzero, (double)fzero, -(double)fzero);
    printf("inf: %f %f %e %g %E %G %a %10f|%-10f|\n", dinf, -dinf, dinf, -dinf, dinf, -dinf, dinf,
           dinf, -dinf);
    printf("finf: %f %f %e %g\n", finf, -finf, finf, -finf);
    printf("nan: %f %e %g %E %G %a %8f|\n", dnan, dnan, dnan, dnan, dnan, dnan, dnan);
    printf("fnan: %f %f %g\n", fnan, -fnan, fnan);
    printf("big: %e %g %f %.3e %G\n", DBL_MAX, 1e300, 1e22, 6.02214076e23, 1.5e-300);
    printf("tiny: %e %g %.3e %a %e %g\n", DBL_MIN, 4.9406564584124654e-324, 1e-310,
           DBL_MIN, (double)FLT_MIN, (double)FLT_TRUE_MIN);
    printf("round: %.0f %.0f %.0f %.0f %.1f %.2f %.3f %.0e\n", 0.5, 1.5, 2.5, -0.5, 0.05, 0.125,
           1.0005, 25.0);
    printf("prec: %.0d|%.3d|%.5x|%8.3d|%-8.3d|%.0s|%.3s|%.10s|%5.2s|\n", 0, 7, 0x1f, -7, 7, "abc",
           "abcdef", "ab", "xyz");
    printf("str: [%s] [%10s] [%-10s] [%s] [%s]\n", dev_word, "right", "left", empty, "");
    printf("flags: %-+5d|%+05d|% 05d|%-05d|%#5x|%#05x|%#8.3e|%#g|%+e|% f|\n", 3, 3, 3, 3, 0x1a,
           0x1a, 1.0, 2.0, 1.0, 1.0);
    printf("star: %*d|%-*d|%.*f|%*.*f|\n", 6, 42, 6, 42, 2, 3.14159, 9, 3, -2.71828);
    printf("percent: 100%% %%d %c%%\n", 'A');
    printf("no arguments at all\n");
    printf("");
    printf("pointer null: %p\n", (void *)0);
}

// printf's return value (the number of arguments on the GPU), printed by a second printf.
__global__ void p_return(void)
{
    if (threadIdx.x != 0) return;
    int r0 = printf("ret test A\n");
    int r1 = printf("ret test B %d\n", 1);
    int r2 = printf("ret test C %d %s %f\n", 2, "two", 2.0);
    int r3 = printf("");
    int r4 = printf("%d%d%d%d%d%d%d%d\n", 1, 2, 3, 4, 5, 6, 7, 8);
    printf("returns: %d %d %d %d %d\n", r0, r1, r2, r3, r4);
}

// Several printfs per thread, interleaved across the warp.
__global__ void p_multi(void)
{
    int l = threadIdx.x;
    printf("first %d\n", l);
    printf("second %d\n", l * 2);
    if (l < 4) printf("third %d\n", l * 3);
}

// Divergent branches: even lanes print, then odd lanes; and a nested branch.
__global__ void p_divergent(int k)
{
    int l = threadIdx.x;
    if (l % 2 == 0) {
        printf("even %d\n", l);
    } else {
        printf("odd %d\n", l);
    }
    if (l % 3 == k) {
        if (l > 15) printf("gt15 mod3 %d\n", l);
        else printf("le15 mod3 %d\n", l);
    }
    for (int i = 0; i < l % 4; i++)
        if (l >= 28) printf("loop lane %d iter %d\n", l, i);
}

// A block of 8x4 threads is still one warp.
__global__ void p_2d(void)
{
    printf("(%d,%d) %c\n", (int)threadIdx.x, (int)threadIdx.y, 'a' + threadIdx.y * 8 + threadIdx.x);
}

static void done(const char *what)
{
    cudaError_t e1 = cudaGetLastError();
    cudaError_t e2 = cudaDeviceSynchronize();
    fflush(stdout);
    printf("-- %s: %s %s\n", what, cudaGetErrorName(e1), cudaGetErrorName(e2));
    fflush(stdout);
}

int main(void)
{
    char *empty;
    cudaMalloc(&empty, 1);
    cudaMemset(empty, 0, 1);
    printf("printf formats\n");
    fflush(stdout);
    p_ints<<<1, 32>>>(7);
    done("ints");
    p_floats<<<1, 32>>>(1234.5678);
    done("floats");
    p_floats<<<1, 32>>>(-3.0e-7);
    done("small floats");
    p_corners<<<1, 32>>>(0.0f, 0.0, empty);
    done("corners");
    p_return<<<1, 32>>>();
    done("return");
    p_multi<<<1, 32>>>();
    done("multi");
    p_divergent<<<1, 32>>>(1);
    done("divergent");
    p_2d<<<1, dim3(8, 4)>>>();
    done("2d");
    cudaFree(empty);
    return 0;
}
