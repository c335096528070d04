#!/usr/bin/env python3
"""gen_fma_contract.py - writes tests/ptx/fma_contract_f32.ptx and fma_contract_f64.ptx, the
probes of when the code generator fuses a `mul` and an `add`/`sub` without rounding modifiers
into one fma (PTX ISA, add.f32: "mul/add sequences with no rounding modifiers may be optimized
to use fused-multiply-add instructions on the target device"). Their expected outputs are
recorded on the H100 (tests/gpu/record_ptx.sh); docs/fma-contraction.md states the rule.

Inputs make every fusion visible: a*b is inexact and c = -round(a*b), so a fused sum is the
rounding error of the product (nonzero) and an unfused one is 0. p*q is a second inexact
product with a different error, so a sum of two products shows which one was fused.
Usage: python3 tests/gpu/gen_fma_contract.py   (from the repository root)
"""
import struct

def f32bits(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]

def f64bits(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]

TYPES = {
    'f32': dict(bits='b32', size=4, dump='u32', eps=2.0**-12, peps=2.0**-13,
                hexbits=f32bits, imm=lambda x: '0f%08X' % f32bits(x), rnd=lambda x: struct.unpack('<f', struct.pack('<f', x))[0]),
    'f64': dict(bits='b64', size=8, dump='u64', eps=2.0**-27, peps=2.0**-28,
                hexbits=f64bits, imm=lambda x: '0d%016X' % f64bits(x), rnd=lambda x: x),
}

