// A grid-stride loop: each thread walks the array with the grid's stride.
__global__ void scale(float *data, float k, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    data[i] *= k;
  }
}
