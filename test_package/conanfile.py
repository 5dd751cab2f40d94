# SPDX-License-Identifier: MIT
# Run by `conan create .`: builds tests/package/consumer.cpp (and, with the C library,
# tests/package/consumer.c) against the created package (find_package(gpurent) through
# Conan's generated files) and runs them.
import os

from conan import ConanFile
from conan.tools.build import can_run
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout


class GpurentTestConan(ConanFile):
    settings = "os", "arch", "compiler", "build_type"

    def requirements(self):
        self.requires(self.tested_reference_str)

    def layout(self):
        cmake_layout(self)

    def generate(self):
        CMakeDeps(self).generate()
        tc = CMakeToolchain(self)
        tc.cache_variables["GPURENT_EXPECT_PROBE"] = bool(self.dependencies["gpurent"].options.probe)
        tc.cache_variables["GPURENT_EXPECT_C"] = bool(self.dependencies["gpurent"].options.c)
        tc.generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def test(self):
        if can_run(self):
            self.run(os.path.join(self.cpp.build.bindir, "consumer"), env="conanrun")
            if self.dependencies["gpurent"].options.c:
                self.run(os.path.join(self.cpp.build.bindir, "c_consumer"), env="conanrun")
