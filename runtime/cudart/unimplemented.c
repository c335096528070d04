/* unimplemented.c - every other entry point of NVIDIA's libcudart 13.0, as a loud failure.
 *
 * A program that calls one of these gets "ptxemu: NAME is not implemented yet" on stderr
 * (once per function) and cudaErrorNotSupported, instead of a dynamic-linker error at load
 * time. To implement one, write it in the file of its family and delete its line here.
 * All of them return cudaError_t in CUDA (a value-returning one, cudaCreateChannelDesc, is
 * implemented), so one shape fits all; the arguments are ignored, which the x86-64 and
 * AArch64 calling conventions allow. This file must not include the CUDA headers, whose
 * prototypes these definitions would contradict.
 */

/* errors.c: prints the message once (per *told flag), records and returns the error. */
int rt_not_implemented(const char *name, int *told);

#define RT_UNIMPLEMENTED(X) \
    X(__cudaGetProcAddress) \
    X(__cudaRegisterHostVar) \
    X(__cudaRegisterUnifiedTable) \
    X(cudaArrayGetMemoryRequirements) \
    X(cudaArrayGetPlane) \
    X(cudaArrayGetSparseProperties) \
    X(cudaCtxResetPersistingL2Cache) \
    X(cudaDestroyExternalMemory) \
    X(cudaDestroyExternalSemaphore) \
    X(cudaDeviceFlushGPUDirectRDMAWrites) \
    X(cudaDeviceGetHostAtomicCapabilities) \
    X(cudaDeviceGetNvSciSyncAttributes) \
    X(cudaDeviceGetP2PAtomicCapabilities) \
    X(cudaDeviceGetTexture1DLinearMaxWidth) \
    X(cudaDeviceRegisterAsyncNotification) \
    X(cudaDeviceUnregisterAsyncNotification) \
    X(cudaEGLStreamConsumerAcquireFrame) \
    X(cudaEGLStreamConsumerConnect) \
    X(cudaEGLStreamConsumerConnectWithFlags) \
    X(cudaEGLStreamConsumerDisconnect) \
    X(cudaEGLStreamConsumerReleaseFrame) \
    X(cudaEGLStreamProducerConnect) \
    X(cudaEGLStreamProducerDisconnect) \
    X(cudaEGLStreamProducerPresentFrame) \
    X(cudaEGLStreamProducerReturnFrame) \
    X(cudaEventCreateFromEGLSync) \
    X(cudaExternalMemoryGetMappedBuffer) \
    X(cudaExternalMemoryGetMappedMipmappedArray) \
    X(cudaGLGetDevices) \
    X(cudaGLMapBufferObject) \
    X(cudaGLMapBufferObjectAsync) \
    X(cudaGLRegisterBufferObject) \
    X(cudaGLSetBufferObjectMapFlags) \
    X(cudaGLSetGLDevice) \
    X(cudaGLUnmapBufferObject) \
    X(cudaGLUnmapBufferObjectAsync) \
    X(cudaGLUnregisterBufferObject) \
    X(cudaGetExportTable) \
    X(cudaGraphAddExternalSemaphoresSignalNode) \
    X(cudaGraphAddExternalSemaphoresWaitNode) \
    X(cudaGraphAddMemcpyNodeFromSymbol) \
    X(cudaGraphAddMemcpyNodeToSymbol) \
    X(cudaGraphExecExternalSemaphoresSignalNodeSetParams) \
    X(cudaGraphExecExternalSemaphoresWaitNodeSetParams) \
    X(cudaGraphExecMemcpyNodeSetParamsFromSymbol) \
    X(cudaGraphExecMemcpyNodeSetParamsToSymbol) \
    X(cudaGraphExternalSemaphoresSignalNodeGetParams) \
    X(cudaGraphExternalSemaphoresSignalNodeSetParams) \
    X(cudaGraphExternalSemaphoresWaitNodeGetParams) \
    X(cudaGraphExternalSemaphoresWaitNodeSetParams) \
    X(cudaGraphMemcpyNodeSetParamsFromSymbol) \
    X(cudaGraphMemcpyNodeSetParamsToSymbol) \
    X(cudaGraphicsEGLRegisterImage) \
    X(cudaGraphicsGLRegisterBuffer) \
    X(cudaGraphicsGLRegisterImage) \
    X(cudaGraphicsMapResources) \
    X(cudaGraphicsResourceGetMappedEglFrame) \
    X(cudaGraphicsResourceGetMappedMipmappedArray) \
    X(cudaGraphicsResourceGetMappedPointer) \
    X(cudaGraphicsResourceSetMapFlags) \
    X(cudaGraphicsSubResourceGetMappedArray) \
    X(cudaGraphicsUnmapResources) \
    X(cudaGraphicsUnregisterResource) \
    X(cudaGraphicsVDPAURegisterOutputSurface) \
    X(cudaGraphicsVDPAURegisterVideoSurface) \
    X(cudaImportExternalMemory) \
    X(cudaImportExternalSemaphore) \
    X(cudaKernelSetAttributeForDevice) \
    X(cudaLibraryGetUnifiedFunction) \
    X(cudaLogsCurrent) \
    X(cudaLogsDumpToFile) \
    X(cudaLogsDumpToMemory) \
    X(cudaLogsRegisterCallback) \
    X(cudaLogsUnregisterCallback) \
    X(cudaMemDiscardAndPrefetchBatchAsync) \
    X(cudaMemDiscardAndPrefetchBatchAsync_ptsz) \
    X(cudaMemDiscardBatchAsync) \
    X(cudaMemDiscardBatchAsync_ptsz) \
    X(cudaMemPoolExportPointer) \
    X(cudaMemPoolExportToShareableHandle) \
    X(cudaMemPoolImportFromShareableHandle) \
    X(cudaMemPoolImportPointer) \
    X(cudaMemPrefetchBatchAsync) \
    X(cudaMemPrefetchBatchAsync_ptsz) \
    X(cudaMemcpy3DBatchAsync) \
    X(cudaMemcpy3DBatchAsync_ptsz) \
    X(cudaMemcpyBatchAsync) \
    X(cudaMemcpyBatchAsync_ptsz) \
    X(cudaMipmappedArrayGetMemoryRequirements) \
    X(cudaMipmappedArrayGetSparseProperties) \
    X(cudaSetValidDevices) \
    X(cudaSignalExternalSemaphoresAsync) \
    X(cudaSignalExternalSemaphoresAsync_ptsz) \
    X(cudaVDPAUGetDevice) \
    X(cudaVDPAUSetVDPAUDevice) \
    X(cudaWaitExternalSemaphoresAsync) \
    X(cudaWaitExternalSemaphoresAsync_ptsz)

#define X(name)                                                  \
    int name(void);                                              \
    int name(void)                                               \
    {                                                            \
        static int told;                                         \
        return rt_not_implemented(#name, &told);                 \
    }
RT_UNIMPLEMENTED(X)
#undef X
