#!/usr/bin/env python3
"""gen_cvt.py - writes tests/tier/cvt_fi.ptx, cvt_if.ptx and cvt_ff.ptx: cvt between floats
and integers and between floats, which the compiled tier writes inline (exec_cvt.c's
CVT_LANES, emu/cvt_lane.h), in every rounding mode and type pair, with .ftz, .sat, .relu and
.satfinite where they apply, over edge values (NaNs with payloads, infinities, zeros of both
signs, subnormals, halves, the limits of every integer type and just past them), for a whole
warp, a warp of 8 threads and guarded lanes. tests/run_tier_tests.sh compares the compiled
tier's bytes with the interpreter's. Run: python3 gen_cvt.py"""
import random

from genlib import f32, f64

random.seed(2211)
N = 40                                   # threads: a whole warp and 8 lanes of a second

E32 = [0x7fc00000, 0x7f800001, 0xffc00123, 0x00000000, 0x80000000, 0x7f800000, 0xff800000,
       0x00000001, 0x807fffff, f32(0.5), f32(1.5), f32(2.5), f32(-0.5), f32(-1.5), f32(-2.5),
       f32(127.5), f32(255.5), f32(256.0), f32(-128.5), f32(-129.0), f32(65535.5), f32(-32768.5),
       0x4f000000, 0xcf000000, 0x4effffff, 0x4f800000, 0x5f000000, 0xdf000000, 0x5effffff,
       0x5f800000, f32(1e30), f32(-1e30), f32(0.99999994), f32(1.0000001), f32(-1e-3),
       f32(3.4e38), 0x00800000, 0x3f800001]
E16 = [0x7e00, 0x7c01, 0xfe55, 0x0000, 0x8000, 0x7c00, 0xfc00, 0x0001, 0x83ff, 0x3800, 0x3e00,
       0x4100, 0xb800, 0xbe00, 0xc100, 0x57f8, 0x5bfc, 0x5c00, 0xd804, 0xd808, 0x7bff, 0xfbff,
       0x3c01, 0x0400, 0x3555]
E64 = [0x7ff8000000000000, 0x7ff0000000000001, 0xfff4000000000123, 0, 0x8000000000000000,
       0x7ff0000000000000, 0xfff0000000000000, 1, 0x800fffffffffffff, f64(0.5), f64(2.5),
       f64(-2.5), f64(-0.5), f64(2147483647.5), f64(2147483648.0), f64(-2147483648.5),
       f64(-2147483649.0), f64(4294967295.5), f64(4294967296.0), f64(2.0 ** 63), f64(-2.0 ** 63),
       f64(2.0 ** 64), f64(-2.0 ** 64), f64(1e300), f64(-1e300), f64(9007199254740993.0),
       f64(3.4028235677973366e38), f64(3.4028236e38), f64(1.1754942e-38), f64(1e-320),
       f64(65504.0), f64(65520.0), f64(1.0000000596046448), f64(255.5), f64(-128.5)]
EI = [0, 1, 0xffffffffffffffff, 127, 128, 255, 256, 0xffffffffffffff80, 0xffffffffffffff7f,
      32767, 32768, 65535, 65536, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
      0x20000000000001, 0x7fffffffffffffff, 0x8000000000000000, 0x1000001, 0x1000003,
      0xffffffff7fffffff, 0x8000000000000001, 0xffffffffff000001, 0x7ffffff0, 0xfff0000000000800]


def pick(edge, t, j, rnd):
    return edge[(t * 7 + j * 3) % len(edge)] if (t + j) % 3 else rnd()


# per thread: f64 bits, f32 bits (low word) with f16/bf16 bits (high word), an integer
A = []
for t in range(N):
    d = pick(E64, t, 0, lambda: f64(random.uniform(-3e9, 3e9)))
    s = pick(E32, t, 1, lambda: f32(random.choice([random.uniform(-300, 300), random.uniform(-5e9, 5e9)])))
    h = pick(E16, t, 2, lambda: random.getrandbits(16))
    i = pick(EI, t, 3, lambda: random.getrandbits(64) >> random.randrange(64))
    A += [d, s | h << 32, i]

INT = ['u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64']
REG = {'u8': '%h', 's8': '%h', 'u16': '%h', 's16': '%h', 'u32': '%r', 's32': '%r', 'u64': '%rd', 's64': '%rd',
       'f16': '%h', 'bf16': '%h', 'f32': '%f', 'f64': '%fd', 'tf32': '%r'}
ST = {'%h': 'u16', '%r': 'u32', '%rd': 'u64', '%f': 'f32', '%fd': 'f64'}


def src_reg(ty):
    return {'f16': '%xh', 'bf16': '%xh', 'f32': '%xf', 'f64': '%xd', 'u8': '%ih', 's8': '%ih', 'u16': '%ih',
            's16': '%ih', 'u32': '%ir', 's32': '%ir', 'u64': '%id', 's64': '%id'}[ty]


