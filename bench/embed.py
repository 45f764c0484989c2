"""Speed of the offline ``HashingEmbedder``: how long one batch of short texts takes.

It is the embedder every offline memory uses for facts, entities and queries,
so its batch time is part of ingestion and of every search. Run
``.venv/bin/python bench/embed.py`` (``--help`` for the options). Prints the
median and p95 over ``--runs`` batches and exits 0 when the median meets the
target (10,000 texts in under 0.5 s on the 2-core VM), else 1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from kronograph.embed import HashingEmbedder

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import percentile, source_revision  # noqa: E402  (a sibling script)

TARGET_S = 0.5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=10_000, help="texts in one batch (default 10,000)")
    parser.add_argument("--runs", type=int, default=15, help="timed batches (default 15)")
    args = parser.parse_args(argv)
    texts = [f"Person {i} works at Company {i % 97} in city {i % 13}" for i in range(args.texts)]
    embedder = HashingEmbedder()
    embedder.embed_sync(texts[:10])  # warm up
    times = []
    for _ in range(args.runs):
        started = time.perf_counter()
        embedder.embed_sync(texts)
        times.append(time.perf_counter() - started)
    median = statistics.median(times)
    print(f"kronograph {source_revision()}, HashingEmbedder, {args.texts:,} texts a batch, {args.runs} runs")
    print(f"  median {median * 1000:.1f} ms  p95 {percentile(times, 0.95) * 1000:.1f} ms"
          f"  ({args.texts / median:,.0f} texts/s)")
    ok = median < TARGET_S * args.texts / 10_000
    print(f"{'PASS' if ok else 'FAIL'}  median under {TARGET_S} s per 10,000 texts")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
