// Integer division and modulo by a runtime divisor and by constants.
__global__ void divmod(const int *a, const int *b, int *q, int *r, unsigned *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  q[i] = a[i] / b[i];
  r[i] = a[i] % b[i];
  u[i] = (unsigned)a[i] / 10u + (unsigned)a[i] % 7u;
}
