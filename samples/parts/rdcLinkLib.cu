// rdcLinkLib.cu - the second translation unit of samples/rdcLink.cu (see there).
__device__ int lib_offset = 7;
__constant__ int lib_table[8] = { 1, 2, 4, 8, 16, 32, 64, 128 };

__device__ int lib_mix(int x)
{
    return 3 * x + 1;
}
