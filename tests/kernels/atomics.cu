// Global atomics of several kinds, with and without a used result.
__global__ void atomics(int *counter, int *mx, int *mn, unsigned *ticket, int *slots) {
  int v = threadIdx.x * 7 % 13;
  atomicMax(mx, v);
  atomicMin(mn, v);
  unsigned t = atomicInc(ticket, 1000u);
  int old = atomicAdd(counter, 1);
  slots[threadIdx.x] = old + t;
  atomicCAS(&slots[0], 0, 1);
  atomicExch(&slots[1], v);
}
