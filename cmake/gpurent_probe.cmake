# SPDX-License-Identifier: MIT
# gpurent::probe: the optional CUDA runtime / NVML probe. It is its own target so that
# gpurent::gpurent never needs CUDA. On by default when the CUDA toolkit is found.
# The toolkit's usual prefix, for machines where nvcc is not on PATH.
if(NOT DEFINED CUDAToolkit_ROOT AND NOT DEFINED ENV{CUDAToolkit_ROOT} AND EXISTS /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
find_package(CUDAToolkit QUIET)
option(GPURENT_WITH_PROBE "Build the CUDA/NVML probe target" ${CUDAToolkit_FOUND})
set(GPURENT_PROBE_ENABLED OFF)
file(GLOB_RECURSE GPURENT_PROBE_HEADERS CONFIGURE_DEPENDS
     RELATIVE "${PROJECT_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}/include/gpurent/probe/*.hpp")
if(GPURENT_WITH_PROBE AND GPURENT_PROBE_HEADERS)
  if(NOT CUDAToolkit_FOUND)
    message(FATAL_ERROR "GPURENT_WITH_PROBE is ON but the CUDA toolkit was not found")
  endif()
  add_library(gpurent_probe INTERFACE)
  add_library(gpurent::probe ALIAS gpurent_probe)
  set_target_properties(gpurent_probe PROPERTIES EXPORT_NAME probe)
  target_sources(gpurent_probe INTERFACE FILE_SET HEADERS BASE_DIRS include FILES ${GPURENT_PROBE_HEADERS})
  target_link_libraries(gpurent_probe INTERFACE gpurent CUDA::cudart ${CMAKE_DL_LIBS})
  target_compile_definitions(gpurent_probe INTERFACE GPURENT_HAS_PROBE=1)
  set(GPURENT_PROBE_ENABLED ON)
endif()
