// A data-dependent while loop: Collatz steps until 1.
__global__ void collatz(const unsigned *start, unsigned *steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = start[i];
  unsigned s = 0;
  while (x > 1) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++s;
  }
  steps[i] = s;
}
