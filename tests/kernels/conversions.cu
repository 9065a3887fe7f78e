// Conversions between int, unsigned, float and double.
__global__ void convert(const float *f, const int *n, int *fi, unsigned *fu, float *nf, double *nd) {
  int i = threadIdx.x;
  fi[i] = (int)f[i];
  fu[i] = (unsigned)fabsf(f[i]);
  nf[i] = (float)n[i] * 0.5f;
  nd[i] = (double)n[i] + (double)f[i];
}
