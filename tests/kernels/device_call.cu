// A __noinline__ device function: a real call and return.
__device__ __noinline__ float smooth(float a, float b) {
  return a < b ? a + 0.5f * (b - a) : b;
}
__global__ void caller(const float *a, const float *b, float *out) {
  int i = threadIdx.x;
  out[i] = smooth(a[i], b[i]);
}
