#!/usr/bin/env python3
"""gen_ops.py - writes tests/tier/ops_small.ptx and ops_large.ptx: the instructions the
compiled tier inlines from issue 22 on (shf in its four forms, prmt, mov's pack and unpack,
mov.b64, f64 add/sub/mul/fma/neg/abs/copysign, f32 abs/neg with .ftz), over edge values
(shift amounts 0 to 39 and past 2^31, prmt selectors with sign replication, f64 NaNs, zeros
of both signs, infinities, subnormals), for a whole warp, a warp of 8 threads, a divergent
half warp and guarded lanes. ops_large.ptx is the same kernel after 420 more instructions:
over JIT_O2_MAX (jit/compile.c), where one loop serves every mask. tests/run_tier_tests.sh
compares the compiled tier's bytes with the interpreter's. Run: python3 gen_ops.py"""
import random
import struct

random.seed(22)
N = 40                                   # threads: a whole warp and 8 lanes of a second

def f64bits(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]

# per thread: x, y, shift amount c, prmt selector s
a = []
for t in range(N):
    x = random.getrandbits(32) | (0x80808080 if t % 3 == 0 else 0)
    y = random.getrandbits(32)
    c = t if t < 36 else [0xffffffff, 0x80000020, 64, 33][t - 36]
    s = random.getrandbits(16) | (0x8888 if t % 4 == 0 else 0)
    a += [x, y, c, s]
edge = [0x7ff8000000000000, 0x7ff0000000000001, 0xfff4000000000000, 0x0000000000000000,
        0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0x0000000000000001,
        0x800fffffffffffff, 0x3ff8000000000000, f64bits(-2.5), f64bits(1e308), f64bits(-1e-308)]
d = []
for t in range(N):
    for j in range(3):
        d.append(edge[(t + 5 * j) % len(edge)] if (t + j) % 2 == 0 else f64bits(random.uniform(-1e3, 1e3)))

OPS32 = 16    # 32-bit results per part
OPS64 = 12    # 64-bit results per part

def part(p, r, dr):
    """The instructions of one part (r, dr: the first 32/64-bit result register)."""
    R = lambda i: f'%r{r + i}'
    D = lambda i: f'%dr{dr + i}'
    return f'''    shf.l.wrap.b32 {R(0)}, %x, %y, %c;
    shf.l.clamp.b32 {R(1)}, %x, %y, %c;
    shf.r.wrap.b32 {R(2)}, %x, %y, %c;
    shf.r.clamp.b32 {R(3)}, %x, %y, %c;
    prmt.b32 {R(4)}, %x, %y, %s;
    prmt.b32 {R(5)}, %x, %y, 0x8f3a;
    mov.u32 {R(6)}, 77;
    @%q shf.l.wrap.b32 {R(6)}, %x, %y, 13;
    mov.u32 {R(7)}, 78;
    @!%q prmt.b32 {R(7)}, %y, %x, %s;
    mov.b64 {{{R(8)}, {R(9)}}}, %da;
    mov.b32 {{%h0, %h1}}, %x;
    mov.b32 {R(10)}, {{%h1, %h0}};
    mov.b64 {{%h0, %h1, %h2, %h3}}, %db;
    mov.b64 {D(0)}, {{%h3, %h2, %h1, %h0}};
    mov.b64 {D(1)}, {{%y, %x}};
    mov.b32 %fa, %x;
    neg.f32 %fb, %fa;
    mov.b32 {R(11)}, %fb;
    abs.ftz.f32 %fb, %fa;
    mov.b32 {R(12)}, %fb;
    neg.ftz.f32 %fb, %fa;
    mov.b32 {R(13)}, %fb;
    abs.f32 %fb, %fa;
    mov.b32 {R(14)}, %fb;
    mov.u32 {R(15)}, 79;
    @%q mov.b64 {{{R(15)}, %h0}}, %dc;
    add.f64 {D(2)}, %da, %db;
    sub.f64 {D(3)}, %da, %dc;
    mul.f64 {D(4)}, %db, %dc;
    fma.rn.f64 {D(5)}, %da, %db, %dc;
    neg.f64 {D(6)}, %da;
    abs.f64 {D(7)}, %db;
    copysign.f64 {D(8)}, %da, %dc;
    mov.b64 {D(9)}, %dc;
    mov.f64 {D(10)}, 0d4000000000000000;
    @!%q neg.f64 {D(10)}, %dc;
    mov.f64 {D(11)}, 0d4010000000000000;
    @%q fma.rn.f64 {D(11)}, %dc, %da, %db;
'''

