"""Ahead-of-time build of the LLTM extension: python setup.py build_ext --inplace"""

from setuptools import setup

from ember.utils.cpp_extension import BuildExtension, CppExtension

setup(
    name="lltm_cpp",
    ext_modules=[CppExtension("lltm_cpp", ["lltm.cpp"])],
    cmdclass={"build_ext": BuildExtension},
)
