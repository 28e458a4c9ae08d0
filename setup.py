"""Build the optional compiled scan (serreg/codec/_scan.c); everything else is in pyproject.toml.

The extension is optional: if it cannot be compiled, serreg uses the pure-Python scan.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("serreg.codec._scan", ["serreg/codec/_scan.c"], optional=True),
        Extension(
            "serreg.codec._core", ["serreg/codec/_core.c"], optional=True,
            depends=["serreg/codec/_core_encode.h", "serreg/codec/_core_decode.h"],
        ),
    ]
)
