#ifndef HCISCOPE_BUILD_INFO_H
#define HCISCOPE_BUILD_INFO_H
/* The git commit the binary was built from (Package.swift passes it as HCISCOPE_COMMIT):
   12 hex digits, "-dirty" when the tree had uncommitted changes, or "unknown". */
const char *hciscope_build_commit(void);
#endif
