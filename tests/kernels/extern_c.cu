// An extern "C" kernel: the symbol is not mangled.
extern "C" __global__ void fill(int *out, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + i;
}
