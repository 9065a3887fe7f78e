// Histogram of small values: each block counts into bins in shared memory
// with atomicAdd, then adds its bins to the global ones.
#define BINS 8
__global__ void histogram(const int *data, unsigned *bins) {
  __shared__ unsigned local[BINS];
  int t = threadIdx.x;
  if (t < BINS) local[t] = 0;
  __syncthreads();
  atomicAdd(&local[data[blockIdx.x * blockDim.x + t]], 1u);
  __syncthreads();
  if (t < BINS) atomicAdd(&bins[t], local[t]);
}
