// fma_contract_o0.cu - fma_contract.cu built with -Xptxas -O0 (fma_contract_o0.flags): does
// ptxas fuse at its lowest optimisation level?
#include "fma_contract.cu"
