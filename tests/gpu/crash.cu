// Ends abnormally after 5 kernels: "segv" raises SIGSEGV, "kill" SIGKILL. The periodic
// flush must have delivered the kernels; the collector marks the process terminated.
#include <cuda_runtime.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <unistd.h>

__global__ void crashKernel(int* p) { p[threadIdx.x] += 1; }

int main(int argc, char** argv)
{
    int* p = nullptr;
    if (cudaMalloc(&p, 1024) != cudaSuccess)
        return 1;
    for (int i = 0; i < 5; ++i)
        crashKernel<<<2, 64>>>(p);
    cudaDeviceSynchronize();
    usleep(400 * 1000); // longer than the 100 ms flush period
    std::fflush(stdout);
    raise(argc > 1 && !std::strcmp(argv[1], "kill") ? SIGKILL : SIGSEGV);
    return 0;
}
