#ifndef HCISCOPE_CBZIP2_SHIM_H
#define HCISCOPE_CBZIP2_SHIM_H
#include <stdio.h>
#include <bzlib.h>
#endif
