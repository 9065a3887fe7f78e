// 64-bit atomics on global and shared memory.
__global__ void atomics64(unsigned long long *total, unsigned long long *slot,
                          unsigned long long *out) {
  __shared__ unsigned long long sum;
  int t = threadIdx.x;
  if (t == 0) sum = 0;
  __syncthreads();
  unsigned long long v = (unsigned long long)(t + 1) << 33;
  atomicAdd(total, v);
  atomicAdd(&sum, v);
  atomicCAS(slot, 0ull, v);
  __syncthreads();
  if (t == 0) out[0] = sum;
}