# (number, comment, body) - body is PTX using %a %b %c %r %p %q %two (inputs), %d %d1 %d2 %e %f
# %n (scratch values) and stores its result with ST(k, reg).
CASES = [
    ('one use: mul d,a,b; add e,d,c', '''
    mul.T %d, %a, %b;
    add.T %e, %d, %c;
    ST %e'''),
    ('operand order: add e,c,d', '''
    mul.T %d, %a, %b;
    add.T %e, %c, %d;
    ST %e'''),
    ('sub e,d,r', '''
    mul.T %d, %a, %b;
    sub.T %e, %d, %r;
    ST %e'''),
    ('sub e,r,d (product subtracted)', '''
    mul.T %d, %a, %b;
    sub.T %e, %r, %d;
    ST %e'''),
    ('several uses: the first add', '''
    mul.T %d, %a, %b;
    add.T %e, %d, %c;
    add.T %f, %c, %d;
    ST %e
    ST %f
    ST %d'''),
    ('across basic blocks (a branch taken at run time)', '''
    mul.T %d, %a, %b;
    setp.eq.T %pr, %a, %b;
    @%pr bra L_CASE_far;
    add.T %d, %d, %two;
L_CASE_far:
    add.T %e, %d, %c;
    ST %e'''),
    ('across basic blocks (the product dominates the add)', '''
    mul.T %d, %a, %b;
    setp.ne.T %pr, %a, %b;
    @%pr bra L_CASE_skip;
    mov.T %f, %two;
L_CASE_skip:
    add.T %e, %d, %c;
    ST %e'''),
    ('a product hoisted out of a loop, added inside it', '''
    mul.T %d, %a, %b;
    mov.u32 %i, 0;
L_CASE_loop:
    add.T %e, %d, %c;
    add.u32 %i, %i, 1;
    setp.lt.u32 %pr, %i, 3;
    @%pr bra L_CASE_loop;
    ST %e'''),
    ('mul.rn, add', '''
    mul.rn.T %d, %a, %b;
    add.T %e, %d, %c;
    ST %e'''),
    ('mul, add.rn', '''
    mul.T %d, %a, %b;
    add.rn.T %e, %d, %c;
    ST %e'''),
    ('two products: add e,(a*b),(p*q)', '''
    mul.T %d1, %a, %b;
    mul.T %d2, %p, %q;
    add.T %e, %d1, %d2;
    ST %e'''),
    ('two products: add e,(p*q),(a*b)', '''
    mul.T %d1, %a, %b;
    mul.T %d2, %p, %q;
    add.T %e, %d2, %d1;
    ST %e'''),
    ('two products defined in the other order: add e,(a*b),(p*q)', '''
    mul.T %d2, %p, %q;
    mul.T %d1, %a, %b;
    add.T %e, %d1, %d2;
    ST %e'''),
    ('two products: sub e,(a*b),(p*p)', '''
    mul.T %d1, %a, %b;
    mul.T %d2, %p, %p;
    sub.T %e, %d1, %d2;
    ST %e'''),
    ('neg of the product: add e,(-d),r', '''
    mul.T %d, %a, %b;
    neg.T %n, %d;
    add.T %e, %n, %r;
    ST %e'''),
    ('the product through a mov', '''
    mul.T %d, %a, %b;
    mov.T %n, %d;
    add.T %e, %n, %c;
    ST %e'''),
    ('a factor overwritten between mul and add', '''
    mul.T %d, %a, %b;
    mov.T %a, %two;
    add.T %e, %d, %c;
    ST %e
    mov.T %a, %b;'''),
    ('an immediate factor', '''
    mul.T %d, %a, IMM_B;
    add.T %e, %d, %c;
    ST %e'''),
    ('bar.sync between mul and add', '''
    mul.T %d, %a, %b;
    bar.sync 0;
    add.T %e, %d, %c;
    ST %e'''),
    ('a store of the product between mul and add', '''
    mul.T %d, %a, %b;
    ST %d
    add.T %e, %d, %c;
    ST %e'''),
    ('a product defined by mul in both arms of an if', '''
    setp.ne.T %pr, %a, %b;
    @%pr bra L_CASE_else;
    mul.T %d, %a, %b;
    bra.uni L_CASE_join;
L_CASE_else:
    mul.T %d, %b, %a;
L_CASE_join:
    add.T %e, %d, %c;
    ST %e'''),
    ('a predicated mul (predicate true), no earlier definition', '''
    setp.eq.T %pr, %a, %b;
    @%pr mul.T %dp, %a, %b;
    add.T %e, %dp, %c;
    ST %e'''),
    ('a predicated mul (predicate true) over an earlier value', '''
    mov.T %d, %two;
    setp.eq.T %pr, %a, %b;
    @%pr mul.T %d, %a, %b;
    add.T %e, %d, %c;
    ST %e'''),
    ('a predicated add (predicate true)', '''
    mul.T %d, %a, %b;
    mov.T %e, %two;
    setp.eq.T %pr, %a, %b;
    @%pr add.T %e, %d, %c;
    ST %e'''),
    ('chain: e = d + c, f = e + d', '''
    mul.T %d, %a, %b;
    add.T %e, %d, %c;
    add.T %f, %e, %d;
    ST %e
    ST %f'''),
    ('the product redefined in a loop that adds it (loop-carried, run-time trip count)', '''
    mov.T %d, %two;
    mov.T %f, 0ZERO;
L_CASE_loop:
    add.T %e, %d, %c;
    mul.T %d, %a, %b;
    add.rn.T %f, %f, 0ONE;
    setp.lt.T %pr, %f, %two;
    @%pr bra L_CASE_loop;
    ST %e'''),
    ('many instructions between mul and add', '''
    mul.T %d, %a, %b;
''' + ''.join('    add.u32 %i, %i, ' + str(k) + ';\n' for k in range(40)) + '''    add.T %e, %d, %c;
    ST %e'''),
    ('the add in a block reached only through a call', '''
    mul.T %d, %a, %b;
    call.uni touch, ();
    add.T %e, %d, %c;
    ST %e'''),
    ('two adds of the product in two other blocks', '''
    mul.T %d, %a, %b;
    setp.ne.T %pr, %a, %b;
    @%pr bra L_CASE_1;
    mov.T %n, %two;
L_CASE_1:
    add.T %e, %d, %c;
    @%pr bra L_CASE_2;
    mov.T %n, %two;
L_CASE_2:
    add.T %f, %d, %c;
    ST %e
    ST %f'''),
    ('two adds of the product in one other block', '''
    mul.T %d, %a, %b;
    setp.ne.T %pr, %a, %b;
    @%pr bra L_CASE_1;
    mov.T %n, %two;
L_CASE_1:
    add.T %e, %d, %c;
    add.T %f, %c, %d;
    ST %e
    ST %f'''),
    ('three adds in the block of the mul', '''
    mul.T %d, %a, %b;
    add.T %e, %d, %c;
    add.T %f, %c, %d;
    add.T %n, %d, %c;
    ST %e
    ST %f
    ST %n'''),
    ('four adds in the block of the mul', '''
    mul.T %d, %a, %b;
    add.T %e, %d, %c;
    add.T %f, %c, %d;
    add.T %n, %d, %c;
    add.T %d1, %d, %c;
    ST %e
    ST %f
    ST %n
    ST %d1'''),
    ('five adds in the block of the mul', '''
    mul.T %d, %a, %b;
    add.T %e, %d, %c;
    add.T %f, %c, %d;
    add.T %n, %d, %c;
    add.T %d1, %d, %c;
    add.T %d2, %d, %c;
    ST %e
    ST %f
    ST %n
    ST %d1
    ST %d2'''),
    ('three adds in three other blocks', '''
    mul.T %d, %a, %b;
    setp.ne.T %pr, %a, %b;
    @%pr bra L_CASE_1;
    mov.T %n, %two;
L_CASE_1:
    add.T %e, %d, %c;
    @%pr bra L_CASE_2;
    mov.T %n, %two;
L_CASE_2:
    add.T %f, %d, %c;
    @%pr bra L_CASE_3;
    mov.T %n, %two;
L_CASE_3:
    add.T %n, %d, %c;
    ST %e
    ST %f
    ST %n'''),
    ('a sub and an add of the product', '''
    mul.T %d, %a, %b;
    sub.T %e, %d, %r;
    add.T %f, %d, %c;
    ST %e
    ST %f'''),
    ('the product added and multiplied', '''
    mul.T %d, %a, %b;
    add.T %e, %d, %c;
    mul.T %f, %d, %two;
    ST %e
    ST %f'''),
    ('different products in the two arms of an if', '''
    setp.ne.T %pr, %a, %b;
    @%pr bra L_CASE_else;
    mul.T %d, %a, %b;
    bra.uni L_CASE_join;
L_CASE_else:
    mul.T %d, %p, %q;
L_CASE_join:
    add.T %e, %d, %c;
    ST %e'''),
    ('a product in one arm of an if, another value in the other (the mul arm runs)', '''
    setp.ne.T %pr, %a, %b;
    @%pr bra L_CASE_else;
    mul.T %d, %a, %b;
    bra.uni L_CASE_join;
L_CASE_else:
    mov.T %d, %two;
L_CASE_join:
    add.T %e, %d, %c;
    ST %e'''),
]

