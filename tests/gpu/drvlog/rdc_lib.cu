__device__ int lib_offset = 7;
__device__ int lib_twice(int x) { return 2 * x; }
