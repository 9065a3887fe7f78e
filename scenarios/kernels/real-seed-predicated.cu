// The lecture's divergent kernel: a bounds check, then an if/else on the
// loaded value. Both sides are one add, so the compiler predicates them.
__global__ void seed(float *data, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    if (data[idx] > 0.5f)
      data[idx] = data[idx] + 1.0f;
    else
      data[idx] = data[idx] - 1.0f;
  }
}
