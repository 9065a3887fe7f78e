// A 1-D three-point stencil with a shared halo (blockDim.x == 128).
#define R 1
__global__ void stencil(const float *in, float *out, int n) {
  __shared__ float s[128 + 2 * R];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + R;
  s[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x < R) {
    s[l - R] = g >= R ? in[g - R] : 0.0f;
    s[l + blockDim.x] = g + blockDim.x < n ? in[g + blockDim.x] : 0.0f;
  }
  __syncthreads();
  if (g < n) out[g] = 0.25f * s[l - 1] + 0.5f * s[l] + 0.25f * s[l + 1];
}
