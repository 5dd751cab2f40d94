// SPDX-License-Identifier: MIT
#pragma once
// A broken internal invariant is a bug, not an input error: it stops the program with
// where and what, in every build type (the checks are cheap and money is at stake).

#include <cstdio>
#include <cstdlib>

#define GPURENT_ASSERT(...)                                                                               \
  do {                                                                                                    \
    if (!(__VA_ARGS__)) [[unlikely]] {                                                                    \
      std::fprintf(stderr, "gpurent: invariant broken at %s:%d: %s\n", __FILE__, __LINE__, #__VA_ARGS__); \
      std::abort();                                                                                       \
    }                                                                                                     \
  } while (false)
