// Transpose of a 32x32 matrix through a shared tile, 32x8 threads each
// copying 4 rows: the tile is read down a column, and every element of a
// column sits in the same bank.
#define TILE 32
#define ROWS 8
__global__ void transpose_tile(const float *in, float *out) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  int width = gridDim.x * TILE;
  for (int j = 0; j < TILE; j += ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}
