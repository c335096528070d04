/* image.h - the PTX texts a module image holds (image.c). */
#ifndef PTXEMU_IMAGE_H
#define PTXEMU_IMAGE_H

#include <stddef.h>
#include <cuda.h>

typedef struct Image {
    char **text;       /* NUL-terminated PTX texts, to be linked when more than one */
    size_t *len;
    char **name;       /* a name for each, for diagnostics */
    int n;
} Image;

/* Read any image cuModuleLoadData accepts. On failure returns the CUresult and a one-line
 * reason in err. */
CUresult image_read(const void *image, Image *im, char *err, size_t errlen);
/* What cuLinkAddData takes besides images: a host object of nvcc -rdc=true -c
 * (CU_JIT_INPUT_OBJECT) or an archive of them (CU_JIT_INPUT_LIBRARY), each carrying its PTX
 * in __nv_relfatbin; libcudadevrt.a's member is ptxemu's own device runtime and adds no text.
 * Appends to im; on failure the CUresult and a reason in err. */
CUresult image_read_object(const void *data, size_t size, const char *name, Image *im,
                           char *err, size_t errlen);
CUresult image_read_archive(const void *data, size_t size, const char *name, Image *im,
                            char *err, size_t errlen);
int image_add(Image *im, const char *text, size_t len, const char *name);
/* Adds a ptxas option to every text's options line (PTX_OPTIONS_MARK), after those it has. */
int image_add_option(Image *im, const char *opt);
void image_free(Image *im);
/* ptxemu's linked image (cuLinkComplete's output): several texts in one buffer. */
void *image_pack(const Image *im, size_t *size);
int image_is_linked(const void *image);

#endif
