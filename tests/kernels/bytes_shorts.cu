// 8- and 16-bit loads and stores, signed and unsigned.
__global__ void widen(const unsigned char *u8, const signed char *s8,
                      const unsigned short *u16, const short *s16,
                      int *out, unsigned char *out8, short *out16) {
  int i = threadIdx.x;
  out[i] = u8[i] + s8[i] + u16[i] + s16[i];
  out8[i] = (unsigned char)(u8[i] + 1);
  out16[i] = (short)(s16[i] * 2);
}
