#ifndef HCISCOPE_CBLUETOOTH_SHIM_H
#define HCISCOPE_CBLUETOOTH_SHIM_H
#include <sys/socket.h>
#include <sys/time.h>
#include <string.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

/* Socket options Swift cannot always import as plain constants (they are macros that depend on
   the time_t width in newer glibc). */
static inline int hciscope_so_timestamp(void) { return SO_TIMESTAMP; }
static inline int hciscope_so_rxq_ovfl(void) { return SO_RXQ_OVFL; }

/* Walks the control messages of a received message (the CMSG_* macros are not importable):
   fills the SO_TIMESTAMP timeval and the SO_RXQ_OVFL drop counter when present.
   Returns a bit set: 1 = timestamp found, 2 = drop counter found. */
static inline int hciscope_parse_cmsgs(struct msghdr *msg, struct timeval *tv, unsigned int *drops) {
    int found = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET) continue;
        if (c->cmsg_type == SO_TIMESTAMP && c->cmsg_len >= CMSG_LEN(sizeof(struct timeval))) {
            memcpy(tv, CMSG_DATA(c), sizeof(struct timeval));
            found |= 1;
        } else if (c->cmsg_type == SO_RXQ_OVFL && c->cmsg_len >= CMSG_LEN(sizeof(unsigned int))) {
            memcpy(drops, CMSG_DATA(c), sizeof(unsigned int));
            found |= 2;
        }
    }
    return found;
}

/* A close-on-exec signalfd for `mask` (sys/signalfd.h is not in Swift's Glibc module). */
static inline int hciscope_signalfd(const sigset_t *mask) { return signalfd(-1, mask, SFD_CLOEXEC); }

/* Binds `fd` to the monitor channel of every controller (HCI_DEV_NONE, HCI_CHANNEL_MONITOR). */
static inline int hciscope_bind_monitor(int fd) {
    struct sockaddr_hci addr;
    memset(&addr, 0, sizeof(addr));
    addr.hci_family = AF_BLUETOOTH;
    addr.hci_dev = HCI_DEV_NONE;
    addr.hci_channel = HCI_CHANNEL_MONITOR;
    return bind(fd, (struct sockaddr *)&addr, sizeof(addr));
}
#endif
