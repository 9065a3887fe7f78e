// c = a + b over ints; unsigned index and an early return.
__global__ void vector_add(const int *a, const int *b, int *c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  c[i] = a[i] + b[i];
}
