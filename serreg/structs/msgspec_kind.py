"""msgspec ``Struct`` classes as struct classes: their fields and defaults, from msgspec itself.

msgspec is optional and never imported for a class that is not a Struct: a Struct
exists only once msgspec is loaded, so a class is one if msgspec is in
``sys.modules`` and the class subclasses ``msgspec.Struct``. For one that is,
``msgspec.structs.fields`` gives the fields in msgspec's own order
(``__struct_fields__``: with ``kw_only`` the keyword-only fields come last) with
their defaults and default factories.

Only the fields and their annotations matter to serreg's wire. The settings that
shape msgspec's own encoding (``array_like``, ``omit_defaults``, ``rename``,
``tag``/``tag_field``, ``forbid_unknown_fields``) change nothing in a serreg
frame: every field is written under its attribute name, the class ID names the
class (a tag is not written), and unknown fields are skipped as for every struct
(docs/FORMAT.md, 10.4). ``msgspec.Meta`` constraints in ``Annotated`` are left to
msgspec (checked when msgspec decodes; serreg checks the wire type and width).

An instance is built by calling the class with keyword arguments: msgspec refuses
``object.__new__`` on a Struct, and its decoder, ``msgspec.structs.replace`` and
pickle all build one through its constructor, which is msgspec's own (a Struct
cannot define ``__init__`` or ``__new__``). A ``__post_init__`` therefore runs on
reading, as it does when msgspec decodes; frozen Structs need nothing more.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

__all__ = ["BUILD_BY_CALL", "is_msgspec_struct", "msgspec_fields"]

BUILD_BY_CALL = "call"  # the ClassShape build kind: the class called with keyword arguments


def is_msgspec_struct(cls: type) -> bool:
    """True for a subclass of ``msgspec.Struct``; never imports msgspec (a Struct means it is loaded)."""
    msgspec = sys.modules.get("msgspec")
    return msgspec is not None and isinstance(cls, type) and issubclass(cls, msgspec.Struct)


def msgspec_fields(cls: type) -> list[tuple[str, Any, Any]]:
    """(name, default, factory) of each field of a msgspec Struct, in ``__struct_fields__`` order.

    A missing default or factory is ``dataclasses.MISSING`` (as for the other kinds).
    """
    import msgspec  # loaded already: ``cls`` is a Struct

    def present(value: Any) -> Any:
        return dataclasses.MISSING if value is msgspec.NODEFAULT else value

    return [(f.name, present(f.default), present(f.default_factory)) for f in msgspec.structs.fields(cls)]
