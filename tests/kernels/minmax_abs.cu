// Min, max, absolute value and select, integer and float.
__global__ void clamp(const int *a, const float *x, int *ia, float *fx, int lo, int hi) {
  int i = threadIdx.x;
  ia[i] = min(max(abs(a[i]), lo), hi);
  fx[i] = fminf(fmaxf(x[i], -1.0f), 1.0f) + (x[i] < 0.0f ? 0.5f : 0.0f);
}
