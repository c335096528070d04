#!/usr/bin/env python3
"""gen_minmax.py - writes tests/tier/minmax.ptx: min and max of f32 (plain, .ftz, .NaN,
.xorsign.abs and their combinations) and f64, which the compiled tier writes inline (fp.h's
fp_minmax32 and fp_minmax64, the handlers' lanes too), over operand pairs of edge values (NaNs
with payloads on either side or both, zeros of both signs against each other, infinities,
subnormals, equal magnitudes of opposite sign) and random ones, for a whole warp, 8 lanes of a
second and guarded lanes. tests/run_tier_tests.sh compares the compiled tier's bytes with the
interpreter's. Run: python3 gen_minmax.py"""
import random

from genlib import f32, f64

random.seed(2226)
N = 40                                   # threads: a whole warp and 8 lanes of a second

E32 = [0x7fc00000, 0x7f800001, 0xffc00123, 0x00000000, 0x80000000, 0x7f800000, 0xff800000,
       0x00000001, 0x807fffff, 0x80000001, 0x00800000, 0x80800000, f32(1.5), f32(-1.5),
       f32(-2.5), f32(3.0), f32(-3.0), f32(3.4e38), f32(-3.4e38), f32(1e-40), f32(-1e-40)]
E64 = [0x7ff8000000000000, 0x7ff0000000000001, 0xfff4000000000123, 0, 0x8000000000000000,
       0x7ff0000000000000, 0xfff0000000000000, 1, 0x800fffffffffffff, f64(2.5), f64(-2.5),
       f64(1e300), f64(-1e300), f64(1e-310)]


def pair(edge, t, rnd):
    k = t % 4
    if k == 0:                           # two edge values
        return edge[t % len(edge)], edge[(t * 5 + 3) % len(edge)]
    if k == 1:                           # an edge value against a random one, either side
        a, b = edge[(t * 3) % len(edge)], rnd()
        return (a, b) if t % 8 == 1 else (b, a)
    if k == 2:                           # the same magnitude, the signs as they come
        a = rnd()
        return a, a ^ (random.getrandbits(1) << (31 if edge is E32 else 63))
    return rnd(), rnd()


def r32():
    return f32(random.choice([random.uniform(-100, 100), random.uniform(-1e-37, 1e-37)]))


def r64():
    return f64(random.uniform(-1e6, 1e6))


A = []
for t in range(N):
    a32, b32 = pair(E32, t, r32)
    a64, b64 = pair(E64, t, r64)
    A += [a32 | b32 << 32, a64, b64]

F32 = ['', '.ftz', '.NaN', '.ftz.NaN', '.xorsign.abs', '.ftz.xorsign.abs', '.NaN.xorsign.abs',
       '.ftz.NaN.xorsign.abs']
forms = [(f'{op}{m}.f32', '%f') for op in ('min', 'max') for m in F32] + [('min.f64', '%fd'), ('max.f64', '%fd')]
body = '''.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p_a, .param .u64 p_out)
{
    .reg .b64 %pa, %po, %t, %o, %ad_bits, %bd_bits;
    .reg .f64 %ad, %bd, %fd;
    .reg .f32 %af, %bf, %f;
    .reg .b32 %tid, %af_bits, %bf_bits, %m;
    .reg .pred %q;
    ld.param.u64 %pa, [p_a];
    ld.param.u64 %po, [p_out];
    cvta.to.global.u64 %pa, %pa;
    cvta.to.global.u64 %po, %po;
    mov.u32 %tid, %tid.x;
    mul.wide.u32 %t, %tid, 24;
    add.u64 %t, %pa, %t;
    ld.global.v2.u32 {%af_bits, %bf_bits}, [%t];
    mov.b32 %af, %af_bits;
    mov.b32 %bf, %bf_bits;
    ld.global.u64 %ad_bits, [%t+8];
    ld.global.u64 %bd_bits, [%t+16];
    mov.b64 %ad, %ad_bits;
    mov.b64 %bd, %bd_bits;
    and.b32 %m, %tid, 6;
    setp.ne.u32 %q, %m, 2;
'''
body += f'    mul.wide.u32 %o, %tid, {8 * len(forms)};\n    add.u64 %o, %po, %o;\n'
for j, (f, r) in enumerate(forms):
    a, b = ('%af', '%bf') if r == '%f' else ('%ad', '%bd')
    if j % 2:                            # the operands the other way round
        a, b = b, a
    if j % 3 == 2:                       # guarded: the lanes of %q only; the others keep the value before
        body += '    mov.f32 %f, 0f3FC00000;\n' if r == '%f' else '    mov.f64 %fd, 0d3FF8000000000000;\n'
        body += f'    @%q {f} {r}, {a}, {b};\n'
    else:
        body += f'    {f} {r}, {a}, {b};\n'
    body += f'    st.global.{"f32" if r == "%f" else "f64"} [%o+{8 * j}], {r};\n'
body += '    ret;\n}\n'
head = f'''// Compiled tier against the interpreter (tests/run_tier_tests.sh), written by gen_minmax.py:
// min and max of f32 with .ftz, .NaN and .xorsign.abs in every combination, and of f64, inline
// in compiled code; over edge values and random pairs, for a whole warp, 8 lanes of a second
// and guarded lanes (every third instruction).
// @kernel k
// @block {N}
// @arg buf a u64 {len(A)} = {' '.join('0x%016x' % v for v in A)}
// @arg buf out u64 {N * len(forms)}
// @dump out

'''
open('minmax.ptx', 'w').write(head + body)
