// A switch on the lane's value.
__global__ void classify(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v;
  switch (in[i] & 7) {
    case 0: v = 10; break;
    case 1: v = in[i] * 3; break;
    case 2: v = in[i] - 7; break;
    case 3: v = in[i] << 2; break;
    case 5: v = -in[i]; break;
    default: v = 0; break;
  }
  out[i] = v;
}
