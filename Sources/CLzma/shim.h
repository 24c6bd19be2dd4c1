#ifndef HCISCOPE_CLZMA_SHIM_H
#define HCISCOPE_CLZMA_SHIM_H
#include <lzma.h>

/* LZMA_STREAM_INIT is a macro. A decoder for .xz (and concatenated .xz streams) that refuses,
   with LZMA_MEMLIMIT_ERROR, a stream whose dictionary needs more than `memlimit` bytes. */
static inline lzma_ret hciscope_xz_decoder(lzma_stream *s, uint64_t memlimit) {
    lzma_stream init = LZMA_STREAM_INIT;
    *s = init;
    return lzma_stream_decoder(s, memlimit, LZMA_CONCATENATED);
}
#endif
