// SPDX-License-Identifier: Apache-2.0
/* COSID_EXPORT: marks the library's public API so a shared build exports it and nothing else.
 *
 * The library is compiled with hidden visibility by default (see CMakeLists.txt); every public
 * class and free function is marked COSID_EXPORT. On ELF, users of the library need no import
 * attribute, so the macro is the same on both sides. Plain C preprocessor: c.h includes it too.
 *
 * Thread safety: not applicable (a macro). */
#ifndef COSID_EXPORT_H_
#define COSID_EXPORT_H_

#if defined(__GNUC__) || defined(__clang__)
#define COSID_EXPORT __attribute__((visibility("default")))
#else
#define COSID_EXPORT
#endif

/* COSID_NO_EXPORT: for the library's sources only, on a class nested in an exported one (such as a
 * pimpl), or a private member function whose types are the library's own, which would otherwise
 * inherit the enclosing class's visibility. */
#if defined(__GNUC__) || defined(__clang__)
#define COSID_NO_EXPORT __attribute__((visibility("hidden")))
#else
#define COSID_NO_EXPORT
#endif

#endif /* COSID_EXPORT_H_ */
