#include "hciscope_pcap.h"

#ifdef __linux__
#include <dlfcn.h>
#include <pthread.h>

/* libpcap, loaded on first use (see hciscope_pcap.h), by its soname: libpcap.so.0.8 on Debian
   and Ubuntu, libpcap.so.1 elsewhere; the bare name only exists with the -dev package. */
static void *library;
static char load_error[PCAP_ERRBUF_SIZE];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    static const char *const names[] = {"libpcap.so.0.8", "libpcap.so.1", "libpcap.so"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && library == NULL; i++)
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(load_error, sizeof(load_error),
                 "could not be loaded (tried libpcap.so.0.8, libpcap.so.1, libpcap.so; last: %s); "
                 "install libpcap (Debian: libpcap0.8)",
                 why ? why : "not found");
    }
}

const char *hciscope_pcap_load_error(void) {
    pthread_once(&load_once, load);
    return library == NULL ? load_error : NULL;
}

/* The address of libpcap's `name`, or NULL when libpcap could not be loaded. */
static void *resolve(const char *name) {
    if (hciscope_pcap_load_error() != NULL) return NULL;
    return dlsym(library, name);
}

/* Each function looks its libpcap counterpart up once; the definitions are hidden so libpcap's
   own calls between its functions never land here. */
#define FORWARD(ret, name, params, args)                                                          \
    __attribute__((visibility("hidden"))) ret name params {                                       \
        static ret(*target) params;                                                               \
        ret(*fn) params = __atomic_load_n(&target, __ATOMIC_ACQUIRE);                             \
        if (fn == NULL) {                                                                         \
            fn = (ret(*) params)resolve(#name);                                                   \
            __atomic_store_n(&target, fn, __ATOMIC_RELEASE);                                      \
        }                                                                                         \
        return fn args;                                                                           \
    }

/* Functions that open a handle: when libpcap is missing they fail as libpcap would, with the
   reason in `errbuf`. */
#define FORWARD_OPEN(name, params, args, errbuf)                                                  \
    __attribute__((visibility("hidden"))) pcap_t *name params {                                   \
        static pcap_t *(*target) params;                                                          \
        pcap_t *(*fn) params = __atomic_load_n(&target, __ATOMIC_ACQUIRE);                        \
        if (fn == NULL) {                                                                         \
            fn = (pcap_t * (*) params) resolve(#name);                                            \
            if (fn == NULL) {                                                                     \
                const char *why = hciscope_pcap_load_error();                                     \
                snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s", why ? why : "libpcap lacks " #name);     \
                return NULL;                                                                      \
            }                                                                                     \
            __atomic_store_n(&target, fn, __ATOMIC_RELEASE);                                      \
        }                                                                                         \
        return fn args;                                                                           \
    }

FORWARD_OPEN(pcap_open_offline_with_tstamp_precision, (const char *fname, u_int precision, char *errbuf),
             (fname, precision, errbuf), errbuf)
FORWARD_OPEN(pcap_fopen_offline_with_tstamp_precision, (FILE *fp, u_int precision, char *errbuf),
             (fp, precision, errbuf), errbuf)
FORWARD_OPEN(pcap_create, (const char *source, char *errbuf), (source, errbuf), errbuf)

/* No error buffer: NULL, and the caller asks hciscope_pcap_load_error() why. */
__attribute__((visibility("hidden"))) pcap_t *pcap_open_dead_with_tstamp_precision(int linktype, int snaplen,
                                                                                   u_int precision) {
    pcap_t *(*fn)(int, int, u_int) = (pcap_t * (*)(int, int, u_int)) resolve("pcap_open_dead_with_tstamp_precision");
    return fn ? fn(linktype, snaplen, precision) : NULL;
}

FORWARD(void, pcap_close, (pcap_t *p), (p))
FORWARD(int, pcap_datalink, (pcap_t *p), (p))
FORWARD(FILE *, pcap_file, (pcap_t *p), (p))
FORWARD(char *, pcap_geterr, (pcap_t *p), (p))
FORWARD(int, pcap_next_ex, (pcap_t *p, struct pcap_pkthdr **header, const u_char **data), (p, header, data))
FORWARD(pcap_dumper_t *, pcap_dump_fopen, (pcap_t *p, FILE *fp), (p, fp))
FORWARD(void, pcap_dump, (u_char *user, const struct pcap_pkthdr *header, const u_char *data), (user, header, data))
FORWARD(FILE *, pcap_dump_file, (pcap_dumper_t *d), (d))
FORWARD(int, pcap_dump_flush, (pcap_dumper_t *d), (d))
FORWARD(void, pcap_dump_close, (pcap_dumper_t *d), (d))
FORWARD(int, pcap_set_snaplen, (pcap_t *p, int snaplen), (p, snaplen))
FORWARD(int, pcap_set_timeout, (pcap_t *p, int ms), (p, ms))
FORWARD(int, pcap_set_immediate_mode, (pcap_t *p, int on), (p, on))
FORWARD(int, pcap_set_tstamp_precision, (pcap_t *p, int precision), (p, precision))
FORWARD(int, pcap_activate, (pcap_t *p), (p))
FORWARD(int, pcap_setnonblock, (pcap_t *p, int nonblock, char *errbuf), (p, nonblock, errbuf))
FORWARD(int, pcap_get_selectable_fd, (pcap_t *p), (p))
FORWARD(int, pcap_stats, (pcap_t *p, struct pcap_stat *stats), (p, stats))

#else
/* macOS links libpcap (Package.swift): it is in the shared cache and costs nothing to load. */
const char *hciscope_pcap_load_error(void) { return NULL; }
#endif
