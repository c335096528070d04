/* sfu_blob.S - emu/sfu_tables.zst and emu/sfu_tables2.zst (the measured MUFU results,
 * tests/gpu/sfu/ and tests/gpu/mufu/) linked into the library as read-only data; emu/sfu.c
 * decompresses them on first use. */
    .section .rodata
    .balign 16
    .globl ptxemu_sfu_blob
    .hidden ptxemu_sfu_blob
ptxemu_sfu_blob:
    .incbin "emu/sfu_tables.zst"
    .globl ptxemu_sfu_blob_end
    .hidden ptxemu_sfu_blob_end
ptxemu_sfu_blob_end:
    .balign 16
    .globl ptxemu_sfu_blob2
    .hidden ptxemu_sfu_blob2
ptxemu_sfu_blob2:
    .incbin "emu/sfu_tables2.zst"
    .globl ptxemu_sfu_blob2_end
    .hidden ptxemu_sfu_blob2_end
ptxemu_sfu_blob2_end:
    .section .note.GNU-stack,"",@progbits
