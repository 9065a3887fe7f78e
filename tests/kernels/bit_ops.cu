// Bit manipulation intrinsics: popcount, leading zeros, reverse, funnel shift.
__global__ void bits(const unsigned *in, unsigned *out) {
  int i = threadIdx.x;
  unsigned v = in[i];
  out[4 * i + 0] = __popc(v);
  out[4 * i + 1] = __clz(v);
  out[4 * i + 2] = __brev(v);
  out[4 * i + 3] = __funnelshift_l(v, v ^ 0xdeadbeef, i & 31) ^ (v >> 3);
}