F32_ONLY = [
    ('mul.ftz, add', '''
    mul.ftz.T %d, %a, %b;
    add.T %e, %d, %c;
    ST %e'''),
    ('mul, add.ftz', '''
    mul.T %d, %a, %b;
    add.ftz.T %e, %d, %c;
    ST %e'''),
    ('mul.ftz, add.ftz', '''
    mul.ftz.T %d, %a, %b;
    add.ftz.T %e, %d, %c;
    ST %e'''),
    ('mul.sat, add', '''
    mul.sat.T %d, %a, %b;
    add.T %e, %d, %c;
    ST %e'''),
    ('mul, add.sat', '''
    mul.T %d, %a, %b;
    add.sat.T %e, %d, %c;
    ST %e'''),
    ('mul.ftz, sub.ftz', '''
    mul.ftz.T %d, %a, %b;
    sub.ftz.T %e, %d, %r;
    ST %e'''),
]


def gen(t):
    T = TYPES[t]
    one = 1.0
    a = one + T['eps']
    p = one + T['peps']
    r = T['rnd'](a * a)
    inputs = [a, a, -r, r, p, -p, 2.0]
    cases = CASES + (F32_ONLY if t == 'f32' else [])
    nout = 0
    body = []
    for k, (comment, text) in enumerate(cases):
        text = text.replace('CASE', 'c%d' % k).replace('.T ', '.%s ' % t).replace('IMM_B', T['imm'](a)).replace('0ZERO', T['imm'](0.0)).replace('0ONE', T['imm'](1.0))
        lines = []
        for ln in text.strip('\n').split('\n'):
            if ln.strip().startswith('ST '):
                reg = ln.strip()[3:]
                lines.append('    st.global.%s [%%po+%d], %s;   // out[%d]' % (T['bits'], nout * T['size'], reg, nout))
                nout += 1
            else:
                lines.append(ln)
        body.append('    // case %d: %s\n%s' % (k, comment, '\n'.join(lines)))
    hexs = ' '.join('0x%0*x' % (T['size'] * 2, T['hexbits'](x)) for x in inputs)
    head = '''// fma_contract_%(t)s.ptx - generated by tests/gpu/gen_fma_contract.py; do not edit.
// When does the code generator fuse mul.%(t)s and add/sub.%(t)s (no rounding modifiers) into an
// fma? Each case stores its results; inputs: a = b = %(a)r, c = -round(a*b), r = round(a*b),
// p = %(p)r, q = -p, two = 2. A fused a*b+c is the product's rounding error, an unfused one 0.
// docs/fma-contraction.md has the rule these recordings show.
// @kernel k
// @block 1
// @arg buf out %(dump)s %(nout)d
// @arg buf in %(dump)s 7 = %(hexs)s
// @dump out

.version 8.0
.target sm_90
.address_size 64

.func touch()
{
    ret;
}

.visible .entry k(.param .u64 p_out, .param .u64 p_in)
{
    .reg .%(t)s %%a, %%b, %%c, %%r, %%p, %%q, %%two, %%d, %%d1, %%d2, %%dp, %%e, %%f, %%n;
    .reg .u32 %%i;
    .reg .pred %%pr;
    .reg .b64 %%pi, %%po;
    ld.param.u64 %%pi, [p_in];
    cvta.to.global.u64 %%pi, %%pi;
    ld.param.u64 %%po, [p_out];
    cvta.to.global.u64 %%po, %%po;
    ld.global.%(t)s %%a, [%%pi+0];
    ld.global.%(t)s %%b, [%%pi+%(s1)d];
    ld.global.%(t)s %%c, [%%pi+%(s2)d];
    ld.global.%(t)s %%r, [%%pi+%(s3)d];
    ld.global.%(t)s %%p, [%%pi+%(s4)d];
    ld.global.%(t)s %%q, [%%pi+%(s5)d];
    ld.global.%(t)s %%two, [%%pi+%(s6)d];
    mov.u32 %%i, 0;
''' % dict(t=t, a=a, p=p, dump=T['dump'], nout=nout, hexs=hexs,
           s1=T['size'], s2=2 * T['size'], s3=3 * T['size'], s4=4 * T['size'], s5=5 * T['size'],
           s6=6 * T['size'])
    return head + '\n'.join(body) + '\n    ret;\n}\n'

