# SPDX-License-Identifier: MIT
# gpurent vendored with add_subdirectory (the README's example).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
package_fresh(work subdirectory)
package_consumer("add_subdirectory" "${work}/build" -S "${SOURCE_DIR}/tests/package/subdir" "-DGPURENT_SOURCE_DIR=${SOURCE_DIR}")
