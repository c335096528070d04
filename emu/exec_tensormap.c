/* exec_tensormap.c - tensormap.replace: edits one field of a tensor map held in global or shared::cta memory;
 * tensormap.cp_fenceproxy: copies a map from shared::cta to global.
 *
 * PTX: tensormap.replace.tile.field1{.ss}.b1024.type [addr], new_val;
 *      tensormap.replace.tile.field2{.ss}.b1024.type [addr], ord, new_val;
 *      tensormap.replace.tile.field3{.ss}.b1024.b32  [addr], new_val;   (new_val immediate)
 * The map keeps ptxemu's own layout (emu/tma.c), so the edit goes through tma_replace_field,
 * which takes new_val as PTX defines it. Inst fields: bop = TMA_F_*, aux8 = ord, space = the
 * state space (generic when none), t = TY_B32/TY_B64, s[ns-1] = new_val.
 */
#include <stdio.h>
#include <string.h>
#include "exec.h"
#include "memory.h"
#include "tma.h"

static int h_tensormap_replace(Warp *w, const Inst *in, uint32_t mask)
{
    const uint64_t *v = ROW(w, in->s[in->ns - 1]), *b = ROW(w, in->base);
    uint64_t vmask = in->t == TY_B64 ? ~0ull : 0xffffffffull;
    FOR_LANES(mask, l) {
        uint64_t a = b[l] + (uint64_t)in->imm;
        void *m = mem_lane_ptr(w, in->space, a, TMAP_BYTES, 64, l, ACC_WRITE);
        if (!m) return STEP_FAULT;
        char err[200];
        if (tma_replace_field(m, in->bop, in->aux8, v[l] & vmask, err, sizeof err))
            return warp_fault(w, l, EMU_ERR_ILLEGAL_INSTRUCTION, "%s", err);
    }
    return STEP_NEXT;
}

/* tensormap.cp_fenceproxy: copies a 128-byte tensor map from shared::cta (s[0]: the address)
 * to global (base + imm), releasing it to the tensormap proxy. ptxemu's TMA reads maps
 * through the same memory, so the copy is the whole effect; the fence orders it as any
 * release fence does. */
static int h_tensormap_cp(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const uint64_t *src = ROW(w, in->s[0]), *b = ROW(w, in->base);
    FOR_LANES(mask, l) {
        void *to = mem_lane_ptr(w, SP_GLOBAL, b[l] + (uint64_t)in->imm, TMAP_BYTES, 64, l, ACC_WRITE);
        if (!to) return STEP_FAULT;
        const void *from = mem_lane_ptr(w, SP_SHARED, src[l], TMAP_BYTES, 64, l, ACC_READ);
        if (!from) return STEP_FAULT;
        memmove(to, from, TMAP_BYTES);
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return STEP_NEXT;
}

static const char *bind_tensormap_cp(Inst *in, const InstDesc *d)
{
    if (!desc_has(d, MOD_SYNC) || !desc_has(d, MOD_ALIGNED)) return "tensormap.cp_fenceproxy needs .sync.aligned";
    if (!desc_has(d, MOD_TENSORMAP_GENERIC) || !desc_has(d, MOD_RELEASE))
        return "tensormap.cp_fenceproxy needs .tensormap::generic.release";
    if (d->nspaces != 2 || d->spaces[0] != SP_GLOBAL || d->spaces[1] != SP_SHARED)
        return "tensormap.cp_fenceproxy copies .global from .shared::cta";
    if (!d->has_addr || d->naddr != 2 || d->ns != 2) return "tensormap.cp_fenceproxy takes [dst], [src], size";
    if (!(d->src_imm_mask >> 1 & 1) || d->imm_val[1] != TMAP_BYTES) return "tensormap.cp_fenceproxy's size is 128";
    in->s[0] = in->s[d->addr_src[0]];
    in->ns = 1;
    in->fn = h_tensormap_cp;
    return NULL;
}

/* The field named by the modifiers, its operand width, and whether it takes an ordinal. */
static const struct { int mod, field, b64, ord, imm; } fields[] = {
    {MOD_GLOBAL_ADDRESS, TMA_F_GLOBAL_ADDRESS, 1, 0, 0},
    {MOD_RANK, TMA_F_RANK, 0, 0, 0},
    {MOD_BOX_DIM, TMA_F_BOX_DIM, 0, 1, 0},
    {MOD_GLOBAL_DIM, TMA_F_GLOBAL_DIM, 0, 1, 0},
    {MOD_GLOBAL_STRIDE, TMA_F_GLOBAL_STRIDE, 1, 1, 0},
    {MOD_ELEMENT_STRIDE, TMA_F_ELEMENT_STRIDE, 0, 1, 0},
    {MOD_ELEMTYPE, TMA_F_ELEMTYPE, 0, 0, 1},
    {MOD_INTERLEAVE_LAYOUT, TMA_F_INTERLEAVE, 0, 0, 1},
    {MOD_SWIZZLE_MODE, TMA_F_SWIZZLE_MODE, 0, 0, 1},
    {MOD_SWIZZLE_ATOMICITY, TMA_F_SWIZZLE_ATOMICITY, 0, 0, 1},
    {MOD_FILL_MODE, TMA_F_FILL_MODE, 0, 0, 1},
};

const char *bind_tensormap(Inst *in, const InstDesc *d)
{
    if (desc_has(d, MOD_CP_FENCEPROXY)) return bind_tensormap_cp(in, d);
    if (!desc_has(d, MOD_REPLACE)) return "tensormap.replace or tensormap.cp_fenceproxy";
    if (!desc_has(d, MOD_TILE)) return "tensormap.replace needs .tile (the only mode)";
    if (!desc_has(d, MOD_B1024)) return "tensormap.replace needs .b1024";
    if (!d->has_addr) return "tensormap.replace takes [addr]";
    int k = -1, n = 0;
    for (int i = 0; i < (int)(sizeof fields / sizeof fields[0]); i++)
        if (desc_has(d, fields[i].mod)) { k = i; n++; }
    if (n != 1) return "tensormap.replace needs exactly one field";
    if (d->space != SP_NONE && d->space != SP_GLOBAL && d->space != SP_SHARED)
        return "tensormap.replace edits maps in .global or .shared::cta";
    if (d->ntypes != 1 || d->types[0] != (fields[k].b64 ? TY_B64 : TY_B32))
        return fields[k].b64 ? "this tensormap.replace field takes .b64"
                             : "this tensormap.replace field takes .b32";
    if (d->ns != 1 + fields[k].ord) return fields[k].ord ? "tensormap.replace takes [addr], ord, new_val"
                                                         : "tensormap.replace takes [addr], new_val";
    if (fields[k].ord) {
        if (!(d->src_imm_mask & 1)) return "the ord of tensormap.replace must be an immediate";
        if (d->imm_val[0] > 4) return "the ord of tensormap.replace must be 0 to 4";
        in->aux8 = (uint8_t)d->imm_val[0];
    } else in->aux8 = 0;
    if (fields[k].imm && !(d->src_imm_mask >> (d->ns - 1) & 1))
        return "this tensormap.replace field takes an immediate new_val";
    in->space = (uint8_t)(d->space == SP_NONE ? SP_GENERIC : d->space);
    in->t = d->types[0];
    in->bop = (uint8_t)fields[k].field;
    in->ns = (uint8_t)d->ns;
    in->fn = h_tensormap_replace;
    return NULL;
}
