// SPDX-License-Identifier: MIT
// Intentionally empty: a source of gpurent_test_main that is compiled with the precompiled
// header, which the layer binaries reuse (CMake needs the donor target to use it itself).
