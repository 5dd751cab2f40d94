# SPDX-License-Identifier: MIT
# Warnings for the project's own binaries. They are errors with GPURENT_WERROR, which is on
# only when gpurent is the top-level project: a consumer's newer compiler never breaks their
# build on our account (and a user can turn it off: -DGPURENT_WERROR=OFF).
add_library(gpurent_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(gpurent_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 reports std::string concatenation as overlapping memcpy (GCC bug 105651), and at
    # -O3 the same inlined libstdc++ code as a memcpy beyond the largest object or past the
    # 32 bytes of a std::string (-Wstringop-overflow, -Warray-bounds): a Release build of the
    # tests, examples and benchmarks failed in 11 files on these, most of them inlined from
    # string concatenations in our headers. AddressSanitizer checks the real bounds in CI.
    target_compile_options(gpurent_warnings INTERFACE -Wno-restrict -Wno-stringop-overflow -Wno-array-bounds)
  endif()
  if(GPURENT_WERROR)
    target_compile_options(gpurent_warnings INTERFACE -Werror)
  endif()
endif()

add_library(gpurent_sanitize INTERFACE)
if(GPURENT_SANITIZE)
  target_compile_options(gpurent_sanitize INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12's null checks (-fsanitize=null and the nonnull-attribute pair) make
    # `&object != nullptr` non-constant, which breaks the catalog's static_asserts;
    # AddressSanitizer still reports any null dereference. Its instrumentation also trips
    # -Wsign-conversion on conversions it inserts itself.
    target_compile_options(gpurent_sanitize INTERFACE -fno-sanitize=null,nonnull-attribute,returns-nonnull-attribute
                                                      -Wno-sign-conversion)
  endif()
  target_link_options(gpurent_sanitize INTERFACE -fsanitize=address,undefined)
endif()
