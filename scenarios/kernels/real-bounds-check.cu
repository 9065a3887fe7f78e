// SAXPY with the usual bounds check: the grid is rounded up to whole
// blocks, so the threads past n must not touch x or y.
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) y[idx] = a * x[idx] + y[idx];
}
