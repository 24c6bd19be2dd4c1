#ifndef HCISCOPE_CLZMA_SHIM_H
#define HCISCOPE_CLZMA_SHIM_H
#include <lzma.h>

/* LZMA_STREAM_INIT is a macro. A decoder for .xz (and concatenated .xz streams), without a
   memory limit worth hitting for captures. */
static inline lzma_ret hciscope_xz_decoder(lzma_stream *s) {
    lzma_stream init = LZMA_STREAM_INIT;
    *s = init;
    return lzma_stream_decoder(s, UINT64_MAX, LZMA_CONCATENATED);
}
#endif
