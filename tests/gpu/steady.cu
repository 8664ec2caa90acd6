// A steady stream of kernels for the live-recording test: N kernels of about 1 ms each,
// synchronised every 10, so new work keeps arriving for a few seconds.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void spin(long long cycles)
{
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 3000;
    for (int i = 0; i < n; ++i) {
        spin<<<1, 32>>>(1'500'000); // ~1 ms at ~1.5 GHz
        if (i % 10 == 9)
            cudaDeviceSynchronize();
    }
    cudaDeviceSynchronize();
    std::printf("steady: %d kernels\n", n);
    return 0;
}