# Instructions that ptxas may expand into a fast path and a subroutine call (a slow path for
# special inputs): between a mul and its add, does such an instruction stop the fusion as a
# `call` does? Each case runs X between `mul.f32 %d, %a, %b` and `add.f32 %e, %d, %c` and stores
# both %e (fused: the product's rounding error; plain: 0) and X's result, which keeps X alive.
EXPAND = [
    ('nothing between (control)', ''),
    ('div.rn.f32', 'div.rn.f32 %x, %p, %three;'),
    ('div.full.f32', 'div.full.f32 %x, %p, %three;'),
    ('div.approx.f32', 'div.approx.f32 %x, %p, %three;'),
    ('rcp.rn.f32', 'rcp.rn.f32 %x, %three;'),
    ('rcp.approx.f32', 'rcp.approx.f32 %x, %three;'),
    ('sqrt.rn.f32', 'sqrt.rn.f32 %x, %three;'),
    ('sqrt.approx.f32', 'sqrt.approx.f32 %x, %three;'),
    ('rsqrt.approx.f32', 'rsqrt.approx.f32 %x, %three;'),
    ('ex2.approx.f32', 'ex2.approx.f32 %x, %three;'),
    ('lg2.approx.f32', 'lg2.approx.f32 %x, %three;'),
    ('sin.approx.f32', 'sin.approx.f32 %x, %three; SIGN'),
    ('div.rn.f64', 'div.rn.f64 %xd, %pd, %threed; cvt.rn.f32.f64 %x, %xd;'),
    ('rcp.rn.f64', 'rcp.rn.f64 %xd, %threed; cvt.rn.f32.f64 %x, %xd;'),
    ('sqrt.rn.f64', 'sqrt.rn.f64 %xd, %threed; cvt.rn.f32.f64 %x, %xd;'),
    ('rcp.approx.ftz.f64', 'rcp.approx.ftz.f64 %xd, %threed; cvt.rn.f32.f64 %x, %xd;'),
    ('div.u32', 'div.u32 %u, %ui, %uk; mov.b32 %x, %u;'),
    ('rem.s32', 'rem.s32 %u, %ui, %uk; mov.b32 %x, %u;'),
    ('div.u64', 'div.u64 %ul, %uli, %ulk; cvt.u32.u64 %u, %ul; mov.b32 %x, %u;'),
    ('rem.s64', 'rem.s64 %ul, %uli, %ulk; cvt.u32.u64 %u, %ul; mov.b32 %x, %u;'),
    ('div.rn.f32 before the mul (control)', 'BEFORE div.rn.f32 %x, %p, %three;'),
    ('div.rn.f32 after the add (control)', 'AFTER div.rn.f32 %x, %p, %three;'),
    ('div.s32', 'div.s32 %u, %ui, %uk; mov.b32 %x, %u;'),
    ('rem.u32', 'rem.u32 %u, %ui, %uk; mov.b32 %x, %u;'),
    ('div.s64', 'div.s64 %ul, %uli, %ulk; cvt.u32.u64 %u, %ul; mov.b32 %x, %u;'),
    ('rem.u64', 'rem.u64 %ul, %uli, %ulk; cvt.u32.u64 %u, %ul; mov.b32 %x, %u;'),
    ('div.u16', 'cvt.u16.u32 %h, %ui; cvt.u16.u32 %hk, %uk; div.u16 %h, %h, %hk; cvt.u32.u16 %u, %h; mov.b32 %x, %u;'),
    ('rem.s16', 'cvt.u16.u32 %h, %ui; cvt.u16.u32 %hk, %uk; rem.s16 %h, %h, %hk; cvt.u32.u16 %u, %h; mov.b32 %x, %u;'),
    ('div.rn.ftz.f32', 'div.rn.ftz.f32 %x, %p, %three;'),
    ('div.rz.f32', 'div.rz.f32 %x, %p, %three;'),
    ('rcp.rn.ftz.f32', 'rcp.rn.ftz.f32 %x, %three;'),
    ('rcp.rz.f32', 'rcp.rz.f32 %x, %three;'),
    ('sqrt.rn.ftz.f32', 'sqrt.rn.ftz.f32 %x, %three;'),
    ('sqrt.rz.f32', 'sqrt.rz.f32 %x, %three;'),
    ('div.rz.f64', 'div.rz.f64 %xd, %pd, %threed; cvt.rn.f32.f64 %x, %xd;'),
    ('rcp.rm.f64', 'rcp.rm.f64 %xd, %threed; cvt.rn.f32.f64 %x, %xd;'),
    ('sqrt.rp.f64', 'sqrt.rp.f64 %xd, %threed; cvt.rn.f32.f64 %x, %xd;'),
    ('div.rn.f32 by an immediate', 'div.rn.f32 %x, %p, 0f40400000;'),
    ('rem.s32 by an immediate', 'rem.s32 %u, %ui, 3; mov.b32 %x, %u;'),
    ('div.u64 by an immediate', 'div.u64 %ul, %uli, 3; cvt.u32.u64 %u, %ul; mov.b32 %x, %u;'),
    ('div.u32 by an immediate', 'div.u32 %u, %ui, 3; mov.b32 %x, %u;'),
    ('tanh.approx.f32', 'tanh.approx.f32 %x, %p; SIGN'),
    ('ex2.approx.ftz.bf16', 'cvt.rn.bf16.f32 %hb, %p; ex2.approx.ftz.bf16 %hb, %hb; cvt.f32.bf16 %x, %hb;'),
    ('rem.s32, the mul and the add in its shadow: two adds', 'TWO rem.s32 %u, %ui, %uk; mov.b32 %x, %u;'),
]


