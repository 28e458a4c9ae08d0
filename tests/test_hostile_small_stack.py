"""No input crashes any entry point in a thread with a 256 KiB stack (issue 11, section 3).

c2967a7 decoded each nested value with a fresh msgpack ``unpackb`` called from
the ext hook of the level above, about 40 KB of C stack per level: 99 nested
lists in 1.3 KB crashed (SIGSEGV) any thread with a small stack, and
``Limits(max_depth=None)`` crashed the main thread at 200 levels. Each case runs
in a fresh process, so a crash shows as a signal instead of killing the test run.
"""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).parent

# Every entry point that reads bytes or walks a decoded value, on the deepest frames there are:
# nested values (ext 0 inside ext 0) 99 deep with the most msgpack nesting inside the innermost,
# 250 deep under max_depth=None, and 5,000 deep (refused by the default limits).
SCRIPT = textwrap.dedent("""
    import io, os, sys, tempfile, threading
    import serreg
    from serreg import Limits, inspection
    from serreg.cas import Store
    from serreg.wire.class_id import class_id_hash
    from serreg.result import with_class_hash
    from serreg.wire.frame import read_frame_bytes

    def nested(levels, class_id, inner=class_id_hash("None") + b"\\xc0"):
        for _ in range(levels):
            n = len(inner)
            inner = class_id_hash(class_id) + b"\\x91\\xc9" + n.to_bytes(4, "big") + b"\\x00" + inner
        return inner

    innermost = class_id_hash("list") + b"\\x91" * 1000 + b"\\xc0"
    sections = {
        "99 lists": nested(98, "list", innermost),
        "99 tuples": nested(98, "tuple", innermost),
        "250 tuples": nested(250, "tuple"),
        "5000 lists": nested(5000, "list"),
    }
    frames = {name: serreg.SerializationResult(section).to_bytes() for name, section in sections.items()}
    ENTRY = sys.argv[1]
    results = []

    def work():
        registry = serreg.Registry(trusted=False)
        for name, data in frames.items():
            limits = Limits(max_depth=None) if name == "250 tuples" else None
            try:
                if ENTRY == "deserialize untrusted":
                    registry.deserialize(data, limits=limits)
                elif ENTRY == "deserialize trusted":
                    registry.deserialize(data, trusted=True, limits=limits)
                elif ENTRY == "signed":
                    key = b"k" * 32
                    section = sections[name]
                    signed = with_class_hash(section[:8], section[8:], [], key).to_bytes()
                    registry.deserialize(signed, key=key, limits=limits)
                elif ENTRY == "stream":
                    stream = io.BytesIO(data + data)
                    while (frame := read_frame_bytes(stream, registry.limits)) is not None:
                        registry.deserialize(frame, limits=limits)
                elif ENTRY in ("digest", "canonical serialize", "Store.put", "Store.get"):
                    value = registry.deserialize(data, limits=limits)
                    if ENTRY == "digest":
                        registry.digest(value)
                    elif ENTRY == "canonical serialize":
                        registry.serialize(value, canonical=True).to_bytes()
                    else:
                        store = Store(tempfile.mkdtemp(), registry=registry)
                        digest = store.put(value)
                        if ENTRY == "Store.get":
                            store.get(digest)
                elif ENTRY == "serreg inspect":
                    reports = list(inspection.inspect_frames(data, inspection.standard_class_names()))
                    "".join(inspection.iter_json(inspection.to_json(reports)))
                results.append((name, "value"))
            except serreg.SerregError as error:
                results.append((name, type(error).__name__))
            except RecursionError:
                results.append((name, "RecursionError"))  # a Python traceback: not an answer either

    threading.stack_size(256 * 1024)
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    print(results)
""")

ENTRY_POINTS = ["deserialize untrusted", "deserialize trusted", "signed", "stream", "digest",
                "canonical serialize", "Store.put", "Store.get", "serreg inspect"]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_the_deepest_frames_do_not_crash_a_thread_with_a_256_kib_stack(entry):
    completed = subprocess.run([sys.executable, "-c", SCRIPT, entry], capture_output=True, text=True,
                               timeout=600, cwd=str(HERE))
    assert completed.returncode == 0, (entry, completed.returncode, completed.stderr[-3000:])
    results = dict(eval(completed.stdout.strip()))  # [(frame, outcome), ...] printed by the script
    assert len(results) == 4 and "RecursionError" not in results.values(), (entry, results, completed.stderr[-3000:])
    # max_depth=100 lets 99 levels through and stops 5,000 at the limit; max_depth=None reads 250.
    assert results["5000 lists"] == "LimitExceededError", results
