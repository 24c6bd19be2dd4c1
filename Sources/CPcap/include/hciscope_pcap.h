#ifndef HCISCOPE_PCAP_H
#define HCISCOPE_PCAP_H
#include <pcap/pcap.h>
#include <stdio.h>

/* On Linux hciscope does not link libpcap: it loads it the first time a pcap function is called
   (pcap.c), so the commands that never touch pcap (analyze of a btsnoop or .pklg file, show,
   rules, ...) do not pay for mapping libpcap and the libraries it pulls in (D-Bus, systemd,
   gcrypt, ...: 7 shared libraries in all) at every start. The pcap_* functions below are declared by
   <pcap/pcap.h> as usual; on Linux, pcap.c defines the ones hciscope calls.

   Returns why libpcap could not be loaded, or NULL when it is loaded (or linked, on macOS).
   The functions that open a handle report the same text in their error buffer and return NULL;
   the others are only reachable with a handle. */
const char *hciscope_pcap_load_error(void);
#endif
