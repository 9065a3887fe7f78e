// Probes of the constant bank layout: each kernel reads one launch
// quantity, so its listing names that quantity's offset in c[0x0].
__global__ void block_x(unsigned *out) { *out = blockDim.x; }
__global__ void block_y(unsigned *out) { *out = blockDim.y; }
__global__ void block_z(unsigned *out) { *out = blockDim.z; }
__global__ void grid_x(unsigned *out) { *out = gridDim.x; }
__global__ void grid_y(unsigned *out) { *out = gridDim.y; }
__global__ void grid_z(unsigned *out) { *out = gridDim.z; }
__global__ void params(unsigned *out, unsigned a, unsigned long long b) { out[0] = a; out[1] = (unsigned)b; }
