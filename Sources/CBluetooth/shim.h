#ifndef HCISCOPE_CBLUETOOTH_SHIM_H
#define HCISCOPE_CBLUETOOTH_SHIM_H
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#endif
