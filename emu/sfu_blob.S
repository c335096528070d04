/* sfu_blob.S - emu/sfu_tables.zst (the H100's measured MUFU results, tests/gpu/sfu/) linked
 * into the library as read-only data; emu/sfu.c decompresses it on first use. */
    .section .rodata
    .balign 16
    .globl ptxemu_sfu_blob
    .hidden ptxemu_sfu_blob
ptxemu_sfu_blob:
    .incbin "emu/sfu_tables.zst"
    .globl ptxemu_sfu_blob_end
    .hidden ptxemu_sfu_blob_end
ptxemu_sfu_blob_end:
    .section .note.GNU-stack,"",@progbits
