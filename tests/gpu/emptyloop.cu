// Launch-bound loop: N empty kernels, timed on the host. Prints µs per launch.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void emptyKernel() {}

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 200000;
    emptyKernel<<<1, 1>>>();
    cudaDeviceSynchronize();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
        emptyKernel<<<1, 1>>>();
    cudaDeviceSynchronize();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("emptyloop: %d launches in %.3f s = %.3f us/launch\n", n, seconds, seconds * 1e6 / n);
    return 0;
}
