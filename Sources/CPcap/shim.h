#ifndef HCISCOPE_CPCAP_SHIM_H
#define HCISCOPE_CPCAP_SHIM_H
#include <pcap/pcap.h>
#include <stdio.h>
#endif
