// fma_contract_nofmad.cu - fma_contract.cu built with -fmad=false (fma_contract_nofmad.flags):
// nvcc writes mul.rn/add.rn, which are never fused.
#include "fma_contract.cu"
