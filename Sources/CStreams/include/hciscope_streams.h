#ifndef HCISCOPE_STREAMS_H
#define HCISCOPE_STREAMS_H
#include <stdio.h>
#include <sys/types.h>

/* A read-only C stream whose bytes come from callbacks (fopencookie on Linux, funopen on
   macOS): libpcap and the buffered reader read decompressed data and archive members through
   it like any file. `read` returns the bytes copied (0 at the end, -1 on error); `close`
   releases `context`. */
typedef long (*hciscope_read_fn)(void *context, char *buffer, size_t size);
typedef void (*hciscope_close_fn)(void *context);

FILE *hciscope_open_read_stream(void *context, hciscope_read_fn read, hciscope_close_fn close);
#endif
