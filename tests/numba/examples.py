"""examples.py - what a Numba user writes, one example a feature, each checking its own result
against NumPy and printing "PASS: <feature>" (or "FAIL: <feature>: why"). Run under ptxemu by
tests/run_numba_tests.sh: ptxemu python3 tests/numba/examples.py. Exit status 1 on a failure.
"""
import math
import sys
import traceback

import numpy as np
from numba import cuda, float32, int32

results = []


def example(name):
    def wrap(fn):
        try:
            fn()
            results.append((name, None))
        except Exception as e:   # report and go on with the next example
            results.append((name, "%s: %s" % (type(e).__name__, e)))
            traceback.print_exc()
        return fn
    return wrap


@example("cuda.detect() finds the emulated H100")
def _():
    assert cuda.detect()
    dev = cuda.get_current_device()
    assert dev.compute_capability == (9, 0), dev.compute_capability
    name = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
    assert "H100" in name, name


@example("a kernel over a grid, arrays copied in and out")
def _():
    @cuda.jit
    def axpy(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, dtype=np.float32)
    out = np.zeros_like(x)
    axpy[(1000 + 127) // 128, 128](np.float32(2), x, y, out)
    assert np.array_equal(out, 2 * x + y)


@example("device functions")
def _():
    @cuda.jit(device=True)
    def clamp(v, lo, hi):
        return min(max(v, lo), hi)

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = clamp(a[i], 10, 20)
    a = np.arange(32, dtype=np.int32)
    d = cuda.to_device(a)
    k[1, 32](d)
    assert np.array_equal(d.copy_to_host(), np.clip(a, 10, 20))


@example("shared memory and syncthreads: a block's sum")
def _():
    @cuda.jit
    def block_sum(a, out):
        s = cuda.shared.array(128, dtype=float32)
        t = cuda.threadIdx.x
        s[t] = a[cuda.blockIdx.x * 128 + t]
        cuda.syncthreads()
        step = 64
        while step > 0:
            if t < step:
                s[t] += s[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[cuda.blockIdx.x] = s[0]
    a = np.random.RandomState(1).rand(4 * 128).astype(np.float32)
    out = np.zeros(4, dtype=np.float32)
    block_sum[4, 128](a, out)
    assert np.allclose(out, a.reshape(4, 128).sum(axis=1), rtol=1e-5)


@example("local arrays")
def _():
    @cuda.jit
    def reverse8(a):
        i = cuda.grid(1)
        loc = cuda.local.array(8, dtype=int32)
        for j in range(8):
            loc[j] = a[i, j]
        for j in range(8):
            a[i, j] = loc[7 - j]
    a = np.arange(64, dtype=np.int32).reshape(8, 8)
    d = cuda.to_device(a)
    reverse8[1, 8](d)
    assert np.array_equal(d.copy_to_host(), a[:, ::-1])


@example("atomics: a histogram")
def _():
    @cuda.jit
    def hist(data, bins):
        i = cuda.grid(1)
        if i < data.size:
            cuda.atomic.add(bins, data[i] % 16, 1)
    data = np.random.RandomState(2).randint(0, 1000, 5000).astype(np.int32)
    bins = np.zeros(16, dtype=np.int32)
    hist[(5000 + 255) // 256, 256](data, bins)
    assert np.array_equal(bins, np.bincount(data % 16, minlength=16))
    m = np.zeros(1, dtype=np.int32)

    @cuda.jit
    def amax(data, m):
        i = cuda.grid(1)
        if i < data.size:
            cuda.atomic.max(m, 0, data[i])
    amax[(5000 + 255) // 256, 256](data, m)
    assert m[0] == data.max()


@example("streams and events")
def _():
    @cuda.jit
    def scale(a, f):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= f
    s1, s2 = cuda.stream(), cuda.stream()
    a = np.arange(4096, dtype=np.float64)
    b = np.arange(4096, dtype=np.float64)
    da = cuda.to_device(a, stream=s1)
    db = cuda.to_device(b, stream=s2)
    start, end = cuda.event(), cuda.event()
    start.record(s1)
    scale[16, 256, s1](da, 3.0)
    scale[16, 256, s2](db, 5.0)
    end.record(s1)
    end.synchronize()
    assert start.elapsed_time(end) >= 0
    ra = da.copy_to_host(stream=s1)
    rb = db.copy_to_host(stream=s2)
    s1.synchronize()
    s2.synchronize()
    assert np.array_equal(ra, a * 3) and np.array_equal(rb, b * 5)


@example("pinned and mapped host memory")
def _():
    @cuda.jit
    def inc(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1
    p = cuda.pinned_array(256, dtype=np.int32)
    p[:] = np.arange(256)
    d = cuda.to_device(p)
    inc[1, 256](d)
    d.copy_to_host(p)
    assert np.array_equal(p, np.arange(256) + 1)
    m = cuda.mapped_array(256, dtype=np.int32)
    m[:] = np.arange(256)
    inc[1, 256](m)          # the kernel writes host memory through its device address
    cuda.synchronize()
    assert np.array_equal(m, np.arange(256) + 1)
    h = np.arange(512, dtype=np.float32)      # ordinary memory, page-locked for a while
    with cuda.pinned(h):
        d2 = cuda.to_device(h)
        assert np.array_equal(d2.copy_to_host(), h)


@example("managed memory")
def _():
    @cuda.jit
    def sq(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * a[i]
    a = cuda.managed_array(100, dtype=np.float32)
    a[:] = np.arange(100)
    sq[1, 128](a)
    cuda.synchronize()
    assert np.array_equal(np.asarray(a), np.arange(100, dtype=np.float32) ** 2)


@example("math functions (libdevice)")
def _():
    @cuda.jit
    def f(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = math.sin(x[i]) * math.exp(-x[i]) + math.sqrt(x[i]) + math.atan2(x[i], 2.0)
    x = np.linspace(0.1, 10, 1000)
    out = np.zeros_like(x)
    f[8, 128](x, out)
    assert np.allclose(out, np.sin(x) * np.exp(-x) + np.sqrt(x) + np.arctan2(x, 2.0), rtol=1e-12)


@example("warp intrinsics: shfl and ballot")
def _():
    @cuda.jit
    def warp_sum(a, out):
        v = a[cuda.threadIdx.x]
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(0xffffffff, v, off)
            off //= 2
        odd = cuda.ballot_sync(0xffffffff, cuda.threadIdx.x % 2 == 1)
        if cuda.threadIdx.x == 0:
            out[0] = v
            out[1] = odd
    a = np.arange(32, dtype=np.int32)
    out = np.zeros(2, dtype=np.int64)
    warp_sum[1, 32](a, out)
    assert out[0] == a.sum(), out
    assert out[1] & 0xffffffff == 0xaaaaaaaa, out


@example("cooperative groups: a grid-wide sync")
def _():
    @cuda.jit
    def two_phase(a, b):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        a[i] = i
        g.sync()                      # every block's writes are seen after this
        b[i] = a[(i + 37) % a.size]
    n = 4 * 64
    a = np.zeros(n, dtype=np.int32)
    b = np.zeros(n, dtype=np.int32)
    two_phase[4, 64](a, b)
    assert np.array_equal(b, (np.arange(n) + 37) % n)
    kernel = next(iter(two_phase.overloads.values()))
    assert kernel.max_cooperative_grid_blocks(64) >= 4


@example("cuda.reduce")
def _():
    a = np.arange(10000, dtype=np.float64)
    assert cuda.reduce(lambda x, y: x + y)(a) == a.sum()


for name, err in results:
    print(("PASS: %s" % name) if err is None else ("FAIL: %s: %s" % (name, err)))
sys.exit(1 if any(err for _, err in results) else 0)
