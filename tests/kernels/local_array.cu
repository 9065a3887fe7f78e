// A per-thread array indexed by a runtime value: lives in local memory.
__global__ void local_array(const int *idx, int *out) {
  int a[16];
  for (int k = 0; k < 16; ++k) a[k] = k * threadIdx.x;
  out[threadIdx.x] = a[idx[threadIdx.x] & 15];
}
