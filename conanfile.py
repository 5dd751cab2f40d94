# SPDX-License-Identifier: MIT
# Conan 2 recipe. The C++ library is header-only; the C API (gpurent_c.h, libgpurent_c,
# option `c`, on by default) is a shared library built here with CMake, as the CMake package
# builds it. The package declares the targets that CMake users know: gpurent::gpurent,
# gpurent::io, with -o gpurent/*:c=True (the default) gpurent::c, and with
# -o gpurent/*:probe=True gpurent::probe. With c=False nothing is built: the headers are
# packaged once for every configuration. scripts/check-conan creates it against Debian's
# packages and runs test_package.
import os
import re

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy, load, rmdir
from conan.tools.layout import basic_layout

# cmake_extra_dependencies / cmake_extra_interface_libs (2.30), cpp_info.ignored_requires (2.31).
required_conan_version = ">=2.31"

# Each dependency: Conan package -> (version range, gpurent component that links it, the
# Conan requirement of that component, the CMake package and targets the library's own
# CMakeLists.txt links). The last two serve a dependency that a profile lists under
# [platform_requires] (the system's package, e.g. Debian's): Conan generates no files for
# it, so gpurent's generated config finds it with find_dependency() and links its targets.
_DEPENDENCIES = {
    "boost": ("[>=1.74]", "core", "boost::headers", "Boost", ["Boost::headers"]),
    "date": ("[>=3.0]", "core", "date::date", "date", ["date::date", "date::date-tz"]),
    "fmt": ("[>=9]", "core", "fmt::fmt", "fmt", ["fmt::fmt"]),
    "tl-expected": ("[>=1.0]", "core", "tl-expected::tl-expected", "tl-expected", ["tl::expected"]),
    "nlohmann_json": ("[>=3.10]", "io", "nlohmann_json::nlohmann_json", "nlohmann_json", ["nlohmann_json::nlohmann_json"]),
}


class GpurentConan(ConanFile):
    name = "gpurent"
    description = "Header-only C++20 library for GPU compute rental: exact billing and GPU matching"
    license = "MIT"
    url = "https://github.com/gpurent/gpurent"
    topics = ("gpu", "billing", "scheduling", "bin-packing", "header-only", "c-api")
    package_type = "shared-library"  # header-library with c=False (configure)
    settings = "os", "arch", "compiler", "build_type"
    options = {"probe": [True, False], "c": [True, False]}
    default_options = {"probe": False, "c": True}
    # What the C library's CMake build reads (tests, tools and the rest stay off).
    exports_sources = "CMakeLists.txt", "cmake/*", "c/*", "include/*", "LICENSE"
    no_copy_source = True

    def set_version(self):
        # One version for CMake and Conan: project(gpurent VERSION x.y.z) in CMakeLists.txt.
        cmake = load(self, os.path.join(self.recipe_folder, "CMakeLists.txt"))
        self.version = re.search(r"project\(gpurent\s+VERSION\s+([0-9.]+)", cmake).group(1)

    def configure(self):
        if not self.options.c:
            self.package_type = "header-library"

    def layout(self):
        if self.options.c:
            cmake_layout(self, src_folder=".")
        else:
            basic_layout(self, src_folder=".")

    def requirements(self):
        for name, (versions, *_) in _DEPENDENCIES.items():
            self.requires(f"{name}/{versions}")

    def validate(self):
        check_min_cppstd(self, 20)

    def package_id(self):
        # `probe` only adds a component in package_info. Without the C library the same
        # headers serve every configuration.
        del self.info.options.probe
        if not self.info.options.c:
            self.info.clear()

    def generate(self):
        if not self.options.c:
            return
        CMakeDeps(self).generate()
        tc = CMakeToolchain(self)
        for option in ("TESTS", "TOOLS", "BENCHMARKS", "EXAMPLES"):
            tc.cache_variables[f"GPURENT_BUILD_{option}"] = False
        tc.cache_variables["GPURENT_BUILD_C"] = True
        tc.cache_variables["GPURENT_WITH_PROBE"] = False  # its headers are packaged below
        tc.cache_variables["GPURENT_INSTALL"] = True
        tc.generate()

    def build(self):
        if self.options.c:
            cmake = CMake(self)
            cmake.configure()
            cmake.build()

    def package(self):
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))
        if self.options.c:
            CMake(self).install()  # the library, gpurent_c.h and the headers
            rmdir(self, os.path.join(self.package_folder, "share"))  # Conan writes the config files
        copy(self, "*.hpp", os.path.join(self.source_folder, "include"), os.path.join(self.package_folder, "include"))

    def package_info(self):
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        self.cpp_info.set_property("cmake_file_name", "gpurent")
        if self.options.c:
            # The C library: everything of gpurent compiled in; at run time it also needs
            # the date/tz library (libdate-tz), required below when Conan provides date.
            c = self.cpp_info.components["c"]
            c.set_property("cmake_target_name", "gpurent::c")
            c.libs = ["gpurent_c"]
            c.libdirs = ["lib"]
            c.bindirs = ["bin"]
        # The root target links every component; gpurent::gpurent is the core component alone,
        # as in the CMake package (not io's nlohmann/json, not the probe's CUDA).
        self.cpp_info.set_property("cmake_target_name", "gpurent::all")
        components = {"core": "gpurent::gpurent", "io": "gpurent::io"}
        if self.options.probe:
            components["probe"] = "gpurent::probe"
        for comp, target in components.items():
            self.cpp_info.components[comp].set_property("cmake_target_name", target)
            self.cpp_info.components[comp].bindirs = []
            self.cpp_info.components[comp].libdirs = []
        self.cpp_info.components["io"].requires = ["core"]

        provided = {dep.ref.name for dep in self.dependencies.host.values()}
        found_by_cmake = []  # CMake packages the generated config must find itself
        extra_targets = {comp: [] for comp in components}
        for name, (_, comp, conan_req, cmake_package, cmake_targets) in _DEPENDENCIES.items():
            if name in provided:
                self.cpp_info.components[comp].requires.append(conan_req)
            else:
                found_by_cmake.append(cmake_package)
                extra_targets[comp] += cmake_targets
                self.cpp_info.ignored_requires.append(name)

        if self.options.c and "date" in provided:
            self.cpp_info.components["c"].requires.append("date::date")

        if self.options.probe:
            # The CUDA runtime comes from the CUDA toolkit, never from Conan (as in the
            # CMake package: find_dependency(CUDAToolkit), CUDA::cudart, the dl library).
            probe = self.cpp_info.components["probe"]
            probe.requires = ["core"]
            probe.defines = ["GPURENT_HAS_PROBE=1"]
            probe.system_libs = ["dl"]
            found_by_cmake.append("CUDAToolkit")
            extra_targets["probe"].append("CUDA::cudart")

        self.cpp_info.set_property("cmake_extra_dependencies", found_by_cmake)
        for comp, targets in extra_targets.items():
            if targets:
                self.cpp_info.components[comp].set_property("cmake_extra_interface_libs", targets)
