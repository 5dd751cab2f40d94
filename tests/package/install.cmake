# SPDX-License-Identifier: MIT
# The README's installation, as a new user runs it: the header-only library installed
# without building anything, then a downstream project against the installed package only.
# Then the defaults: installing without building skips the tool and the C library; once built
# both are installed, and a C program builds against gpurent::c from the package.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
package_fresh(work install)
set(prefix "${work}/prefix")

package_run("README: configure" ${CMAKE_COMMAND} -S . -B "${work}/build" -DGPURENT_BUILD_TOOLS=OFF
  -DGPURENT_BUILD_TESTS=OFF -DGPURENT_BUILD_BENCHMARKS=OFF -DGPURENT_BUILD_EXAMPLES=OFF)
package_run("README: install" ${CMAKE_COMMAND} --install "${work}/build" --prefix "${prefix}")
if(NOT EXISTS "${prefix}/share/cmake/gpurent/gpurent-config.cmake" OR NOT EXISTS "${prefix}/include/gpurent/gpurent.hpp")
  message(FATAL_ERROR "the install lacks gpurent-config.cmake or the headers")
endif()
if(EXISTS "${prefix}/include/gpurent_c.h" OR EXISTS "${prefix}/share/cmake/gpurent/gpurent-c-targets.cmake")
  message(FATAL_ERROR "installed without building: expected no C library, header or targets")
endif()
package_consumer("README: consumer" "${work}/app" -S "${SOURCE_DIR}/tests/package/consumer" "-DCMAKE_PREFIX_PATH=${prefix}")

# The default options, installed without building: the library, not the tool.
package_run("defaults: configure" ${CMAKE_COMMAND} -S . -B "${work}/defaults")
package_run("defaults: install without building" ${CMAKE_COMMAND} --install "${work}/defaults" --prefix "${work}/defaults-prefix")
if(NOT EXISTS "${work}/defaults-prefix/share/cmake/gpurent/gpurent-config.cmake" OR EXISTS "${work}/defaults-prefix/bin/gpurent")
  message(FATAL_ERROR "installing an unbuilt default build: expected the package without the tool")
endif()

# A built tree (this suite's) installs the tool and the C library too.
package_run("built: install" ${CMAKE_COMMAND} --install "${BINARY_DIR}" --prefix "${work}/built-prefix")
package_run("built: the installed tool runs" "${work}/built-prefix/bin/gpurent" --help)
if(C_API)
  # docs/c.md: a C11 program (-Wall -Werror) against gpurent::c of the installed package.
  package_consumer("C consumer" "${work}/c-app" -S "${SOURCE_DIR}/tests/package/c_consumer" "-DCMAKE_PREFIX_PATH=${work}/built-prefix"
    "-DGPURENT_SOURCE_DIR=${SOURCE_DIR}")
endif()
