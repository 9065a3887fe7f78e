// Special functions: fast exp, reciprocal square root, sine, and a divide.
__global__ void special(const float *x, float *e, float *r, float *s, float *d) {
  int i = threadIdx.x;
  float v = x[i];
  e[i] = __expf(v);
  r[i] = rsqrtf(v);
  s[i] = sinf(v);
  d[i] = 1.0f / v;
}
