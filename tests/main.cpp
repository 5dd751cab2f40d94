// SPDX-License-Identifier: MIT
// The one doctest main shared by every test binary.
// Both macros: with the precompiled header doctest.h is already in, and its first part (which
// turns IMPLEMENT_WITH_MAIN into IMPLEMENT) is not read again.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
