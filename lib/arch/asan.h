/* SPDX-License-Identifier: MIT */
/*
 * asan.h - ACT_ASAN, defined when the build has AddressSanitizer
 * (-fsanitize=address): gcc says __SANITIZE_ADDRESS__, clang
 * __has_feature(address_sanitizer). One test for arch/ctx.h's fiber
 * switches and base/internal.h's poisoning.
 */
#ifndef ACT_ASAN_H
#define ACT_ASAN_H

#ifndef ACT_ASAN
#if defined(__SANITIZE_ADDRESS__)
#define ACT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ACT_ASAN 1
#endif
#endif
#endif

#endif /* ACT_ASAN_H */
