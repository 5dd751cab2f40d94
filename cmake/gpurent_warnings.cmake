# SPDX-License-Identifier: MIT
# Warnings for the project's own binaries; errors only when gpurent is the top-level project,
# so a consumer's newer compiler never breaks their build on our account.
add_library(gpurent_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(gpurent_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 reports std::string concatenation as overlapping memcpy (GCC bug 105651).
    target_compile_options(gpurent_warnings INTERFACE -Wno-restrict)
  endif()
  # Not under the sanitizers: GCC 12's UBSan instrumentation makes -Wsign-conversion report
  # conversions it inserts itself (e.g. around shifts); the plain build keeps warnings errors.
  if(PROJECT_IS_TOP_LEVEL AND NOT GPURENT_SANITIZE)
    target_compile_options(gpurent_warnings INTERFACE -Werror)
  endif()
endif()

add_library(gpurent_sanitize INTERFACE)
if(GPURENT_SANITIZE)
  target_compile_options(gpurent_sanitize INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(gpurent_sanitize INTERFACE -fsanitize=address,undefined)
endif()
