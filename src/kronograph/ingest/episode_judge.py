"""The contradiction judge for an episode: all its questions in one go.

Before the episode's transaction, every new fact is screened against the
stored graph; those left with candidates only a judge can weigh are put to
the model in **one** call (or, with a plain judge and no model, one judge call
each). The answers are mapped back to uuids per new fact
(:class:`~.checkpoint.JudgedFact`, checkpointed); ids the model names outside what it was shown for that fact
are kept apart as refused, and the guard ignores them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..llm.client import ModelClient
from ..llm.protocol import Usage
from ..metrics import record_candidates
from ..model import RelationType
from ..store.protocol import ResolutionReads
from ..store.records import FactRecord
from .checkpoint import JudgedFact, Verdicts
from .direct import candidate_ask
from .judge import Judge, ask_judge
from .prompts import judge_prompt
from .resolution import screen
from .schema import JudgeAnswer

__all__ = ["gather_verdicts"]

async def gather_verdicts(
    store: ResolutionReads,
    records: Sequence[FactRecord | None],
    relation_types: Sequence[RelationType | None],
    *,
    model: ModelClient | None,
    judge: Judge | None,
    limits: Sequence[int],
    usage: Usage,
) -> Verdicts:
    """Verdicts for the facts (by index) that need one; ``None`` records (both
    ends new) have nothing to be judged against."""
    questions: list[tuple[int, FactRecord, list[FactRecord]]] = []
    asked = [(i, record) for i, record in enumerate(records) if record is not None]
    if not asked:
        return {}
    asks = [candidate_ask(record, relation_types[i], judged=True, limit=limits[i]) for i, record in asked]
    found = await store.fact_candidates_each(asked[0][1].group_id, asks)  # all at once: one round trip to a server
    for (i, record), candidates in zip(asked, found, strict=True):
        record_candidates(len(candidates))
        screening = screen(record, candidates, relation_types[i])
        if screening.restatement is None and screening.for_judge:
            questions.append((i, record, screening.for_judge))
    if not questions:
        return {}
    if model is not None:
        return await _ask_model(model, questions[0][1].group_id, questions, usage)
    if judge is None:
        return {}
    out: Verdicts = {}
    for i, record, shown in questions:
        verdict = await ask_judge(judge, record.to_fact(), [c.to_fact() for c in shown])
        out[i] = _entry(verdict.contradicts, verdict.duplicate_of, {c.uuid: c.uuid for c in shown})
    return out


def _entry(contradicts: Sequence[str], duplicate_of: str | None, shown: Mapping[str, str]) -> JudgedFact:
    """Map the ids a judge named to uuids; what it was not shown is refused."""
    refused = [x for x in dict.fromkeys(contradicts) if x not in shown]
    if duplicate_of is not None and duplicate_of not in shown:
        refused.append(duplicate_of)
    return JudgedFact(
        contradicts=tuple(shown[x] for x in dict.fromkeys(contradicts) if x in shown),
        duplicate_of=shown.get(duplicate_of) if duplicate_of is not None else None,
        shown=tuple(sorted(shown.values())),
        refused=tuple(refused),
    )


async def _ask_model(
    model: ModelClient, group_id: str, questions: list[tuple[int, FactRecord, list[FactRecord]]], usage: Usage
) -> Verdicts:
    ids: dict[str, str] = {}  # existing fact uuid -> E id, one id per fact across the call
    rows = []
    by_new: dict[str, tuple[int, dict[str, str]]] = {}
    for n, (i, record, shown) in enumerate(questions, 1):
        cands = []
        local: dict[str, str] = {}
        for cand in shown:
            eid = ids.setdefault(cand.uuid, f"E{len(ids) + 1}")
            local[eid] = cand.uuid
            cands.append((eid, cand))
        rows.append((f"N{n}", record, cands))
        by_new[f"N{n}"] = (i, local)
    prompt = judge_prompt(rows)
    answer = await model.structured(
        "judge", system=prompt.system, user=prompt.user, schema=JudgeAnswer, small=True, usage=usage,
        group_id=group_id,
    )
    out: Verdicts = {}
    for verdict in answer.verdicts:
        entry = by_new.get(verdict.new_fact)
        if entry is None:
            continue
        i, local = entry
        out[i] = _entry(verdict.contradicts, verdict.duplicate_of, local)
    return out
