// A loop whose trip count differs per lane: lane i runs i+1 times.
__global__ void triangle(int *out) {
  int tid = threadIdx.x;
  int sum = 0;
  for (int k = 0; k <= tid % 32; ++k) sum += k * tid;
  out[tid] = sum;
}
