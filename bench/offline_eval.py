"""Precision, recall, date accuracy and speed of the offline extractor on the
hand-written gold set (tests/data/offline_gold.jsonl).

Matching, kept deliberately simple and written down here:

- Names match when their normalised forms are equal: case folded, titles
  ("Dr.", "Professor") and a leading "the" and trailing "project" dropped.
  The speaker's first name also matches the speaker's full name.
- Relations match when their folded keys (``fold_relation``) are equal after
  mapping the synonyms in ``SYNONYMS`` (e.g. BASED_IN and LIVES_IN,
  FOUNDED and FOUNDER_OF, GIRLFRIEND_OF and PARTNER_OF). A relation in
  ``INVERSES`` is read with its ends swapped (``X EMPLOYS Y`` is
  ``Y WORKS_AT X``, ``X CHILD_OF Y`` is ``Y PARENT_OF X``). Symmetric
  relations (``SYMMETRIC``) match in either direction.
- A chat line may name its ``speaker`` and ``role`` (``user``/``assistant``);
  they are passed to the extractor, with ``addressee`` (the line's, or
  "Assistant" for a user's line), and the speaker is the one whose first name
  matches their full name.
- A gold fact with a date is "dated right" when it is matched and its
  ``valid_at`` and ``invalid_at`` agree with the extracted ones on the day.
  The headline date number divides by every gold fact with a date (a missed
  fact is a wrong date); the share among matched facts is printed too.
- A set is judged only on the relations it annotates: an extracted fact whose
  relation appears in none of the set's gold facts (a SIBLING_OF from "my
  sister Elena lives in ..." in a set written before the extractor read
  kinship) is counted apart as unscored, and listed with ``-v``.

Run ``.venv/bin/python bench/offline_eval.py`` (``-v`` lists every miss).
Exit status 0 when the targets are met (precision ≥ 0.8, recall ≥ 0.6,
dates ≥ 0.7), else 1.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kronograph.ingest.offline import OfflineExtractor
from kronograph.model import fold_relation
from kronograph.time import parse_time

GOLD = Path(__file__).resolve().parent.parent / "tests" / "data" / "offline_gold.jsonl"
TARGETS = {"precision": 0.8, "recall": 0.6, "dates": 0.7}
SYNONYMS = {
    "basedin": "livesin",
    "residesin": "livesin",
    "headquarteredin": "livesin",
    "quit": "left",
    "resignedfrom": "left",
    "loves": "likes",
    "enjoys": "likes",
    "fanof": "likes",
    "employedby": "worksat",
    "joined": "worksat",
    "founded": "founderof",
    "cofounderof": "founderof",
    "cofounded": "founderof",
    "metwith": "met",
    "spouseof": "marriedto",
    "wifeof": "marriedto",
    "husbandof": "marriedto",
    "haswife": "marriedto",
    "hashusband": "marriedto",
    "marriedwith": "marriedto",
    "fianceof": "engagedto",
    "fianceeof": "engagedto",
    "gotengagedto": "engagedto",
    "girlfriendof": "partnerof",
    "boyfriendof": "partnerof",
    "hasgirlfriend": "partnerof",
    "hasboyfriend": "partnerof",
    "haspartner": "partnerof",
    "dating": "partnerof",
    "datingwith": "partnerof",
    "inrelationshipwith": "partnerof",
    "inarelationshipwith": "partnerof",
    "sisterof": "siblingof",
    "brotherof": "siblingof",
    "hassister": "siblingof",
    "hasbrother": "siblingof",
    "hassibling": "siblingof",
    "friendof": "friendswith",
    "hasfriend": "friendswith",
    "bestfriendof": "friendswith",
    "hasbestfriend": "friendswith",
    "haschild": "parentof",
    "hasdaughter": "parentof",
    "hasson": "parentof",
    "motherof": "parentof",
    "fatherof": "parentof",
    "movedto": "livesin",
    "relocatedto": "livesin",
    "locatedin": "livesin",
    "isfrom": "from",
    "comesfrom": "from",
    "originallyfrom": "from",
    "bornin": "from",
    "grewupin": "from",
    "hometown": "from",
    "runson": "uses",
    "usestool": "uses",
    "migratedto": "uses",
    "switchedto": "uses",
    "builtwith": "uses",
    "stoppedusing": "nolongeruses",
    "quitusing": "nolongeruses",
    "migratedfrom": "nolongeruses",
    "switchedfrom": "nolongeruses",
    "movedofffrom": "nolongeruses",
    "movedfrom": "nolongerlivesin",
    "movedawayfrom": "nolongerlivesin",
    "owner": "owns",
    "ownerof": "owns",
    "bought": "owns",
    "purchased": "owns",
    "haspet": "owns",
    "adopted": "owns",
    "hasdog": "owns",
    "hascat": "owns",
    "speakslanguage": "speaks",
    "fluentin": "speaks",
    "nativespeakerof": "speaks",
    "learning": "learns",
    "islearning": "learns",
    "studieslanguage": "learns",
    "studying": "learns",
    "hasallergy": "allergicto",
    "allergyto": "allergicto",
    "studiesat": "studiedat",
    "studyingat": "studiedat",
    "attended": "studiedat",
    "attends": "studiedat",
    "graduatedfrom": "studiedat",
    "alumnusof": "studiedat",
    "alumniof": "studiedat",
    "educatedat": "studiedat",
    "enrolledat": "studiedat",
}
# Read with the ends swapped: ``X EMPLOYS Y`` is ``Y WORKS_AT X``.
INVERSES = {
    "employs": "worksat",
    "hasemployee": "worksat",
    "childof": "parentof",
    "sonof": "parentof",
    "daughterof": "parentof",
}
SYMMETRIC = {"marriedto", "met", "friendswith", "engagedto", "partnerof", "siblingof"}
_TITLES = re.compile(r"^(?:dr|mr|mrs|ms|prof|professor)\.?\s+|^the\s+|\s+project$")


def norm_name(name: str) -> str:
    return _TITLES.sub("", " ".join(name.casefold().split())).strip(" .")


def norm_relation(relation: str) -> str:
    key = fold_relation(relation)
    return SYNONYMS.get(key, key)


def _oriented(relation: str, subject: str, obj: str) -> tuple[str, str, str]:
    """The relation's key and its two ends, an inverse relation turned round."""
    key = norm_relation(relation)
    if key in INVERSES:
        return INVERSES[key], obj, subject
    return key, subject, obj


