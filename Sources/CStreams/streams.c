#define _GNU_SOURCE
#include "hciscope_streams.h"
#include <stdlib.h>

struct hciscope_cookie {
    void *context;
    hciscope_read_fn read;
    hciscope_close_fn close;
};

#if defined(__APPLE__) || defined(__FreeBSD__)
static int cookie_read(void *cookie, char *buffer, int size) {
    struct hciscope_cookie *c = cookie;
    long n = c->read(c->context, buffer, (size_t)size);
    return n < 0 ? -1 : (int)n;
}
static int cookie_close(void *cookie) {
    struct hciscope_cookie *c = cookie;
    c->close(c->context);
    free(c);
    return 0;
}
FILE *hciscope_open_read_stream(void *context, hciscope_read_fn read, hciscope_close_fn close) {
    struct hciscope_cookie *c = malloc(sizeof *c);
    if (!c) return NULL;
    c->context = context; c->read = read; c->close = close;
    FILE *f = funopen(c, cookie_read, NULL, NULL, cookie_close);
    if (!f) free(c);
    return f;
}
#else
static ssize_t cookie_read(void *cookie, char *buffer, size_t size) {
    struct hciscope_cookie *c = cookie;
    long n = c->read(c->context, buffer, size);
    return n < 0 ? -1 : (ssize_t)n;
}
static int cookie_close(void *cookie) {
    struct hciscope_cookie *c = cookie;
    c->close(c->context);
    free(c);
    return 0;
}
FILE *hciscope_open_read_stream(void *context, hciscope_read_fn read, hciscope_close_fn close) {
    struct hciscope_cookie *c = malloc(sizeof *c);
    if (!c) return NULL;
    c->context = context; c->read = read; c->close = close;
    cookie_io_functions_t functions = { cookie_read, NULL, NULL, cookie_close };
    FILE *f = fopencookie(c, "rb", functions);
    if (!f) free(c);
    return f;
}
#endif
