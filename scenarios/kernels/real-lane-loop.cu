// Each lane loops a number of times it reads from memory: the warp runs
// the loop body until its longest lane is done.
__global__ void lane_loop(const int *trips, int *out) {
  int t = threadIdx.x;
  int n = trips[t];
  int sum = 0;
#pragma unroll 1
  for (int k = 0; k < n; ++k) sum += k;
  out[t] = sum;
}
