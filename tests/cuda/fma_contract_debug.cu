// fma_contract_debug.cu - fma_contract.cu built with -G (fma_contract_debug.flags): does ptxas
// fuse when it compiles for debugging?
#include "fma_contract.cu"
