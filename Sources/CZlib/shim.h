#ifndef HCISCOPE_CZLIB_SHIM_H
#define HCISCOPE_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro Swift cannot import. windowBits: 15 + 32 detects zlib or gzip
   headers (gzip members), -15 reads raw deflate (zip entries). */
static inline int hciscope_inflate_init(z_stream *s, int window_bits) {
    return inflateInit2(s, window_bits);
}
#endif
