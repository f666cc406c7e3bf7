// cosid-cpp version. The single source of truth: CMakeLists.txt reads these three lines.
#ifndef COSID_VERSION_H_
#define COSID_VERSION_H_

#define COSID_VERSION_MAJOR 0
#define COSID_VERSION_MINOR 5
#define COSID_VERSION_PATCH 0

#endif  // COSID_VERSION_H_
