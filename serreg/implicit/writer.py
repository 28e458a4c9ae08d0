"""Write a value with implicit structs instead of pickling it whole (docs/FORMAT.md 10.9).

:class:`ImplicitWriter` is asked by the registry's encoder where the value
would be pickled whole. It walks the value (:mod:`.walk`; the registry's
lookup classifies each new type once per registry state), and if no object is
shared and every object is native, registered or plain, writes it with the
codec reading :class:`~serreg.structs.scope.ImplicitTables` (the implicit
classes' writers added to the registry's), in a struct table of its own. The
answer is the frame's (ClassIDHash, in-band, buffers), or None: the caller
pickles the value as it always did.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ..codec.layout import array_header
from ..structs.columns import bin_header
from ..structs.scope import ENCODE_SCOPE, IMPLICIT_TABLES, EncodeScope, ImplicitTables
from ..structs.serializers import ext_payload
from ..wire.class_id import class_id_hash
from .class_pickles import ClassPickles
from .classes import PYOBJECTS_CLASS_ID, qualifies
from .schema import Abandon, ImplicitSchema
from .walk import GIVE_UP, LEAF, OK, PLAIN, REFUSE, walk

__all__ = ["ImplicitSchemas", "ImplicitWriter"]

_CACHE_MAX = 1024
_PYOBJECTS_HASH = class_id_hash(PYOBJECTS_CLASS_ID)
_MAX_CLASSIFIED = 64  # new types classified in one walk before it gives up
_new_scope = object.__new__


class ImplicitSchemas:
    """The implicit schemas of one registry, by (class, field names): a bounded cache, replaced whole."""

    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx
        self._schemas: dict[tuple[type, tuple[str, ...]], ImplicitSchema] = {}

    def get(self, cls: type, names: tuple[str, ...]) -> ImplicitSchema:
        schema = self._schemas.get((cls, names))
        if schema is None:
            schema = ImplicitSchema(cls, names, self._ctx)
            schemas = {} if len(self._schemas) >= _CACHE_MAX else dict(self._schemas)
            schemas[(cls, names)] = schema
            self._schemas = schemas
        return schema


class _Plan:
    """The schemas and tables for the plain classes one walk found; with one class, its pickle's
    frame head (bin header, pickle, ClassIDHash("serreg.structs"), table) once made."""

    __slots__ = ("snapshot", "found", "schemas", "tables", "only", "by_key", "classes", "head")

    def __init__(self, snapshot: Any, found: dict[type, tuple[str, ...]], schemas: dict[type, ImplicitSchema],
                 tables: ImplicitTables) -> None:
        self.snapshot = snapshot
        self.found = found
        self.schemas = schemas
        self.tables = tables
        self.only = next(iter(schemas.values())) if len(schemas) == 1 else None
        self.by_key = {s.key: cls for cls, s in schemas.items()}
        self.classes = tuple(schemas)
        self.head: Optional[tuple[bytes, bytes]] = None


class ImplicitWriter:
    """Implicit structs for one registry.

    ``snapshot()``: the registry's tables now; ``registration_for(value)``: its lookup;
    ``pack(obj, oob)``: its codec; ``by_value_modules()``: the modules whose classes cloudpickle
    writes by value (besides ``__main__``'s).
    """

    def __init__(self, snapshot: Callable[[], Any], registration_for: Callable[[Any], Any],
                 pack: Callable[[Any, list[Any]], bytes], schemas: ImplicitSchemas, structs_hash: bytes,
                 by_value_modules: Callable[[], Any]) -> None:
        self._snapshot = snapshot
        self._registration_for = registration_for
        self._pack = pack
        self.schemas = schemas
        self.structs_hash = structs_hash
        self._kinds: tuple[Any, dict[type, int]] = (None, {})
        self._pickles = ClassPickles(by_value_modules)
        self._last_tables: tuple[Any, Any, Any] = (None, None, None)  # (snapshot, schemas, their ImplicitTables)
        self._last_plan: Optional[_Plan] = None
        self._stops: tuple[Any, tuple[type[BaseException], ...]] = ((), ())  # (give_up, what the attempt catches)
        # What the last attempt wrote a top-level instance of its one class with, else None: (class, the
        # registry snapshot, its compiled plan, the walk's kinds, the frame head, the class pickle checked by name).
        self.last_top: Optional[tuple[type, Any, Any, dict[type, int], bytes, bool]] = None

    def attempt(self, obj: Any, write_value: Callable[[Any, Any], Optional[tuple[Any, ...]]], whole: Any,
                pickle_classes: Callable[[tuple[type, ...]], tuple[Any, list[Any]]],
                give_up: tuple[type[BaseException], ...]) -> Optional[tuple[bytes, bytes, list[Any]]]:
        """The frame's (ClassIDHash, in-band, buffers) with implicit structs, or None (pickle it).

        ``write_value(obj, whole)``: the value's (ClassIDHash, in-band, buffers) as the encoder writes
        it (None: the fallback ``whole``'s); ``give_up``: what it raises when it meets a value only the
        fallback takes.
        """
        # The common case inline (every type known, the plan of the last value): no Python call
        # before the codec's but the walk's.
        self.last_top = None
        snapshot = self._snapshot()
        cached_for, kinds = self._kinds
        found: Any = None
        if cached_for is snapshot:
            status, found = walk(obj, kinds)
            if status == GIVE_UP:
                return None
            if status != OK:
                found = self._walk(obj)
        else:
            found = self._walk(obj)
        if not found:
            return None
        plan = self._last_plan
        if plan is None or plan.snapshot is not snapshot or plan.found != found:
            plan = self._plan_for(found)
        schemas, tables, only = plan.schemas, plan.tables, plan.only
        stops = self._stops
        if stops[0] is not give_up:
            stops = self._stops = (give_up, (Abandon, Exception, *give_up))
        scope = _new_scope(EncodeScope)  # its __init__'s work, without the call
        if only is not None:  # one definition: it is the first used, whatever the order the codec meets things in
            scope.index = {only.key: 0}
            scope.definitions = [only.definition]
        else:
            scope.index = {}
            scope.definitions = []
        scope_token = ENCODE_SCOPE.set(scope)
        tables_token = IMPLICIT_TABLES.set(tables)
        top: Optional[ImplicitSchema] = None
        try:
            top = schemas.get(type(obj))
            if top is not None:
                oob: list[Any] = []
                written: Optional[tuple[Any, ...]] = (top.class_hash, ext_payload(self._pack(obj, oob)), oob)
            else:
                written = write_value(obj, whole)
        except stops[1]:
            return None  # the fallback pickles it (and reports what went wrong, as it always did)
        finally:
            IMPLICIT_TABLES.reset(tables_token)
            ENCODE_SCOPE.reset(scope_token)
        if written is None:
            return None
        class_hash, in_band, oob = written
        by_key = plan.by_key
        classes = plan.classes if only is not None else tuple(by_key[k] for k in scope.index if k in by_key)
        if not classes:
            return None
        pickled = self._pickles.pickle(classes, pickle_classes)
        if pickled is None:
            return None
        head = plan.head
        if only is None or head is None or head[0] is not pickled:
            table = array_header(len(scope.definitions)) + b"".join(scope.definitions)
            head = (pickled, b"".join((bin_header(len(pickled)), pickled, self.structs_hash, table)))
            if only is not None:
                plan.head = head  # one definition: the same table every time
        if only is not None and top is not None and top.plan is not None and self._kinds[0] is snapshot:
            by_name = self._pickles.by_name(classes)
            if by_name is not None:
                self.last_top = (top.cls, snapshot, top.plan, self._kinds[1], head[1], by_name)
        return _PYOBJECTS_HASH, b"".join((head[1], class_hash, in_band or b"")), oob

    def _plan_for(self, found: dict[type, tuple[str, ...]]) -> "_Plan":
        """What writing a value whose walk found ``found`` needs (the last one kept, per registry state)."""
        snapshot = self._snapshot()
        last = self._last_plan
        if last is not None and last.snapshot is snapshot and last.found == found:
            return last
        schemas = {cls: self.schemas.get(cls, names) for cls, names in found.items()}
        plan = _Plan(snapshot, found, schemas, self._tables_for(schemas))
        self._last_plan = plan
        return plan

    def _tables_for(self, schemas: dict[type, ImplicitSchema]) -> ImplicitTables:
        """The tables the codec reads with ``schemas`` added to the registry's (the last ones kept)."""
        snapshot = self._snapshot()
        key = tuple(schemas.values())
        kept_for, kept_key, tables = self._last_tables
        if kept_for is snapshot and kept_key == key:
            return tables  # type: ignore[no-any-return]
        tables = ImplicitTables(snapshot, {cls: s.ext_writer() for cls, s in schemas.items()},
                                {cls: s.list_writer for cls, s in schemas.items() if s.list_writer is not None})
        self._last_tables = (snapshot, key, tables)
        return tables

    def _walk(self, obj: Any) -> Optional[dict[type, tuple[str, ...]]]:
        """The plain classes of ``obj`` and their field names, or None (give up)."""
        snapshot = self._snapshot()
        cached_for, kinds = self._kinds
        if cached_for is snapshot:
            status, answer = walk(obj, kinds)  # the common case: every type known
            if status == OK:
                return answer  # type: ignore[no-any-return]
            if status == GIVE_UP:
                return None
        else:
            kinds = {}
            self._kinds = (snapshot, kinds)
        for _ in range(_MAX_CLASSIFIED):
            status, answer = walk(obj, kinds)
            if status == OK:
                found: dict[type, tuple[str, ...]] = answer
                return found
            if status == GIVE_UP:
                return None
            kinds = self._classify(snapshot, kinds, answer)
        return None

    def _classify(self, snapshot: Any, kinds: dict[type, int], value: Any) -> dict[type, int]:
        """``kinds`` with ``type(value)`` classified (a new dict, bounded).

        A kinds dict is never changed once made: the compiled codec keeps the one it was published
        with and relies on a class's kind in it staying what it was (``publish_implicit``).
        """
        cls = type(value)
        registration = snapshot.current.get(cls)
        if registration is not None:
            # Served by a serializer of its own: a leaf, unless it is a struct (whose fields are not walked).
            # A value its serializer's ``accepts`` turns down meets the fallback while it is written, which
            # gives the attempt up then.
            verdict = REFUSE if registration.ext_writer is not None else LEAF
        elif cls in snapshot.ext_writers:
            verdict = REFUSE
        else:
            try:
                registration = self._registration_for(value)  # loads the plug-in serving the type, if any
            except Exception:
                registration = None
            if registration is None:
                verdict = REFUSE
            elif not registration.fallback:
                verdict = LEAF if registration.ext_writer is None else REFUSE
            else:
                verdict = PLAIN if qualifies(cls) else REFUSE
        if len(kinds) >= _CACHE_MAX:
            kinds = {}
        else:
            kinds = dict(kinds)
        kinds[cls] = verdict
        self._kinds = (snapshot, kinds)
        return kinds
