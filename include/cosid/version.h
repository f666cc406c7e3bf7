// SPDX-License-Identifier: Apache-2.0
// cosid-cpp version. The single source of truth: CMakeLists.txt reads these three lines.
#ifndef COSID_VERSION_H_
#define COSID_VERSION_H_

#define COSID_VERSION_MAJOR 0
#define COSID_VERSION_MINOR 6
#define COSID_VERSION_PATCH 0
// The day this version was released, as YYYY-MM-DD: the date of the manual page (cosid help
// --man), a constant rather than the build's time so that two builds of one version are the
// same. Update it with the version.
#define COSID_RELEASE_DATE "2026-12-02"

#endif  // COSID_VERSION_H_
