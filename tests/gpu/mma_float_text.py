#!/usr/bin/env python3
# mma_float_text.py - the H100's recording of tests/cuda/mma_float.cu (its VARIANT.bin files)
# printed as that program's "text N" mode prints ptxemu's results: the expected output of the
# test tests/cuda/mma_float (the same program). Usage: mma_float_text.py BIN_DIR N
import struct, sys
d, n = sys.argv[1], int(sys.argv[2])
vars_ = [("f32_f16_k8", 8, 0), ("f32_bf16_k8", 8, 0), ("f16_f16_k16", 16, 1), ("f16_f16_k8", 8, 1),
         ("f32_tf32_k8", 8, 0), ("f32_tf32_k4", 4, 0), ("f32_e4m3_k32", 32, 0), ("f32_e5m2_k32", 32, 0),
         ("f32_e4m3e5m2_k32", 32, 0)]
for name, K, acc16 in vars_:
    raw = open(f"{d}/{name}.bin", "rb").read()
    N = len(raw) // 4 // (16 * K + K * 8 + 256)
    off = 4 * (N * 16 * K + N * K * 8 + N * 128)
    D = struct.unpack_from(f"<{n * 128}I", raw, off)
    print(f"{name}: cudaSuccess")
    for i, v in enumerate(D):
        sys.stdout.write(("%04x" if acc16 else "%08x") % v + ("\n" if i % 8 == 7 else " "))
print("exit=0")