def kernel(pad):
    regs32 = ', '.join(f'%r{i}' for i in range(2 * OPS32))
    regs64 = ', '.join(f'%dr{i}' for i in range(2 * OPS64))
    body = f'''.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p_a, .param .u64 p_d, .param .u64 p_out)
{{
    .reg .b64 %pa, %pd, %po, %t, %da, %db, %dc, {regs64};
    .reg .b32 %tid, %x, %y, %c, %s, %m, %pad, {regs32};
    .reg .b16 %h0, %h1, %h2, %h3;
    .reg .f32 %fa, %fb;
    .reg .pred %p, %q;
    ld.param.u64 %pa, [p_a];
    ld.param.u64 %pd, [p_d];
    ld.param.u64 %po, [p_out];
    cvta.to.global.u64 %pa, %pa;
    cvta.to.global.u64 %pd, %pd;
    cvta.to.global.u64 %po, %po;
    mov.u32 %tid, %tid.x;
    mov.u32 %pad, %tid;
'''
    body += '    add.u32 %pad, %pad, 0x9e3779b9;\n    shf.l.wrap.b32 %pad, %pad, %pad, 7;\n' * (pad // 2)
    body += f'''    mul.wide.u32 %t, %tid, 16;
    add.u64 %t, %pa, %t;
    ld.global.v4.u32 {{%x, %y, %c, %s}}, [%t];
    mul.wide.u32 %t, %tid, 24;
    add.u64 %t, %pd, %t;
    ld.global.f64 %da, [%t];
    ld.global.f64 %db, [%t+8];
    ld.global.f64 %dc, [%t+16];
    and.b32 %m, %tid, 2;
    setp.ne.u32 %q, %m, 0;
    and.b32 %m, %tid, 1;
    setp.eq.u32 %p, %m, 1;
'''
    body += part(0, 0, 0)
    # the second part runs for the even lanes only: part of a warp inside a whole one
    for i in range(OPS32):
        body += f'    mov.u32 %r{OPS32 + i}, {1000 + i};\n'
    for i in range(OPS64):
        body += f'    mov.u64 %dr{OPS64 + i}, {2000 + i};\n'
    body += '    @%p bra SKIP;\n' + part(OPS32, OPS32, OPS64) + 'SKIP:\n'
    W = 2 * OPS32 + 2 * 2 * OPS64 + 2         # u32 words a thread stores (8-byte aligned rows)
    body += f'    mul.wide.u32 %t, %tid, {4 * W};\n    add.u64 %t, %po, %t;\n'
    for i in range(2 * OPS32):
        body += f'    st.global.u32 [%t+{4 * i}], %r{i};\n'
    for i in range(2 * OPS64):
        body += f'    st.global.u64 [%t+{4 * 2 * OPS32 + 8 * i}], %dr{i};\n'
    body += f'    st.global.u32 [%t+{4 * (W - 2)}], %pad;\n    ret;\n}}\n'
    return body, W

for name, pad in (('ops_small', 0), ('ops_large', 420)):
    body, W = kernel(pad)
    head = f'''// Compiled tier against the interpreter (tests/run_tier_tests.sh), written by gen_ops.py:
// the instructions issue 22 inlines, over edge values, for a whole warp, 8 lanes, a divergent
// half warp and guarded lanes{'; 420 instructions of padding put the kernel over JIT_O2_MAX' if pad else ''}.
// @kernel k
// @block {N}
// @arg buf a u32 {len(a)} = {' '.join(hex(v) for v in a)}
// @arg buf d u64 {len(d)} = {' '.join('0x%016x' % v for v in d)}
// @arg buf out u32 {N * W}
// @dump out

'''
    open(f'{name}.ptx', 'w').write(head + body)
