// The lecture's divergent kernel: a bounds check, then an if/else on the
// loaded value.
__global__ void divergent_kernel(float *data, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    if (data[idx] > 0.5f) data[idx] *= 2.0f;
    else data[idx] += 1.0f;
  }
}
