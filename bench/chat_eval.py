"""Which entities an offline memory links after reading whole user/assistant
conversations (tests/data/chat_conversations_dev.jsonl).

Each conversation goes into a fresh ``Memory(":memory:", model=None)`` through
``memory.add_messages(group, messages, thread=..., user_name=...)`` (or, where
that method does not exist yet, one ``add_episode(group, "Speaker: text",
reference_time=created_at)`` per message; the output says which ran). Then
each check reads the facts valid at its ``as_of`` (``None``: now) and asks, per
pair of entity names, whether some fact links the two.

Matching, kept deliberately simple and written down here:

- A fact links ``a`` and ``b`` when its subject matches one and its object the
  other, in either direction, whatever the relation is named, except a
  relation that says the link ended, is negated or only planned: names
  starting with one of ``NOT_A_LINK`` (LEFT, QUIT, NO_LONGER, NOT_, PLANS_TO,
  PLANNED, WANTS_TO, CONSIDERING, FORMER, EX_) do not count.
- Names match as in ``bench/offline_eval.py`` (case folded; titles, a leading
  "the" and a trailing "project" dropped; here also a leading "a", "an", "my"
  or "our"), and the user's first name matches the conversation's
  ``user_name``.
- Linked recall is the share of ``linked`` pairs linked; wrong rate is the
  share of ``not_linked`` pairs linked.

Run ``.venv/bin/python bench/chat_eval.py [FILE ...]`` (``-v`` lists every
miss and wrong pair with the facts found). Exit status 0 when every file meets
the targets (linked recall >= 0.6, wrong rate <= 0.05), else 1.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from kronograph import Memory
from kronograph.time import parse_time

sys.path.insert(0, str(Path(__file__).resolve().parent))
from offline_eval import norm_name  # noqa: E402  (a sibling script)

DEV = Path(__file__).resolve().parent.parent / "tests" / "data" / "chat_conversations_dev.jsonl"
TARGETS = {"recall": 0.6, "wrong": 0.05}
NOT_A_LINK = ("LEFT", "QUIT", "NO_LONGER", "NOT_", "PLANS_TO", "PLANNED", "WANTS_TO", "CONSIDERING", "FORMER", "EX_")
ASSISTANT = "Assistant"
_DETERMINER = re.compile(r"^(?:a|an|my|our)\s+")


class FactLike(Protocol):
    subject: str
    relation: str
    object: str


def relation_key(relation: str) -> str:
    """``worksAt``, ``works at`` and ``WORKS-AT`` all become ``WORKS_AT``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", relation.strip())
    return re.sub(r"[^A-Z0-9]+", "_", spaced.upper()).strip("_")


def counts_as_link(relation: str) -> bool:
    """False for a relation that says the link ended, is negated or is only planned."""
    key = relation_key(relation)
    return not any(key.startswith(prefix) for prefix in NOT_A_LINK)


def same_entity(wanted: str, name: str, user_name: str | None) -> bool:
    """Whether a fact's entity ``name`` is the check's ``wanted`` entity."""
    a, b = _name(wanted), _name(name)
    if a == b:
        return True
    if user_name:
        full = _name(user_name)
        return {a, b} == {full, full.split()[0]}
    return False


def _name(name: str) -> str:
    return norm_name(_DETERMINER.sub("", " ".join(name.casefold().split())))


def touches(fact: FactLike, name: str, user_name: str | None) -> bool:
    return same_entity(name, fact.subject, user_name) or same_entity(name, fact.object, user_name)


def linking(facts: Iterable[FactLike], a: str, b: str, user_name: str | None) -> list[FactLike]:
    """The facts that link ``a`` and ``b`` (either direction), ended/negated/planned ones left out."""
    found = []
    for f in facts:
        if not counts_as_link(f.relation):
            continue
        forward = same_entity(a, f.subject, user_name) and same_entity(b, f.object, user_name)
        backward = same_entity(b, f.subject, user_name) and same_entity(a, f.object, user_name)
        if forward or backward:
            found.append(f)
    return found


@dataclass
class PairResult:
    conversation: str
    as_of: str | None
    a: str
    b: str
    expected: bool
    links: list[str]
    nearby: list[str]

    @property
    def ok(self) -> bool:
        return bool(self.links) == self.expected


