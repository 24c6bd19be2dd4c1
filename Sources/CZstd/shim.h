#ifndef HCISCOPE_CZSTD_SHIM_H
#define HCISCOPE_CZSTD_SHIM_H
#include <zstd.h>
#include <zstd_errors.h>
#endif
