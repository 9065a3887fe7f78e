// Block sum: each warp sums its 32 values with __shfl_down_sync, lane 0
// writes the warp's sum to shared memory, __syncthreads, then warp 0 sums
// the warp sums the same way.
__global__ void block_reduce(const float *in, float *out) {
  __shared__ float warp_sums[32];
  int t = threadIdx.x;
  float v = in[blockIdx.x * blockDim.x + t];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
  int lane = t % 32, warp = t / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
    if (lane == 0) out[blockIdx.x] = v;
  }
}