def forms(kind):
    out = []
    if kind == 'fi':
        for s in ['f16', 'bf16', 'f32', 'f64']:
            for r in ['rni', 'rzi', 'rmi', 'rpi']:
                for d in INT:
                    out.append(f'cvt.{r}.{d}.{s}')
                    if s == 'f32':
                        out.append(f'cvt.{r}.ftz.{d}.{s}')
        out += ['cvt.rni.sat.s32.f32', 'cvt.rzi.sat.u8.f64', 'cvt.rmi.ftz.sat.u16.f32', 'cvt.rpi.sat.s8.f16']
    elif kind == 'if':
        for s in INT:
            for d in ['f16', 'bf16', 'f32', 'f64']:
                for r in ['rn', 'rz', 'rm', 'rp']:
                    out.append(f'cvt.{r}.{d}.{s}')
        out += ['cvt.rn.sat.f32.s32', 'cvt.rz.sat.f32.u64', 'cvt.rm.sat.f64.s8', 'cvt.rp.sat.f16.s64',
                'cvt.rn.ftz.f32.s16', 'cvt.rn.sat.bf16.u16']
    else:
        for r in ['rni', 'rzi', 'rmi', 'rpi']:
            out += [f'cvt.{r}.f32.f32', f'cvt.{r}.ftz.f32.f32', f'cvt.{r}.sat.f32.f32', f'cvt.{r}.f64.f64',
                    f'cvt.{r}.sat.f64.f64', f'cvt.{r}.f16.f16', f'cvt.{r}.bf16.bf16']
        for r in ['rn', 'rz', 'rm', 'rp']:
            out += [f'cvt.{r}.f16.f32', f'cvt.{r}.bf16.f32', f'cvt.{r}.f32.f64', f'cvt.{r}.ftz.f32.f64',
                    f'cvt.{r}.sat.f32.f64', f'cvt.{r}.f16.f64', f'cvt.{r}.bf16.f64', f'cvt.{r}.f16.bf16',
                    f'cvt.{r}.bf16.f16', f'cvt.{r}.sat.f16.f32']
        out += ['cvt.rn.relu.f16.f32', 'cvt.rn.satfinite.f16.f32', 'cvt.rn.relu.satfinite.bf16.f32',
                'cvt.rz.relu.bf16.f64', 'cvt.f32.f16', 'cvt.f32.bf16', 'cvt.f64.f32', 'cvt.ftz.f64.f32',
                'cvt.f64.f16', 'cvt.f32.f32', 'cvt.f64.f64', 'cvt.f16.f16', 'cvt.ftz.f32.f32',
                'cvt.sat.f32.f32', 'cvt.ftz.sat.f32.f32', 'cvt.rna.tf32.f32', 'cvt.rn.tf32.f32',
                'cvt.rz.tf32.f32', 'cvt.rna.satfinite.tf32.f32']
    return out


def kernel(kind):
    fs = forms(kind)
    body = '''.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p_a, .param .u64 p_out)
{
    .reg .b64 %pa, %po, %t, %o, %xd_bits, %id, %rd;
    .reg .f64 %xd, %fd;
    .reg .f32 %xf, %f;
    .reg .b32 %tid, %xf_bits, %xh_hi, %ir, %r, %m;
    .reg .b16 %xh, %ih, %h;
    .reg .pred %q;
    ld.param.u64 %pa, [p_a];
    ld.param.u64 %po, [p_out];
    cvta.to.global.u64 %pa, %pa;
    cvta.to.global.u64 %po, %po;
    mov.u32 %tid, %tid.x;
    mul.wide.u32 %t, %tid, 24;
    add.u64 %t, %pa, %t;
    ld.global.u64 %xd_bits, [%t];
    mov.b64 %xd, %xd_bits;
    ld.global.v2.u32 {%xf_bits, %xh_hi}, [%t+8];
    mov.b32 %xf, %xf_bits;
    cvt.u16.u32 %xh, %xh_hi;
    ld.global.u64 %id, [%t+16];
    cvt.u32.u64 %ir, %id;
    cvt.u16.u64 %ih, %id;
    and.b32 %m, %tid, 6;
    setp.ne.u32 %q, %m, 2;
'''
    body += f'    mul.wide.u32 %o, %tid, {8 * len(fs)};\n    add.u64 %o, %po, %o;\n'
    for j, f in enumerate(fs):
        parts = f.split('.')
        d, s = parts[-2], parts[-1]
        dr = REG[d]
        if j % 3 == 2:   # guarded: the lanes of %q only; the others keep the value before
            body += '    ' + {'%h': 'mov.b16 %h, 0x5a5a', '%r': 'mov.b32 %r, 1234567', '%rd': 'mov.b64 %rd, 1234567',
                             '%f': 'mov.f32 %f, 0f3FC00000', '%fd': 'mov.f64 %fd, 0d3FF8000000000000'}[dr] + ';\n'
            body += f'    @%q {f} {dr}, {src_reg(s)};\n'
        else:
            body += f'    {f} {dr}, {src_reg(s)};\n'
        body += f'    st.global.{ST[dr]} [%o+{8 * j}], {dr};\n'
    body += '    ret;\n}\n'
    return body, len(fs)


for kind in ('fi', 'if', 'ff'):
    body, n = kernel(kind)
    what = {'fi': 'float to integer: f16, bf16, f32 (with and without .ftz) and f64 to each integer type\n'
                  '// in .rni/.rzi/.rmi/.rpi, and .sat forms',
            'if': 'integer to float: each integer type to f16, bf16, f32 and f64 in .rn/.rz/.rm/.rp,\n'
                  '// and .sat and .ftz forms',
            'ff': 'float to float: integral rounding of f16/bf16/f32/f64, narrowing in .rn/.rz/.rm/.rp with\n'
                  '// .ftz, .sat, .relu and .satfinite, widening, copies and tf32'}[kind]
    head = f'''// Compiled tier against the interpreter (tests/run_tier_tests.sh), written by gen_cvt.py: cvt
// {what}, inline in compiled code; over edge values,
// for a whole warp, 8 lanes of a second and guarded lanes (every third conversion).
// @kernel k
// @block {N}
// @arg buf a u64 {len(A)} = {' '.join('0x%016x' % v for v in A)}
// @arg buf out u64 {N * n}
// @dump out

'''
    open(f'cvt_{kind}.ptx', 'w').write(head + body)
