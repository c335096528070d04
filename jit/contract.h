/* contract.h - fusing mul with add/sub into fma as ptxas does (contract.c). */
#ifndef PTXEMU_CONTRACT_H
#define PTXEMU_CONTRACT_H

#include <stdint.h>
#include "emu/inst.h"

typedef struct ContractIn {
    Inst *code;                 /* decoded, branch targets resolved, not yet bound       */
    InstDesc *descs;
    uint32_t ncode;
    const uint32_t *fn_start;   /* nfns + 1 entries: each function's first pc, then end */
    int nfns;
    uint32_t (*new_row)(void *ctx);    /* a fresh register row                           */
    uint32_t (*new_pred)(void *ctx);   /* a fresh predicate index                        */
    void *ctx;
} ContractIn;

/* Rewrites the fusable pairs in place. Returns -1 when out of memory. */
int contract_fma(ContractIn *c);

#endif
