"""The receiving side of a handoff alone, for callgrind: N x serreg.shm.get of an existing region, or
N x (a frame read from a stream + deserialize), the pipe receiver's code.

Instructions per receive = (Ir with N=100 - Ir with N=0) / 100, e.g.:

    valgrind --tool=callgrind --callgrind-out-file=cg.shm.0 python benchmarks/bench_handoff_callgrind.py shm 1000 0
    valgrind --tool=callgrind --callgrind-out-file=cg.shm.100 python benchmarks/bench_handoff_callgrind.py shm 1000 100
    valgrind --tool=callgrind --callgrind-out-file=cg.pipe.100 python benchmarks/bench_handoff_callgrind.py pipe 1000 100
    grep summary cg.*

(the setup is the same for both methods, so one N=0 run per size serves both).
"""

import io
import sys

import numpy as np

import serreg
from serreg.wire.frame import read_frame_bytes

method, nbytes, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
value = np.arange(nbytes // 8, dtype=np.float64)
handle = serreg.shm.put(value)
frame = serreg.serialize(value).to_bytes()
serreg.shm.get(handle)
serreg.deserialize(read_frame_bytes(io.BytesIO(frame)))  # both paths warm
for _ in range(n):
    if method == "shm":
        received = serreg.shm.get(handle)
    else:
        received = serreg.deserialize(read_frame_bytes(io.BytesIO(frame)))
    del received
handle.release()
