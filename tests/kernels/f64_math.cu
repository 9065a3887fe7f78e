// Double precision: multiply-add, divide and compare.
__global__ void f64_math(const double *a, const double *b, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i] * b[i] + 1.0;
  if (x > 100.0) x = x - b[i];
  out[i] = x / (a[i] + 2.0);
}
