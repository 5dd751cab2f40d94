// SPDX-License-Identifier: MIT
// A small CUDA load for scripts/device-check: cudaMemset over 256 MiB and a short arithmetic
// kernel, in a loop, for the seconds given (default 10), so that `gpurent probe --watch`
// sees a busy GPU. Build: nvcc -O2 -o device-load scripts/device-load.cu
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void spin(float* p, int n, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = p[i];
  for (int k = 0; k < rounds; ++k) v = v * 1.0001f + 0.5f;
  p[i] = v;
}

int main(int argc, char** argv) {
  const double secs = argc > 1 ? std::atof(argv[1]) : 10.0;
  const int n = 1 << 26;  // 256 MiB of floats
  float* p = nullptr;
  if (const cudaError_t e = cudaMalloc(&p, sizeof(float) * n); e != cudaSuccess) {
    std::fprintf(stderr, "device-load: cudaMalloc: %s\n", cudaGetErrorString(e));
    return 1;
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
  long rounds = 0;
  while (std::chrono::steady_clock::now() < end) {
    cudaMemset(p, static_cast<int>(rounds & 0xff), sizeof(float) * n);
    spin<<<(n + 255) / 256, 256>>>(p, n, 256);
    if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
      std::fprintf(stderr, "device-load: %s\n", cudaGetErrorString(e));
      return 1;
    }
    ++rounds;
  }
  std::printf("device-load: %ld rounds in %.0f s\n", rounds, secs);
  cudaFree(p);
  return 0;
}
