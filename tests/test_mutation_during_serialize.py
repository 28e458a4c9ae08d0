"""A value changed while it is serialized gives a frame that reads back, or a SerializationError.

Python code runs in the middle of a serialize call whenever a value inside needs its serializer (a
registered type, a tuple past the levels written in place, an undeclared class), and other threads
run meanwhile. Such code may change the lists and dicts being written. Both codecs wrote a header
with the count of items first and then walked the container as it was by then: a dict whose items a
serializer replaced (the count kept) was written with more pairs than its header said, a list
cleared or extended with fewer or more items, so ``serialize`` returned a frame that could not be
read (or read with items moved into the next container). The compiled codec also read an undeclared
class's ``__dict__`` by position after a field's serializer had reordered it, writing each value
under another field's name. Now the compiled encoder counts a dict's pairs against its header and
checks an instance's keys at each field (a mismatch goes to the pure codec, which writes the value
again), and the pure codec checks that a document it packed while Python code ran is exactly one
value (``pack_state.check_whole``). What is guaranteed (README, "Values that change while they are
serialized"): a frame that reads back, holding for each container its items before or after the
change, or a SerializationError; never a crash.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable, Dict, List

import dataclasses
import pytest

import serreg

HERE = Path(__file__).parent


class Hook:
    """A value whose serializer runs ``act`` (changing what holds it) before writing nothing."""

    def __init__(self, act: Callable[[], object]) -> None:
        self.act = act


@dataclasses.dataclass
class MapHolder:
    m: Dict[str, Any]


@dataclasses.dataclass
class ListHolder:
    items: List[Any]


class Attrs:
    """An undeclared class: written as an implicit struct from its __dict__."""


def _registry() -> serreg.Registry:
    registry = serreg.Registry()

    def write(hook: Hook) -> bytes:
        hook.act()
        return b""

    registry.register_serializer("test.Hook", Hook, serialize=write, deserialize=lambda in_band, oob=None: "hook")
    return registry


def _dict_refilled_with_more_pairs() -> Any:
    d: dict[str, Any] = {}

    def act() -> None:
        d.clear()
        d.update({"p0": 0, "p1": 1, "p2": 2, "p3": 3})
        del d["p0"]  # 3 items again, at positions 1-3: the walk (at position 1) finds three more

    d.update({"a": Hook(act), "b": 1, "c": 2})
    return {"outer": d, "after": "x"}


def _dict_refilled_with_fewer_pairs() -> Any:
    d = {"z0": 0, "z1": 1, "z2": 2}
    for key in list(d):
        del d[key]  # three deleted entries before the live ones

    def act() -> None:
        d.clear()
        d.update({"y0": 0, "y1": 1, "y2": 2})

    d.update({"b": 1, "a": Hook(act), "c": 2})
    return [d, "tail1", "tail2"]


def _list_cleared() -> Any:
    items: list[Any] = []
    items.extend([Hook(items.clear), 1, 2, 3])
    return [items, "tail"]


def _list_extended() -> Any:
    items: list[Any] = []
    items.extend([Hook(lambda: items.extend(range(100))), 1])
    return [items, "tail"]


def _map_field_refilled() -> Any:
    d: dict[str, Any] = {}

    def act() -> None:
        d.clear()
        d.update({"p0": 0, "p1": 1, "p2": 2, "p3": 3})
        del d["p0"]

    d.update({"a": Hook(act), "b": 1, "c": 2})
    return [MapHolder(d), MapHolder({"q": 1})]


def _list_field_cleared() -> Any:
    items: list[Any] = []
    items.extend([Hook(items.clear), 1, 2])
    return [ListHolder(items), ListHolder([5])]


def _attributes_reordered() -> Any:
    obj = Attrs()

    def act() -> None:
        del obj.b
        obj.b = "B2"  # now a, c, b

    obj.a, obj.b, obj.c = Hook(act), "B", "C"
    return obj


def _attribute_added() -> Any:
    obj = Attrs()

    def act() -> None:
        obj.zzz = 1

    obj.a, obj.b, obj.c = Hook(act), "B", "C"
    return obj


CASES = {
    "dict refilled with more pairs": _dict_refilled_with_more_pairs,
    "dict refilled with fewer pairs": _dict_refilled_with_fewer_pairs,
    "list cleared": _list_cleared,
    "list extended": _list_extended,
    "map field refilled": _map_field_refilled,
    "list field cleared": _list_field_cleared,
    "attributes reordered": _attributes_reordered,
    "attribute added": _attribute_added,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_value_changed_while_serialized_reads_back_or_is_refused(case: str) -> None:
    registry = _registry()
    value = CASES[case]()
    try:
        frame = registry.serialize(value).to_bytes()
    except serreg.SerializationError as error:
        assert "changed while it was being serialized" in str(error)
        return
    back = registry.deserialize(frame)  # never a frame that cannot be read
    if isinstance(value, Attrs):
        # each field holds its own value, before or after the change (never another field's)
        assert back.b in ("B", "B2") and back.c == "C" and back.a == "hook", vars(back)
    elif case.startswith("dict"):
        outer = back["outer"] if isinstance(back, dict) else back[0]
        assert isinstance(outer, dict) and len(outer) == 3, back
        assert back == {"outer": outer, "after": "x"} or back == [outer, "tail1", "tail2"], back
    elif case in ("list cleared", "list extended"):
        assert back[1] == "tail" and isinstance(back[0], list), back
    elif case.endswith("field refilled") or case.endswith("field cleared"):
        assert len(back) == 2 and type(back[0]) is type(value[0]), back


def test_serializers_that_serialize_and_deserialize_inside_themselves() -> None:
    registry = _registry()

    class Echo:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

    def write(echo: Echo) -> serreg.SerializationResult:
        registry.deserialize(registry.serialize(echo.inner).to_bytes())  # a whole round trip from inside a write
        return registry.serialize(echo.inner)

    def read(in_band: memoryview, oob: Any = None) -> Echo:
        inner = registry.deserialize(in_band, oob)
        registry.serialize(inner).to_bytes()  # writing from inside a read
        return Echo(inner)

    registry.register_serializer("test.Echo", Echo, serialize=write, deserialize=read)
    value: Any = {"x": [1, (2, 3)], "s": "text"}
    for _ in range(6):  # each level writes what is inside it three times: 3^6 writes of the innermost
        value = Echo([value, {"k": value} if not isinstance(value, Echo) else 1])
    back = registry.deserialize(registry.serialize(value).to_bytes())
    depth = 0
    while isinstance(back, Echo):
        back, depth = back.inner[0], depth + 1
    assert depth == 6 and back == {"x": [1, (2, 3)], "s": "text"}


THREADS_SCRIPT = textwrap.dedent("""
    import sys, threading, time
    import serreg

    class Yield:
        # a value whose serializer lets other threads run in the middle of a serialize call
        pass

    registry = serreg.Registry()
    registry.register_serializer("test.Yield", Yield, serialize=lambda v: (time.sleep(0), b"")[1],
                                 deserialize=lambda in_band, oob=None: "y")

    class Plain:
        pass

    shared_dict = {str(i): Yield() if i % 7 == 0 else i for i in range(300)}
    shared_list = [Yield() if i % 5 == 0 else (i, str(i)) for i in range(300)]
    shared_obj = Plain()
    shared_obj.a, shared_obj.b, shared_obj.c = Yield(), [1, 2], "c"
    value = {"d": shared_dict, "l": shared_list, "o": shared_obj, "t": (shared_list, shared_dict)}
    stop = time.monotonic() + float(sys.argv[1])
    outcomes = {"value": 0, "refused": 0}

    def mutate():
        i = 0
        while time.monotonic() < stop:
            i += 1
            shared_dict.pop(str(i % 300), None)
            shared_dict[str((i * 7) % 300)] = Yield() if i % 3 else i
            if i % 50 == 0:
                shared_dict.clear()
                shared_dict.update({str(k): k for k in range(200)})
            shared_list.append((i,))
            if len(shared_list) > 400:
                del shared_list[:150]
            if i % 40 == 0:
                shared_list.clear()
            if i % 2:
                del shared_obj.b
                shared_obj.b = [i]
            else:
                shared_obj.zz = i
                del shared_obj.zz
            time.sleep(0)

    def write():
        while time.monotonic() < stop:
            try:
                frame = registry.serialize(value).to_bytes()
            except serreg.SerializationError:
                outcomes["refused"] += 1
                continue
            registry.deserialize(frame)  # raises if the frame cannot be read
            outcomes["value"] += 1

    threads = [threading.Thread(target=mutate), threading.Thread(target=write), threading.Thread(target=write)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(outcomes)
""")


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_threads_changing_a_value_while_others_serialize_it(pure: bool) -> None:
    env = dict(os.environ)
    env.pop("SERREG_PURE_PYTHON", None)
    if pure:
        env["SERREG_PURE_PYTHON"] = "1"
    seconds = os.environ.get("SERREG_MUTATION_SECONDS", "4")
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", THREADS_SCRIPT, seconds], capture_output=True,
                          text=True, timeout=300, cwd=str(HERE), env=env)
    # a crash, or a frame that does not read back (an exception in a thread is printed to stderr)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    outcomes = eval(done.stdout.strip())
    assert outcomes["value"] + outcomes["refused"] > 0, outcomes
