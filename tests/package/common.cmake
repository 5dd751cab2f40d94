# SPDX-License-Identifier: MIT
# Shared by the package tests (cmake -P scripts). Every command runs as a user would type it,
# from the source tree, with the suite's generator and compiler in the environment
# (CMAKE_GENERATOR, CXX, CC), so the commands themselves are the README's.
cmake_minimum_required(VERSION 3.25)
set(ENV{CMAKE_GENERATOR} "${GENERATOR}")
set(ENV{CXX} "${CXX}")
if(CC)  # the C compiler, where the suite has one (the C API's consumer)
  set(ENV{CC} "${CC}")
endif()

# package_run(<what> <command...>): runs the command; fails the test naming the step.
# The output is left in package_output.
function(package_run what)
  string(REPLACE ";" " " shown "${ARGN}")
  message(STATUS "${what}: ${shown}")
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${SOURCE_DIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  set(package_output "${out}" PARENT_SCOPE)
endfunction()

# package_fresh(<var> <name>): an empty scratch folder for this test, in <var>.
function(package_fresh var name)
  set(dir "${BINARY_DIR}/package-test/${name}")
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  set(${var} "${dir}" PARENT_SCOPE)
endfunction()

# package_consumer(<what> <build dir> [cmake args...]): builds and runs a consumer project.
function(package_consumer what build)
  package_run("${what}: configure" ${CMAKE_COMMAND} ${ARGN} -B "${build}" -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
  package_run("${what}: build" ${CMAKE_COMMAND} --build "${build}")
  file(GLOB exe "${build}/app" "${build}/consumer")
  package_run("${what}: run" ${exe})
  message(STATUS "${what}: the consumer said: ${package_output}")
endfunction()