def _symmetric(key: str) -> bool:
    return key in SYMMETRIC or (key.startswith("had") and key.endswith("with"))


def _same_name(a: str, b: str, speaker: str | None) -> bool:
    a, b = norm_name(a), norm_name(b)
    if a == b:
        return True
    if speaker:
        full = norm_name(speaker)
        return {a, b} == {full, full.split()[0]}
    return False


def _matches(gold: dict[str, Any], got: Any, speaker: str | None) -> bool:
    relation, subject, obj = _oriented(gold["relation"], gold["subject"], gold["object"])
    got_relation, got_subject, got_object = _oriented(got.relation, got.subject, got.object)
    if relation != got_relation:
        return False
    if _same_name(subject, got_subject, speaker) and _same_name(obj, got_object, speaker):
        return True
    return _symmetric(relation) and _same_name(subject, got_object, speaker) and _same_name(obj, got_subject, speaker)


def _speaking(row: dict[str, Any]) -> dict[str, str]:
    """The speaker, role and addressee a chat line names, as ``extract`` takes them."""
    given = {key: row[key] for key in ("speaker", "role", "addressee") if row.get(key)}
    if given.get("role") == "user" and given.get("speaker"):
        given.setdefault("addressee", "Assistant")
    return given


def _extract(extractor: OfflineExtractor, row: dict[str, Any]) -> Any:
    ref = parse_time(row["reference_time"])
    return extractor.extract(row["content"], reference_time=ref, kind=row["kind"], **_speaking(row))


def _speaker(row: dict[str, Any]) -> str | None:
    if row.get("speaker"):
        return str(row["speaker"])
    return row["content"].split(":", 1)[0] if row["kind"] == "message" else None


def _day(value: str | None) -> str | None:
    return parse_time(value).date().isoformat() if value else None


