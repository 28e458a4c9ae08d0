"""Writes the signed-frame golden vectors: tests/vectors/signed/<name>.frame + manifest.json.

The key is fixed and public (it is test data, not a secret). Every implementation
must, with that key: decode the "value" vectors to the value named (the "java"
field is the value as serreg.fixture.Describe prints it), write the same value
signed back byte for byte, reject the "signature error" ones with a signature
error before decoding anything (and decode them without a key), and refuse the
"retired v1" one (flag 0x01, signed frames version 1) with or without the key
(docs/FORMAT.md, section 4.2).

    python tests/vectors/make_signed_vectors.py [OUTPUT_DIR]
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

import serreg  # noqa: E402

KEY = bytes(range(32))  # 000102...1f
OTHER_KEY = bytes(range(32, 64))


def vectors() -> list:
    """(name, frame bytes, class ID, Java description, expected outcome with KEY)."""
    listed = [1, "x", None]
    array = np.arange(4, dtype="<i4")
    signed_list = serreg.serialize(listed, key=KEY).to_bytes()
    altered = bytearray(signed_list)
    altered[-34] ^= 0x01  # "x" becomes "y": still a valid frame, but not the one signed
    return [
        ("signed_list", signed_list, "list", 'ArrayList[Long(1), String("x"), null]', "value"),
        ("signed_list_key_plus_zero_byte", serreg.serialize(listed, key=KEY + b"\x00").to_bytes(), "list", None,
         "signature error"),
        ("signed_list_v1", v1_frame(serreg.serialize(listed).to_bytes(), KEY), "list", None, "retired v1"),
        ("signed_ndarray", serreg.serialize(array, key=KEY).to_bytes(), "numpy.ndarray",
         "NDArray(<i4, [4], C, " + array.tobytes().hex() + ")", "value"),
        ("signed_list_altered", bytes(altered), "list", None, "signature error"),
        ("signed_list_other_key", serreg.serialize(listed, key=OTHER_KEY).to_bytes(), "list", None, "signature error"),
        ("unsigned_list", serreg.serialize(listed).to_bytes(), "list", None, "signature error"),
    ]


def v1_frame(unsigned: bytes, key: bytes) -> bytes:
    """The frame of the retired scheme: flag 0x01, HMAC-SHA256 under the key as given."""
    body = bytearray(unsigned)
    body[5] = 0x01
    struct.pack_into("<Q", body, 24, len(body) + 32)
    return bytes(body) + hmac.new(key, bytes(body), hashlib.sha256).digest()


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.frame"):
        old.unlink()
    entries = []
    for name, frame, class_id, java, expect in vectors():
        (out / f"{name}.frame").write_bytes(frame)
        entries.append({"name": name, "file": f"{name}.frame", "class_id": class_id, "java": java, "expect": expect})
    manifest = {
        "producer": "python",
        "format_version": serreg.FORMAT_VERSION,
        "key_hex": KEY.hex(),
        "signature": ("HMAC-SHA256 under SHA-256(b'serreg-frame-key-v2' || u64 big-endian key length || key) of "
                      "frame bytes [0, total - 32), stored in the last 32 bytes; header flag 0x02"),
        "vectors": entries,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {len(entries)} signed vectors to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "signed")
