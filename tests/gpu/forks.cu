// Processes: a child forked before CUDA is initialised launches its own kernels (a second
// traced process), and a child forked after (fork without exec) must exit at once: the
// collector in it is inert (no flush, no send). Prints the exit time of the second child.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

__global__ void childKernel(int* p) { p[threadIdx.x] = 1; }
__global__ void parentKernel(int* p) { p[threadIdx.x] = 2; }

static int launch(bool child)
{
    int* p = nullptr;
    if (cudaMalloc(&p, 1024) != cudaSuccess)
        return 1;
    for (int i = 0; i < (child ? 2 : 3); ++i) {
        if (child)
            childKernel<<<1, 32>>>(p);
        else
            parentKernel<<<1, 32>>>(p);
    }
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}

int main()
{
    const pid_t early = fork();
    if (early == 0)
        return launch(true);
    int status = 0;
    waitpid(early, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "forks: CUDA child failed\n");
        return 1;
    }
    if (launch(false) != 0)
        return 1;

    const auto before = std::chrono::steady_clock::now();
    const pid_t late = fork();
    if (late == 0)
        std::exit(0); // runs atexit handlers, ours included: must not hang
    waitpid(late, &status, 0);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
    std::printf("forks: late child exited in %.3f s\n", seconds);
    return seconds < 1.0 ? 0 : 3;
}
