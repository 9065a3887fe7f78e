// Butterfly all-reduce max across a warp, and a broadcast from lane 0.
__global__ void warp_max(const int *in, int *max_out, int *first_out) {
  int v = in[threadIdx.x];
  for (int m = 16; m > 0; m >>= 1) v = max(v, __shfl_xor_sync(0xffffffff, v, m));
  max_out[threadIdx.x] = v;
  first_out[threadIdx.x] = __shfl_sync(0xffffffff, in[threadIdx.x], 0);
}
