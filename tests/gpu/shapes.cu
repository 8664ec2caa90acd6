// Known shapes for the collector's GPU test: kernels of known grid/block on two streams,
// 1 MiB copies of each kind, a memset, a driver-API launch, a cluster launch, a CUDA graph
// (2 kernels + memset) launched 3 times, and nested NVTX ranges, a domain, start/end
// ranges and marks (one before CUDA is initialised). check_trace.py asserts all of it.
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                 \
    do {                                                                                            \
        cudaError_t e_ = (call);                                                                    \
        if (e_ != cudaSuccess) {                                                                    \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(1);                                                                           \
        }                                                                                           \
    } while (0)

__global__ void busyKernel(float* out, int n)
{
    extern __shared__ float scratch[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    scratch[threadIdx.x] = static_cast<float>(i);
    __syncthreads();
    if (i < n)
        out[i] = scratch[threadIdx.x] * 2.0f;
}

__global__ void shapeKernel(int* out)
{
    const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    atomicAdd(out, block >= 0 ? 1 : 0);
}

__global__ void driverKernel(int* out) { out[threadIdx.x] = threadIdx.x; }

__global__ void clusterKernel(int* out) { out[blockIdx.x] = blockIdx.x; }

__global__ void graphKernelA(float* data) { data[threadIdx.x] += 1.0f; }
__global__ void graphKernelB(float* data) { data[threadIdx.x] *= 2.0f; }

int main()
{
    nvtxMarkA("before-cuInit");
    CHECK(cudaFree(nullptr));

    constexpr size_t kBytes = 1 << 20;
    const int n = 264 * 256;
    float* deviceA = nullptr;
    float* deviceB = nullptr;
    int* counters = nullptr;
    CHECK(cudaMalloc(&deviceA, kBytes));
    CHECK(cudaMalloc(&deviceB, kBytes));
    CHECK(cudaMalloc(&counters, 4096));
    void* pageable = std::calloc(1, kBytes);
    void* pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, kBytes));

    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

    nvtxRangePushA("outer");
    nvtxRangePushA("inner");
    for (int i = 0; i < 3; ++i)
        busyKernel<<<264, 256, 4096, s1>>>(deviceA, n);
    for (int i = 0; i < 2; ++i)
        shapeKernel<<<dim3(8, 4, 2), dim3(32, 4, 1), 0, s2>>>(counters);
    nvtxRangePop();
    nvtxRangePop();

    nvtxDomainHandle_t domain = nvtxDomainCreateA("kinetoscope-test");
    nvtxEventAttributes_t attributes = {};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = "in-domain";
    nvtxDomainRangePushEx(domain, &attributes);
    CHECK(cudaMemcpy(deviceA, pageable, kBytes, cudaMemcpyHostToDevice));
    nvtxDomainRangePop(domain);

    const nvtxRangeId_t copies = nvtxRangeStartA("start-end");
    CHECK(cudaMemcpyAsync(deviceB, pinned, kBytes, cudaMemcpyHostToDevice, s1));
    CHECK(cudaMemcpyAsync(deviceA, deviceB, kBytes, cudaMemcpyDeviceToDevice, s1));
    CHECK(cudaMemcpyAsync(pinned, deviceA, kBytes, cudaMemcpyDeviceToHost, s2));
    CHECK(cudaMemsetAsync(deviceB, 0, kBytes, s2));
    nvtxRangeEnd(copies);
    nvtxMarkA("mark");

    // Driver API launch (as Triton does).
    cudaFunction_t function;
    CHECK(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(driverKernel)));
    void* params[] = {&counters};
    if (cuLaunchKernel(reinterpret_cast<CUfunction>(function), 1, 1, 1, 64, 1, 1, 0, s1, params, nullptr)
        != CUDA_SUCCESS) {
        std::fprintf(stderr, "cuLaunchKernel failed\n");
        return 1;
    }

    // Cluster launch (cudaLaunchKernelEx, sm_90).
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(4, 1, 1);
    config.blockDim = dim3(32, 1, 1);
    config.stream = s2;
    cudaLaunchAttribute cluster[1];
    cluster[0].id = cudaLaunchAttributeClusterDimension;
    cluster[0].val.clusterDim.x = 2;
    cluster[0].val.clusterDim.y = 1;
    cluster[0].val.clusterDim.z = 1;
    config.attrs = cluster;
    config.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&config, clusterKernel, counters));

    // A graph of 2 kernels + a memset, launched 3 times: 9 GPU ops under 3 correlation ids.
    CHECK(cudaStreamSynchronize(s1));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    graphKernelA<<<1, 128, 0, s1>>>(deviceA);
    graphKernelB<<<1, 128, 0, s1>>>(deviceA);
    CHECK(cudaMemsetAsync(deviceB, 1, 4096, s1));
    CHECK(cudaStreamEndCapture(s1, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 3; ++i)
        CHECK(cudaGraphLaunch(exec, s1));

    CHECK(cudaDeviceSynchronize());
    std::printf("shapes: done\n");
    return 0;
}
