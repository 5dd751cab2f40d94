# SPDX-License-Identifier: MIT
# gpurent with FetchContent (the README's example) from a source archive given as a file://
# URL: no network. The archive holds what a consumer's build reads (CMakeLists.txt, cmake/,
# include/, LICENSE) under one top folder, as a release archive would.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
package_fresh(work fetchcontent)
file(MAKE_DIRECTORY "${work}/gpurent-src")
file(COPY "${SOURCE_DIR}/CMakeLists.txt" "${SOURCE_DIR}/LICENSE" "${SOURCE_DIR}/cmake" "${SOURCE_DIR}/include"
  DESTINATION "${work}/gpurent-src")
package_run("archive the sources" ${CMAKE_COMMAND} -E chdir "${work}" ${CMAKE_COMMAND} -E tar czf gpurent-src.tar.gz gpurent-src)
file(REMOVE_RECURSE "${work}/gpurent-src")
package_consumer("FetchContent" "${work}/build" -S "${SOURCE_DIR}/tests/package/fetchcontent"
  "-DGPURENT_ARCHIVE_URL=file://${work}/gpurent-src.tar.gz")
