"""Time-ordered identifiers (UUID version 7), so ids sort in creation order."""

from __future__ import annotations

import os
import random
import threading
import time
import uuid

__all__ = ["new_id"]

_lock = threading.Lock()
# Uniqueness, not secrecy, is needed here: a fast generator seeded from the OS.
_random = random.Random(os.urandom(16))
os.register_at_fork(after_in_child=lambda: _random.seed(os.urandom(16)))
_last_ms = 0
_counter = 0


def new_id() -> str:
    """A UUIDv7 string; strictly increasing within one process."""
    global _last_ms, _counter
    with _lock:
        ms = time.time_ns() // 1_000_000
        if ms <= _last_ms:
            _counter += 1
            if _counter > 0xFFF:  # 4096 ids in one millisecond: borrow the next one
                _last_ms += 1
                _counter = 0
            ms = _last_ms
        else:
            _last_ms, _counter = ms, 0
        counter = _counter
    rand_b = _random.getrandbits(62)
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | counter << 64 | 0b10 << 62 | rand_b
    return str(uuid.UUID(int=value))
