#include "hciscope_build_info.h"

#ifndef HCISCOPE_COMMIT
#define HCISCOPE_COMMIT "unknown"
#endif

const char *hciscope_build_commit(void) { return HCISCOPE_COMMIT; }
