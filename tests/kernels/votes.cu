// Warp votes: any, all, ballot and its population count.
__global__ void votes(const int *in, int *any_out, int *all_out, unsigned *ballot_out, int *count_out) {
  int p = in[threadIdx.x] > 0;
  any_out[threadIdx.x] = __any_sync(0xffffffff, p);
  all_out[threadIdx.x] = __all_sync(0xffffffff, p);
  unsigned b = __ballot_sync(0xffffffff, p);
  ballot_out[threadIdx.x] = b;
  count_out[threadIdx.x] = __popc(b);
}
