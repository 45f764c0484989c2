"""The vector tables kept beside a SQLite file, so that opening a large group
reads one file instead of every row's vector (and never rebuilds its HNSW
index).

``<db>-vectors/`` holds, per (scope, group): the item uuids, the vectors
(16-bit fixed point by dimension, or the usearch index) and, written last, a small JSON
file naming them with the group's marker (its created_at and revision) they
stand for. A file whose marker is not the store's, or that cannot be read, is
never used: the caller repairs the table from the rows. Writing is best
effort (a read-only directory keeps no files); every file is private.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import secrets
from pathlib import Path

import numpy as np
from usearch.index import Index

from ..._files import PRIVATE, write_private
from .vector_table import EXPANSION, VectorTable

__all__ = ["VectorFiles"]

log = logging.getLogger(__name__)
FORMAT = 4


class VectorFiles:
    """The sidecar directory of one database file."""

    def __init__(self, db_path: str) -> None:
        self.root = Path(f"{db_path}-vectors")

    def _stem(self, scope: str, group_id: str) -> str:
        return f"{scope}-{hashlib.sha256(group_id.encode()).hexdigest()[:24]}"

    def load(self, scope: str, group_id: str) -> VectorTable | None:
        """The table saved for (scope, group), whatever its marker; None when
        there is none or it does not read back whole."""
        stem = self._stem(scope, group_id)
        try:
            meta = json.loads((self.root / f"{stem}.json").read_text())
            if meta.get("format") != FORMAT or meta.get("group") != group_id or meta.get("scope") != scope:
                return None
            token, dim, count = str(meta["token"]), int(meta["dim"]), int(meta["count"])
            text = (self.root / f"{stem}.{token}.uuids").read_bytes().decode()
            uuids = text.split("\n") if count else []
            if len(uuids) != count:
                return None
            marker = (int(meta["marker"][0]), int(meta["marker"][1]))
            if meta["index"]:
                index = Index.restore(str(self.root / f"{stem}.{token}.usearch"))
                if index is None or index.ndim != dim:
                    return None
                setattr(index, "expansion_search", EXPANSION)  # noqa: B010  (not kept in the file; typed read-only)
                if len(index) != sum(1 for u in uuids if u):
                    return None
                return VectorTable(dim, marker, uuids, index=index)
            path = self.root / f"{stem}.{token}.i16"
            if path.stat().st_size != 2 * dim * count:
                return None
            # Mapped copy-on-write: opening reads nothing, a search pages in its
            # dimensions' rows, and changes stay in this process.
            data = np.memmap(path, dtype=np.int16, mode="c", shape=(dim, count)) if count else (
                np.zeros((dim, 0), dtype=np.int16))
            return VectorTable(dim, marker, uuids, columns=data, scale=float(meta["scale"]), dense=bool(meta["dense"]))
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001  (a damaged file of any kind: rebuilt from the rows)
            log.warning("ignoring the saved vectors of %s in %s: %s", scope, self.root, exc)
            return None

    def drop(self, scope: str, group_id: str) -> None:
        """Delete what is saved for (scope, group): a forgotten group's vectors
        stay in no file."""
        stem = self._stem(scope, group_id)
        with contextlib.suppress(OSError):
            (self.root / f"{stem}.json").unlink(missing_ok=True)
            for path in self.root.glob(f"{stem}.*"):
                path.unlink(missing_ok=True)

    def save(self, scope: str, group_id: str, table: VectorTable) -> bool:
        """Write ``table`` (then its JSON, then drop the files it replaces);
        False when the directory cannot be written."""
        stem = self._stem(scope, group_id)
        token = secrets.token_hex(8)
        written: list[Path] = []
        try:
            self.root.mkdir(mode=0o700, exist_ok=True)
            n = len(table.uuids)
            uuids = self.root / f"{stem}.{token}.uuids"
            write_private(uuids, "\n".join(table.uuids))
            written.append(uuids)
            if table.index is not None:
                data = self.root / f"{stem}.{token}.usearch"
                table.index.save(str(data))
                os.chmod(data, PRIVATE)
            else:
                assert table.columns is not None
                data = self.root / f"{stem}.{token}.i16"
                write_private(data, np.ascontiguousarray(table.columns[:, :n]).tobytes())
            written.append(data)
            meta = {"format": FORMAT, "scope": scope, "group": group_id, "marker": list(table.marker),
                    "dim": table.dim, "count": n, "scale": table.scale, "dense": table.dense,
                    "index": table.index is not None,
                    "token": token}
            write_private(self.root / f"{stem}.json", json.dumps(meta))
        except OSError as exc:
            log.info("vectors of %s not saved beside the store (%s)", scope, exc)
            for path in written:
                with contextlib.suppress(OSError):
                    path.unlink()
            return False
        for old in self.root.glob(f"{stem}.*"):  # what the JSON no longer names
            if old.suffix != ".json" and f".{token}." not in old.name:
                with contextlib.suppress(OSError):
                    old.unlink()
        table.dirty = False
        return True
