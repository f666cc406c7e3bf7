// SPDX-License-Identifier: Apache-2.0
// Build configuration shared by every public header.
//
// COSID_HAS_EXCEPTIONS is 1 when the translation unit is compiled with C++ exceptions. Throwing
// overloads exist only then: under -fno-exceptions they are not declared at all, so calling one is
// a compile error rather than an abort at run time.
#ifndef COSID_CONFIG_H_
#define COSID_CONFIG_H_

#if !defined(COSID_HAS_EXCEPTIONS)
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define COSID_HAS_EXCEPTIONS 1
#else
#define COSID_HAS_EXCEPTIONS 0
#endif
#endif

#endif  // COSID_CONFIG_H_
