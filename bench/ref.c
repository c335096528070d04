/* ref.c - the bench/ computations in plain C, timed the same way, as the native baseline
 * for bench/run.sh. Prints one "ref: name=... seconds=..." line each. Built with -fopenmp
 * (bench/run.sh does when the compiler can) each loop is split statically over
 * OMP_NUM_THREADS threads, the way a C programmer parallelises it; OMP_NUM_THREADS=1 (or a
 * build without OpenMP, which ignores the pragmas) is the single-threaded baseline. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define N (16 << 20)
#define DIM 512

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Each computation runs REPS times and the fastest run counts: one cold run is dominated
 * by page faults and frequency ramp-up rather than by the loop itself. */
#define REPS 3
#define TIME_MIN(best, stmt)                                                             \
    do {                                                                                 \
        best = 1e30;                                                                     \
        for (int rep_ = 0; rep_ < REPS; rep_++) {                                        \
            double t0_ = now();                                                          \
            stmt;                                                                        \
            double dt_ = now() - t0_;                                                    \
            if (dt_ < best)                                                              \
                best = dt_;                                                              \
        }                                                                                \
    } while (0)

/* Keeps results observable so the compiler cannot drop the loops. */
static volatile double sink;

static void report(const char *name, double seconds)
{
    printf("ref: name=%s seconds=%.6f\n", name, seconds);
}

static void vector_add(const float *a, const float *b, float *c)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        c[i] = a[i] + b[i];
}

static void saxpy(float alpha, const float *x, float *y)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        y[i] = alpha * x[i] + y[i];
}

/* i-k-j order: the cache-friendly form a C programmer would write; rows split over threads. */
static void matmul(const float *a, const float *b, float *c)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < DIM * DIM; i++)
        c[i] = 0.0f;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < DIM; i++)
        for (int k = 0; k < DIM; k++) {
            float aik = a[i * DIM + k];
            for (int j = 0; j < DIM; j++)
                c[i * DIM + j] += aik * b[k * DIM + j];
        }
}

static long long reduce(const int *v)
{
    long long s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int i = 0; i < N; i++)
        s += v[i];
    return s;
}

int main(void)
{
    float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float));
    float *c = malloc(N * sizeof(float));
    int *v = malloc(N * sizeof(int));
    if (!a || !b || !c || !v) {
        fprintf(stderr, "ref: out of memory\n");
        return 1;
    }
    /* Same inputs as the CUDA programs; every page is touched before timing, by the thread
     * that will use it (the same static split as the loops: first touch places the page). */
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 1000);
        b[i] = (float)(i % 777) * 0.5f;
        c[i] = 0.0f;
        v[i] = (int)(((unsigned)i * 2654435761u) >> 22) - 512;
    }
#ifdef _OPENMP
    printf("ref: threads=%d\n", omp_get_max_threads());
#else
    printf("ref: threads=1\n");
#endif
    double t;
    TIME_MIN(t, vector_add(a, b, c));
    report("vectorAdd", t);
    sink = c[N - 1];

#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 1000) * 0.25f;
        b[i] = (float)(i % 333);
    }
    TIME_MIN(t, saxpy(1.5f, a, b));
    report("saxpy", t);
    sink = b[N - 1];

    for (int i = 0; i < DIM * DIM; i++) {
        a[i] = (float)((i * 7) % 17) * 0.125f - 1.0f;
        b[i] = (float)((i * 5) % 13) * 0.25f - 1.5f;
    }
    TIME_MIN(t, matmul(a, b, c));
    report("matrixMul", t);
    sink = c[DIM * DIM - 1];

    /* wmmaGemm's product: small integers in float, i-k-j like matmul */
    for (int i = 0; i < DIM * DIM; i++) {
        a[i] = (float)((int)(((unsigned)i * 7) % 9) - 4);
        b[i] = (float)((int)(((unsigned)i * 5) % 7) - 3);
    }
    TIME_MIN(t, matmul(a, b, c));
    report("wmmaGemm", t);
    sink = c[DIM * DIM - 1];

    long long s = 0;
    TIME_MIN(t, s = reduce(v));
    report("reduction", t);
    sink = (double)s;

    free(a);
    free(b);
    free(c);
    free(v);
    return 0;
}
