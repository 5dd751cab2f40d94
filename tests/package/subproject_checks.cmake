# SPDX-License-Identifier: MIT
# gpurent as a subproject (add_subdirectory, FetchContent): everything but the library is off.
foreach(opt GPURENT_BUILD_TESTS GPURENT_BUILD_C GPURENT_BUILD_TOOLS GPURENT_BUILD_BENCHMARKS GPURENT_BUILD_EXAMPLES GPURENT_INSTALL GPURENT_WERROR)
  if(${opt})
    message(FATAL_ERROR "${opt} is on in a subproject; it must default to off")
  endif()
endforeach()
