# SPDX-License-Identifier: MIT
# Conan 2 recipe: `conan create .` builds nothing but installs the headers and the CMake
# package; consumers use gpurent::gpurent (and gpurent::io, gpurent::probe) as with CMake.
import os

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeToolchain, cmake_layout
from conan.tools.files import copy


class GpurentConan(ConanFile):
    name = "gpurent"
    version = "0.1.0"
    description = "Header-only C++20 library for GPU compute rental: exact billing and GPU matching"
    license = "MIT"
    url = "https://github.com/gpurent/gpurent"
    topics = ("gpu", "billing", "scheduling", "bin-packing", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    options = {"probe": [True, False]}
    default_options = {"probe": False}
    exports_sources = "include/*", "cmake/*", "CMakeLists.txt", "LICENSE", "tools/*", "tests/*", "bench/*", "examples/*"
    no_copy_source = True

    def requirements(self):
        self.requires("boost/[>=1.74]", transitive_headers=True)
        self.requires("date/[>=3.0]", transitive_headers=True)
        self.requires("fmt/[>=9]", transitive_headers=True)
        self.requires("tl-expected/[>=1.0]", transitive_headers=True)
        self.requires("nlohmann_json/[>=3.10]", transitive_headers=True)

    def validate(self):
        check_min_cppstd(self, 20)

    def layout(self):
        cmake_layout(self)

    def generate(self):
        tc = CMakeToolchain(self)
        tc.cache_variables["GPURENT_BUILD_TESTS"] = False
        tc.cache_variables["GPURENT_BUILD_BENCHMARKS"] = False
        tc.cache_variables["GPURENT_BUILD_EXAMPLES"] = False
        tc.cache_variables["GPURENT_BUILD_TOOLS"] = False
        tc.cache_variables["GPURENT_WITH_PROBE"] = bool(self.options.probe)
        tc.generate()

    def package(self):
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))
        copy(self, "*.hpp", os.path.join(self.source_folder, "include"), os.path.join(self.package_folder, "include"))

    def package_id(self):
        self.info.clear()

    def package_info(self):
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        self.cpp_info.set_property("cmake_file_name", "gpurent")
        core = self.cpp_info.components["core"]
        core.set_property("cmake_target_name", "gpurent::gpurent")
        core.requires = ["boost::headers", "date::date", "fmt::fmt", "tl-expected::tl-expected"]
        io = self.cpp_info.components["io"]
        io.set_property("cmake_target_name", "gpurent::io")
        io.requires = ["core", "nlohmann_json::nlohmann_json"]
        if self.options.probe:
            probe = self.cpp_info.components["probe"]
            probe.set_property("cmake_target_name", "gpurent::probe")
            probe.requires = ["core"]
            probe.defines = ["GPURENT_HAS_PROBE=1"]
            probe.system_libs = ["dl", "cudart"]