@dataclass
class Report:
    path: Path
    conversations: int = 0
    messages: int = 0
    linked: int = 0
    linked_found: int = 0
    not_linked: int = 0
    not_linked_found: int = 0
    ways_in: set[str] = field(default_factory=set)
    pairs: list[PairResult] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.linked_found / self.linked if self.linked else 1.0

    @property
    def wrong(self) -> float:
        return self.not_linked_found / self.not_linked if self.not_linked else 0.0

    def meets_targets(self) -> bool:
        return self.recall >= TARGETS["recall"] and self.wrong <= TARGETS["wrong"]


def load(path: Path) -> list[dict[str, Any]]:
    """The conversations of a JSONL file, checked for the fields the scorer reads."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        missing = {"id", "user_name", "messages", "checks"} - row.keys()
        if missing:
            raise ValueError(f"{path}:{number}: missing {', '.join(sorted(missing))}")
        rows.append(row)
    return rows


def ingest(memory: Memory, group: str, conversation: dict[str, Any]) -> str:
    """Feed one conversation in; returns the way in that ran."""
    user_name, messages = conversation["user_name"], conversation["messages"]
    add_messages = getattr(memory, "add_messages", None)
    if add_messages is not None:
        add_messages(group, messages, thread=conversation["id"], user_name=user_name)
        return "add_messages"
    for m in messages:
        speaker = user_name if m["role"] == "user" else ASSISTANT
        memory.add_episode(group, f"{speaker}: {m['content']}", reference_time=m["created_at"])
    return "add_episode"


def score_check(
    conversation: str, user_name: str, facts: Sequence[FactLike], check: dict[str, Any]
) -> list[PairResult]:
    """Score one check's pairs against the facts valid at its time."""
    results = []
    for expected, key in ((True, "linked"), (False, "not_linked")):
        for a, b in check.get(key, []):
            links = [f"{f.subject} {f.relation} {f.object}" for f in linking(facts, a, b, user_name)]
            nearby = [
                f"{f.subject} {f.relation} {f.object}"
                for f in facts
                if touches(f, a, user_name) or touches(f, b, user_name)
            ]
            results.append(PairResult(conversation, check.get("as_of"), a, b, expected, links, nearby))
    return results


def evaluate(path: Path = DEV) -> Report:
    """Ingest every conversation of ``path`` into its own memory and score its checks."""
    report = Report(path)
    for conversation in load(path):
        report.conversations += 1
        report.messages += len(conversation["messages"])
        with Memory(":memory:", model=None) as memory:
            group = "chat"
            report.ways_in.add(ingest(memory, group, conversation))
            for check in conversation["checks"]:
                as_of = check.get("as_of")
                facts = memory.facts(group, as_of=parse_time(as_of) if as_of else None)
                report.pairs.extend(score_check(conversation["id"], conversation["user_name"], facts, check))
    for pair in report.pairs:
        if pair.expected:
            report.linked += 1
            report.linked_found += bool(pair.links)
        else:
            report.not_linked += 1
            report.not_linked_found += bool(pair.links)
    return report


def describe(pair: PairResult) -> str:
    when = pair.as_of or "now"
    label = "missed" if pair.expected else "wrong "
    shown = pair.links if pair.links else pair.nearby
    facts = "; ".join(shown) if shown else "no facts about either"
    return f"{label}  {pair.conversation} @ {when}: {pair.a} ~ {pair.b}  [{facts}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, default=[DEV], help="conversation JSONL files")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every missed and wrong pair")
    args = parser.parse_args(argv)
    reports = [evaluate(path) for path in args.files]
    if args.verbose:
        for r in reports:
            misses = [describe(p) for p in r.pairs if not p.ok]
            print(f"{r.path.name}:", *(misses or ["no misses"]), sep="\n  ", end="\n\n")
    print(f"{'file':<36} {'convs':>5} {'msgs':>5} {'pairs':>5}  {'linked recall':>18}  {'wrong rate':>14}  way in")
    for r in reports:
        recall = f"{r.recall:.3f} ({r.linked_found}/{r.linked})"
        wrong = f"{r.wrong:.3f} ({r.not_linked_found}/{r.not_linked})"
        print(
            f"{r.path.name:<36} {r.conversations:>5} {r.messages:>5} {r.linked + r.not_linked:>5}  "
            f"{recall:>18}  {wrong:>14}  {', '.join(sorted(r.ways_in))}"
        )
    print(f"targets: linked recall >= {TARGETS['recall']}, wrong rate <= {TARGETS['wrong']}")
    return 0 if all(r.meets_targets() for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
