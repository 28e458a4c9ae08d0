"""Build the optional compiled parts (serreg/codec/_core.c, _scan.c, serreg/wire/_frame.c,
serreg/implicit/_walk.c);
everything else is in pyproject.toml.

The extensions are optional: if they cannot be compiled, serreg uses their pure-Python twins
(and says so once, at import).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("serreg.codec._scan", ["serreg/codec/_scan.c"], optional=True),
        Extension(
            "serreg.wire._frame", ["serreg/wire/_frame.c"], optional=True, depends=["serreg/wire/_frame_layout.h", "serreg/wire/_frame_result.h"]
        ),
        Extension(
            "serreg.implicit._walk", ["serreg/implicit/_walk.c"], optional=True,
            depends=["serreg/implicit/_walk_core.h"],
        ),
        Extension(
            "serreg.codec._core", ["serreg/codec/_core.c"], optional=True,
            depends=[
                "serreg/codec/_core_encode.h", "serreg/codec/_core_decode.h", "serreg/codec/_core_top.h",
                "serreg/codec/_core_entry.h", "serreg/codec/_core_top_setup.h", "serreg/codec/_core_lean.h",
                "serreg/codec/_core_keys.h", "serreg/codec/_core_types.h", "serreg/codec/_core_structs.h",
                "serreg/codec/_core_structs_encode.h",
                "serreg/codec/_core_structs_decode.h", "serreg/codec/_core_structs_list_encode.h",
                "serreg/codec/_core_structs_list_decode.h", "serreg/codec/_core_structs_top.h",
                "serreg/codec/_core_walk.h",
                "serreg/codec/_core_decode_state.h", "serreg/codec/_core_decode_values.h",
                "serreg/codec/_core_decode_calls.h", "serreg/codec/_core_decode_scalars.h", "serreg/codec/_core_decode_refuse.h",
                "serreg/codec/_core_decode_refuse_lists.h",
                "serreg/codec/_core_unpack.h", "serreg/codec/_core_encode_state.h",
                "serreg/codec/_core_encode_calls.h", "serreg/codec/_core_encode_leaves.h",
                "serreg/codec/_core_pack.h", "serreg/codec/_core_structs_scope.h",
                "serreg/codec/_core_structs_put.h", "serreg/codec/_core_out.h", "serreg/codec/_core_dict_layout.h",
                "serreg/codec/_core_top_value.h", "serreg/codec/_core_top_value_setup.h",
                "serreg/wire/_frame_layout.h", "serreg/implicit/_walk_core.h", "serreg/codec/_core_implicit_top.h",
                "serreg/codec/_core_implicit_class.h", "serreg/codec/_core_implicit_build.h", "serreg/codec/_core_tables.h",
                "serreg/codec/_core_stack.h", "serreg/codec/_core_copy.h", "serreg/codec/_stream_copy.h",
            ],
        ),
    ]
)
