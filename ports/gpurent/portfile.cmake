# SPDX-License-Identifier: MIT
# Overlay port: builds the package from this source tree (vcpkg install gpurent
# --overlay-ports=ports). A registry port would use vcpkg_from_github instead.
set(VCPKG_BUILD_TYPE release)  # header-only: one configuration is enough
get_filename_component(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)

vcpkg_check_features(OUT_FEATURE_OPTIONS FEATURE_OPTIONS FEATURES probe GPURENT_WITH_PROBE)

vcpkg_cmake_configure(
  SOURCE_PATH "${SOURCE_PATH}"
  OPTIONS
    ${FEATURE_OPTIONS}
    -DGPURENT_BUILD_TESTS=OFF
    -DGPURENT_BUILD_BENCHMARKS=OFF
    -DGPURENT_BUILD_EXAMPLES=OFF
    -DGPURENT_BUILD_TOOLS=OFF
    -DGPURENT_BUILD_C=OFF  # the C library is compiled: this port stays header-only
    -DGPURENT_INSTALL=ON
)
vcpkg_cmake_install()
vcpkg_cmake_config_fixup(PACKAGE_NAME gpurent CONFIG_PATH share/cmake/gpurent)
file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}/lib" "${CURRENT_PACKAGES_DIR}/share/doc")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