@dataclass
class Report:
    extracted: int = 0
    unscored: int = 0  # facts of relations the set does not annotate
    correct: int = 0
    gold: int = 0
    found: int = 0
    dated: int = 0
    dated_found: int = 0
    dated_right: int = 0
    seconds: float = 0.0
    episodes: int = 0
    chars: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.correct / self.extracted if self.extracted else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.gold if self.gold else 1.0

    @property
    def dates(self) -> float:
        return self.dated_right / self.dated if self.dated else 1.0

    def meets_targets(self) -> bool:
        return all(getattr(self, name) >= floor for name, floor in TARGETS.items())


def evaluate(path: Path = GOLD, repeat: int = 20) -> Report:
    """Score the extractor on every gold episode; time ``repeat`` passes over them."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    extractor, report = OfflineExtractor(), Report()
    scope = {_oriented(fact["relation"], "", "")[0] for row in rows for fact in row["facts"]}
    for row in rows:
        result = _extract(extractor, row)
        speaker = _speaker(row) if row.get("role", "user") == "user" else None
        used: set[int] = set()
        unscored = {i for i, f in enumerate(result.facts) if _oriented(f.relation, "", "")[0] not in scope}
        report.unscored += len(unscored)
        report.extracted += len(result.facts) - len(unscored)
        report.gold += len(row["facts"])
        for gold in row["facts"]:
            hit = next((i for i, f in enumerate(result.facts) if i not in used and _matches(gold, f, speaker)), None)
            has_date = bool(gold.get("valid_at") or gold.get("invalid_at"))
            report.dated += has_date
            if hit is None:
                report.misses.append(f"missed  {row['id']}: {gold['subject']} {gold['relation']} {gold['object']}")
                continue
            used.add(hit)
            report.found += 1
            got = result.facts[hit]
            if has_date:
                report.dated_found += 1
                right = (_day(got.valid_at), _day(got.invalid_at)) == (gold.get("valid_at"), gold.get("invalid_at"))
                report.dated_right += right
                if not right:
                    report.misses.append(
                        f"date    {row['id']}: {got.valid_at}/{got.invalid_at} ({got.time_expression}), "
                        f"gold {gold.get('valid_at')}/{gold.get('invalid_at')}"
                    )
        report.correct += len(used)
        for i, f in enumerate(result.facts):
            if i not in used:
                why = "unscored" if i in unscored else "wrong   "
                report.misses.append(f"{why} {row['id']}: {f.subject} {f.relation} {f.object}")
    started = time.perf_counter()
    for _ in range(repeat):
        for row in rows:
            _extract(extractor, row)
    report.seconds = time.perf_counter() - started
    report.episodes = repeat * len(rows)
    report.chars = sum(len(row["content"]) for row in rows) // max(len(rows), 1)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gold", type=Path, default=GOLD, help="gold JSONL file")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every missed, wrong or misdated fact")
    args = parser.parse_args(argv)
    r = evaluate(args.gold)
    if args.verbose:
        print("\n".join(r.misses) or "no misses", end="\n\n")
    rows = [
        (
            "precision",
            f"{r.precision:.3f}",
            f"{r.correct}/{r.extracted} extracted facts right ({r.unscored} of relations the set does not annotate)",
            TARGETS["precision"],
        ),
        ("recall", f"{r.recall:.3f}", f"{r.found}/{r.gold} gold facts found", TARGETS["recall"]),
        (
            "dates right",
            f"{r.dates:.3f}",
            f"{r.dated_right}/{r.dated} dated gold facts ({r.dated_right}/{r.dated_found} of those found)",
            TARGETS["dates"],
        ),
    ]
    print(f"{'metric':<12} {'value':>6}  {'target':>6}  detail")
    for name, value, detail, target in rows:
        print(f"{name:<12} {value:>6}  {target:>6}  {detail}")
    per = r.seconds / r.episodes * 1000 if r.episodes else 0.0
    print(
        f"{'speed':<12} {per:>6.3f}  {'0.3':>6}  ms per episode (mean of {r.episodes} runs, {r.chars} chars on average)"
    )
    return 0 if r.meets_targets() else 1


if __name__ == "__main__":
    sys.exit(main())