LOADS = ['    ld.volatile.global.f32 %a, [%pi+0];',
         '    ld.volatile.global.f32 %b, [%pi+4];',
         '    ld.volatile.global.f32 %c, [%pi+8];',
         '    ld.volatile.global.f32 %p, [%pi+12];',
         '    ld.volatile.global.f32 %three, [%pi+16];',
         '    cvt.f64.f32 %pd, %p;',
         '    cvt.f64.f32 %threed, %three;',
         '    mov.b32 %ui, %p;',
         '    cvt.rzi.u32.f32 %uk, %three;',
         '    cvt.u64.u32 %uli, %ui;',
         '    cvt.u64.u32 %ulk, %uk;']


def gen_expand():
    a = 1.0 + 2.0 ** -12
    r = TYPES['f32']['rnd'](a * a)
    p = 1.0 + 2.0 ** -13
    inputs = [a, a, -r, p, 3.0]
    body = []
    nout = 0
    for k, (comment, x) in enumerate(EXPAND):
        # volatile loads in every case, so that ptxas shares no product or quotient between
        # cases (a shared mul would sit before every later case's instruction)
        lines = ['    // case %d: %s' % (k, comment)] + LOADS
        where = 'MID'
        if x.startswith('BEFORE '): where, x = 'BEFORE', x[7:]
        if x.startswith('AFTER '): where, x = 'AFTER', x[6:]
        if x.startswith('TWO '): where, x = 'TWO', x[4:]
        # SIGN: store only whether x > 0, for functions ptxemu computes within their documented
        # error but not bit for bit (sin, tanh: docs/testing.md)
        x = x.replace('SIGN', 'setp.gt.f32 %pr, %x, 0f00000000; selp.f32 %x, 0f3F800000, 0f00000000, %pr;')
        xs = ['    ' + s.strip() + ';' for s in x.split(';') if s.strip()] or ['    mov.f32 %x, %three;']
        if where == 'BEFORE': lines += xs
        lines.append('    mul.f32 %d, %a, %b;')
        if where in ('MID', 'TWO'): lines += xs
        if where == 'TWO':   # a second mul/add pair after the instruction: fused as usual?
            lines.append('    mul.f32 %e, %a, %b;')
            lines.append('    add.f32 %e, %e, %c;')
            lines.append('    add.f32 %x, %x, %e;')
        lines.append('    add.f32 %e, %d, %c;')
        if where == 'AFTER': lines += xs
        lines.append('    st.global.b32 [%%po+%d], %%e;   // out[%d]' % (nout * 4, nout))
        lines.append('    st.global.b32 [%%po+%d], %%x;   // out[%d]' % (nout * 4 + 4, nout + 1))
        nout += 2
        body.append('\n'.join(lines))
    hexs = ' '.join('0x%08x' % f32bits(v) for v in inputs)
    head = '''// fma_contract_expand.ptx - generated by tests/gpu/gen_fma_contract.py; do not edit.
// Does an instruction that ptxas expands into a fast path and a subroutine call (div.rn,
// rcp.rn, sqrt.rn, 64-bit integer division...) stop a mul and an add around it from fusing, as
// a call does? Inputs: a = b = %(a)r, c = -round(a*b), p = %(p)r, three = 3. Case k stores
// out[2k] = a*b + c (fused: the product's rounding error; plain: 0) and out[2k+1] = what the
// instruction between computed. docs/fma-contraction.md has the rule these recordings show.
// @kernel k
// @block 1
// @arg buf out u32 %(nout)d
// @arg buf in u32 5 = %(hexs)s
// @dump out

.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p_out, .param .u64 p_in)
{
    .reg .f32 %%a, %%b, %%c, %%p, %%three, %%d, %%e, %%x;
    .reg .f64 %%pd, %%threed, %%xd;
    .reg .b32 %%u, %%ui, %%uk;
    .reg .b16 %%h, %%hk, %%hb;
    .reg .pred %%pr;
    .reg .b64 %%ul, %%uli, %%ulk, %%pi, %%po;
    ld.param.u64 %%pi, [p_in];
    cvta.to.global.u64 %%pi, %%pi;
    ld.param.u64 %%po, [p_out];
    cvta.to.global.u64 %%po, %%po;
''' % dict(a=a, p=p, nout=nout, hexs=hexs)
    return head + '\n'.join(body) + '\n    ret;\n}\n'


if __name__ == '__main__':
    for t in TYPES:
        with open('tests/ptx/fma_contract_%s.ptx' % t, 'w') as f:
            f.write(gen(t))
    with open('tests/ptx/fma_contract_expand.ptx', 'w') as f:
        f.write(gen_expand())
