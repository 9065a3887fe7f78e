// A switch on a loaded value: lanes whose values differ take different
// cases, one after another.
__global__ void classify(const int *in, int *out) {
  int t = threadIdx.x;
  int v = in[t];
  int r;
  switch (v) {
    case 0: r = v + 10; break;
    case 1: r = v * 3; break;
    case 2: r = v - 7; break;
    default: r = 0; break;
  }
  out[t] = r;
}
