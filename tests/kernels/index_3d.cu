// 3-D thread and block indices flattened into one linear index.
__global__ void index3d(int *out) {
  int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  int bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
  int block = (bz * gridDim.y + by) * gridDim.x + bx;
  int thread = (tz * blockDim.y + ty) * blockDim.x + tx;
  int threads = blockDim.x * blockDim.y * blockDim.z;
  out[block * threads + thread] = tx + 10 * ty + 100 * tz;
}
