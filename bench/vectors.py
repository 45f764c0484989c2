"""Where exact vector search stops being cheaper than an HNSW index (SQLite).

Takes the first N fact vectors of the search benchmark's cached 100,000-fact
store (bench/search.py builds it) for each size (``--dense``: random dense unit
vectors instead, as a model's), holds them as the store does
(``kronograph.store.sqlite.vector_table.VectorTable``: exact float16 by
dimension, or a usearch HNSW index), and times ``top(vector, 25)`` for the
benchmark's query vectors both ways, with recall@10 of the HNSW answer
against exact float32 and the index's build time. See bench/README.md.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import time
from contextlib import closing
from pathlib import Path

import numpy as np

from kronograph import HashingEmbedder
from kronograph.store.sqlite.vector_table import VectorTable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from core import GROUP, pools  # noqa: E402  (a sibling script)
from search import TEMPLATES, cache_path  # noqa: E402

K = 25  # a search of limit 10 asks the table for 10 + a margin of 15


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="10000,30000,100000", help="comma-separated vector counts")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--dense", action="store_true",
                    help="random dense unit vectors (as a model's) instead of the store's sparse hashing ones")
    ap.add_argument("--db", type=Path, help="the store (default: bench/search.py's cached 100,000-fact one)")
    args = ap.parse_args(argv)
    path = args.db or cache_path(100_000, 10_000, 42)
    sizes = [int(n) for n in args.sizes.split(",")]
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        rows = conn.execute("SELECT uuid, embedding FROM facts WHERE group_id = ? AND embedding IS NOT NULL"
                            " LIMIT ?", (GROUP, max(sizes))).fetchall()
    names = pools(10_000)
    rng = np.random.default_rng(1)
    texts = [TEMPLATES[int(rng.integers(len(TEMPLATES)))].format(
        p=names["people"][int(rng.integers(1000))], q=names["people"][int(rng.integers(1000))],
        city=names["cities"][0], company=names["companies"][0], thing=names["things"][int(rng.integers(100))])
        for _ in range(args.queries)]
    queries = [np.asarray(v, dtype=np.float32) for v in HashingEmbedder().embed_sync(texts)]
    if args.dense:  # each query near one stored vector, as a question near its answer
        gauss = rng.normal(size=(max(sizes), 256)).astype(np.float32)
        gauss /= np.linalg.norm(gauss, axis=1, keepdims=True)
        rows = [(f"d{i}", v.tobytes()) for i, v in enumerate(gauss)]
        picks = rng.integers(min(sizes), size=args.queries)
        noisy = gauss[picks] + 0.1 * rng.normal(size=(args.queries, 256)).astype(np.float32)
        queries = list(noisy / np.linalg.norm(noisy, axis=1, keepdims=True))
    print(f"{'vectors':>8}{'exact ms':>10}{'hnsw ms':>10}{'recall@10':>11}{'build s':>9}")
    for n in sizes:
        part = rows[:n]
        matrix = np.frombuffer(b"".join(b for _, b in part), dtype=np.float32).reshape(len(part), -1)
        where = {u: i for i, (u, _) in enumerate(part)}
        exact = VectorTable.empty(matrix.shape[1], (1, 1))
        exact.add(part, threshold=10**9)
        t0 = time.perf_counter()
        hnsw = VectorTable.empty(matrix.shape[1], (1, 1))
        hnsw.add(part, threshold=0)
        build = time.perf_counter() - t0
        timings: dict[str, list[float]] = {"exact": [], "hnsw": []}
        found = 0
        for q in queries:
            for name, table in (("exact", exact), ("hnsw", hnsw)):
                t0 = time.perf_counter()
                got = table.top(q, K)
                timings[name].append((time.perf_counter() - t0) * 1000)
                if name == "hnsw":
                    scores = matrix @ q
                    bar = np.sort(scores)[-10] - 1e-3  # a tie with the 10th (at float16's precision) counts
                    found += sum(1 for u, _ in got[:10] if scores[where[u]] >= bar)
        print(f"{n:>8,}{statistics.median(timings['exact']):>10.2f}{statistics.median(timings['hnsw']):>10.2f}"
              f"{found / (10 * len(queries)):>11.3f}{build:>9.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
