# SPDX-License-Identifier: MIT
include(CMakePackageConfigHelpers)
set(GPURENT_CMAKE_DIR "${CMAKE_INSTALL_DATADIR}/cmake/gpurent")
set(_gpurent_targets gpurent gpurent_io)
if(GPURENT_PROBE_ENABLED)
  list(APPEND _gpurent_targets gpurent_probe)
endif()
install(TARGETS ${_gpurent_targets} EXPORT gpurent-targets FILE_SET HEADERS)
install(EXPORT gpurent-targets NAMESPACE gpurent:: DESTINATION "${GPURENT_CMAKE_DIR}")
set(GPURENT_FIND_DEPENDENCIES "")
foreach(_dependency IN LISTS GPURENT_DEPENDENCIES)
  string(APPEND GPURENT_FIND_DEPENDENCIES "find_dependency(${_dependency})\n")
endforeach()
configure_package_config_file(cmake/gpurent-config.cmake.in
  "${PROJECT_BINARY_DIR}/gpurent-config.cmake" INSTALL_DESTINATION "${GPURENT_CMAKE_DIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/gpurent-config-version.cmake"
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/gpurent-config.cmake" "${PROJECT_BINARY_DIR}/gpurent-config-version.cmake"
  DESTINATION "${GPURENT_CMAKE_DIR}")
install(FILES LICENSE DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/gpurent")
if(TARGET gpurent_tool)
  # OPTIONAL: installing without building (the header-only library) skips the tool.
  install(TARGETS gpurent_tool RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" OPTIONAL)
endif()
