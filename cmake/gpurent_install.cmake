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
# With the C library the package holds a binary, which only fits its own architecture.
if(TARGET gpurent_c)
  set(_gpurent_arch "")
else()
  set(_gpurent_arch ARCH_INDEPENDENT)
endif()
write_basic_package_version_file("${PROJECT_BINARY_DIR}/gpurent-config-version.cmake"
  COMPATIBILITY SameMinorVersion ${_gpurent_arch})
install(FILES "${PROJECT_BINARY_DIR}/gpurent-config.cmake" "${PROJECT_BINARY_DIR}/gpurent-config-version.cmake"
  DESTINATION "${GPURENT_CMAKE_DIR}")
install(FILES LICENSE DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/gpurent")
if(TARGET gpurent_tool)
  # OPTIONAL: installing without building (the header-only library) skips the tool.
  install(TARGETS gpurent_tool RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" OPTIONAL)
endif()
if(TARGET gpurent_c)
  # The C library in an export set of its own, which gpurent-config.cmake includes when it is
  # there: installing without building (the header-only library, as README shows) must still
  # give a package that finds, so the C library's files are removed again when it was never
  # built (the tool's OPTIONAL install, for a library and its targets file).
  install(TARGETS gpurent_c EXPORT gpurent-c-targets OPTIONAL
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" FILE_SET HEADERS)
  install(EXPORT gpurent-c-targets NAMESPACE gpurent:: DESTINATION "${GPURENT_CMAKE_DIR}")
  install(CODE "
    if(NOT EXISTS \"$<TARGET_FILE:gpurent_c>\")
      message(STATUS \"gpurent_c was not built: the package goes without gpurent::c\")
      file(GLOB _gpurent_c_files \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${GPURENT_CMAKE_DIR}/gpurent-c-targets*.cmake\")
      file(REMOVE \${_gpurent_c_files} \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_INCLUDEDIR}/gpurent_c.h\")
    endif()")
endif()
