"""Building a block from what the memory gathered: the candidate lines and
their values, the layout, the template. Pure: no I/O, no model.

Values. Each scope's hits are worth their relevance: half their score
relative to the scope's best, half ``1 / (1 + rank / 4)`` (search scores
are comparable within one list only, and ranks keep a steep score scale from
hiding the second hit). Then by kind: a fact holding at the block's moment
1.0, an event 0.9, a fact that ended by then 0.75, one that begins later
0.5; an entity's summary 0.5; an episode 1.0, or 0.6 when its speaker is
the assistant, the system or a tool (the memory's own words say less about
the world). A fact or entity line that shares only names with a question that
has other words too is worth a tenth (``NAME_ONLY``). When the question
names one of the episodes' speakers, another speaker's episodes are worth
``OTHER_VOICE`` (half): what Sam did is told in Sam's words. An episode is worth at least
0.8 of the best fact that cites it, so a relevant fact brings the words it
came from (the memory reads those sources in, found by search or not), and
a reply at least 0.8 of the episode that asked it (the memory reads the
reply after each of the best asking episodes). An episode worth at least
half the most an episode can be (``WHOLE_SHARE``) is cut only past twice
the excerpt length: the answer is most likely in the best few, and the
sentence that holds it need not share a word with the question. A block's user line, when
there is one, goes first and is paid for before anything else.

Layout (the default): the user line, then ``Facts:`` (those holding at the
moment first, then events, then ended and later ones; each group by value),
``Entities:``, ``Episodes:`` (in time order, each day once above its
lines: ``2024-05-20:`` then ``[id] Sam: ...``), a section only when it has
lines; with ``as_of`` / ``known_at`` a first line says so. The parts a
template gets keep the day and the citation on each episode line
(``[2024-05-20] Sam: ... (ep id)``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..errors import InvalidInputError
from ..model import Entity, Episode, Fact
from ..search.question import analyse
from ..search.types import Hit
from .excerpt import EXCERPT_CHARS, excerpt, speaker_in, terms
from .pack import Piece, pack
from .render import Citations, entity_line, episode_line, fact_line, user_line
from .tokens import EstimateCounter, TokenCounter
from .types import Context, ContextParts

__all__ = ["Material", "Template", "build"]

Template = str | Callable[[ContextParts], str]

_HEADINGS = {"facts": "Facts:", "entities": "Entities:", "episodes": "Episodes:"}
_QUIET_ROLES = {"assistant", "system", "tool"}
_DAY = re.compile(r"(\[\d{4}-\d{2}-\d{2}\]) ")


@dataclass(slots=True)
class Material:
    """What the memory read for a block."""

    query: str
    moment: datetime  # the moment facts are told as of: as_of, else known_at, else now
    as_of: datetime | None
    known_at: datetime | None
    point_in_time: bool = False  # a view of ``AsyncMemory.at``: entities shown without what has no history
    facts: list[Hit[Fact]] = field(default_factory=list)
    entities: list[Hit[Entity]] = field(default_factory=list)
    episodes: list[Hit[Episode]] = field(default_factory=list)
    sources: dict[str, Episode] = field(default_factory=dict)  # episodes the facts cite that search did not rank
    replies: dict[str, Episode] = field(default_factory=dict)  # an asking episode's uuid -> the reply after it
    replaced: dict[str, Fact] = field(default_factory=dict)  # fact uuid -> the latest fact it replaced
    # fact uuid -> what contradicts it, open and scoring above zero: (what says so, score), best first
    contradicted: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    summaries: dict[str, str | None] = field(default_factory=dict)  # entity uuid -> summary as of the moment
    user: Entity | None = None
    user_summary: str | None = None


def _relevance(hits: Sequence[Hit[Any]]) -> list[float]:
    top = max((h.score for h in hits), default=0.0)
    return [
        0.5 * (max(h.score, 0.0) / top if top > 0 else 0.0) + 0.5 / (1 + rank / 4) for rank, h in enumerate(hits)
    ]


def _fact_kind(fact: Fact, moment: datetime) -> int:
    """0: holds at the moment; 1: an event; 2: ended by then; 3: begins later."""
    if fact.event:
        return 1
    if fact.valid_at > moment:
        return 3
    if fact.invalid_at is not None and fact.invalid_at <= moment:
        return 2
    return 0


_FACT_WEIGHTS = (1.0, 0.9, 0.75, 0.5)
SOURCE_SHARE = 0.8  # an episode is worth at least this share of the best fact citing it
REPLY_SHARE = 0.8  # the reply to an episode that asks something is worth at least this share of it
WHOLE_SHARE = 0.5  # an episode worth this much (of 1) is cut only past twice the excerpt length
NAME_ONLY = 0.1  # a fact that shares only names with a query that has other words too is worth this share


def _by_name_only(query: str, wanted: frozenset[str]) -> Callable[[str], bool]:
    """Whether a text shares words with the query but only its names (its
    capitalised words), while the query has other words too: "Melanie likes
    pottery" for "when did Melanie run a charity race?". A text that shares
    no word at all (found by an embedding's likeness) is not judged here."""
    names = terms(" ".join(analyse(query).capitalised)) & wanted
    if not names or names == wanted:
        return lambda text: False

    def only(text: str) -> bool:
        shared = terms(text) & wanted
        return bool(shared) and shared <= names

    return only


def _contradicted(against: list[tuple[str, float]] | None) -> str:
    """What a fact line says of the open contradictions against it: an agent
    about to rely on a standing rule is told that something disagrees."""
    if not against:
        return ""
    said = "; ".join(f'"{text}" (score {score:.2f})' for text, score in against[:2])
    more = f" and {len(against) - 2} more" if len(against) > 2 else ""
    return f" [CONTRADICTED, unresolved: {said}{more}]"


def _pieces(m: Material, cite: Citations, wanted: frozenset[str], counter: TokenCounter) -> list[Piece]:
    out: list[Piece] = []
    name_only = _by_name_only(m.query, wanted)
    fact_values: list[float] = []
    for fact_hit, rel in zip(m.facts, _relevance(m.facts), strict=True):
        fact = fact_hit.item
        before = m.replaced.get(fact.uuid)
        line = fact_line(fact, m.moment, cite, before) + _contradicted(m.contradicted.get(fact.uuid))
        rel *= NAME_ONLY if name_only(fact.fact) else 1.0
        fact_values.append(rel)
        out.append(Piece(
            "facts", line, rel * _FACT_WEIGHTS[_fact_kind(fact, m.moment)], fact_hit, terms=frozenset(terms(line)),
            cites=fact.episodes, covers=frozenset({before.uuid}) if before else frozenset(), uuid=fact.uuid,
            extra={"kind": _fact_kind(fact, m.moment)},
        ))
    for hit, rel in zip(m.entities, _relevance(m.entities), strict=True):
        entity = hit.item
        summary = m.summaries.get(entity.uuid)
        if not summary or (m.user is not None and entity.uuid == m.user.uuid):
            continue  # a name alone tells little; the user has their own line
        rel *= NAME_ONLY if name_only(f"{entity.name} {summary}") else 1.0
        out.append(Piece(
            "entities", entity_line(entity, summary), rel * 0.5, hit, uuid=entity.uuid,
            terms=frozenset(terms(summary)),
        ))
    out += _episode_pieces(m, cite, wanted, fact_values)
    texts = [f"{_compact(piece)[1]}\n" for piece in out]
    days = sorted({f"{_compact(p)[0]}\n" for p in out if p.section == "episodes"})
    sizes = _sizes([*texts, *(f"{title}\n" for title in _HEADINGS.values()), *days], counter)
    headings = dict(zip(_HEADINGS, sizes[len(texts):], strict=False))
    day_sizes = dict(zip(days, sizes[len(texts) + len(_HEADINGS):], strict=True))
    for i, (piece, size) in enumerate(zip(out, sizes, strict=False)):
        piece.order = i
        piece.headings = ((piece.section, headings[piece.section]),)
        piece.tokens = size
        if piece.section == "episodes":  # the default layout says each day once, above its lines
            day = f"{_compact(piece)[0]}\n"
            piece.headings += ((day, day_sizes[day]),)
    return out


def _episode_pieces(m: Material, cite: Citations, wanted: frozenset[str], fact_values: list[float]) -> list[Piece]:
    """The episodes search ranked, those the facts cite and the replies to
    those that ask, each worth the most of its own relevance, its share of
    the best fact citing it and its share of the episode it answers."""
    vouched: dict[str, float] = {}  # episode id -> the relevance of the best fact citing it
    for fact_hit, rel in zip(m.facts, fact_values, strict=True):
        for eid in fact_hit.item.episodes:
            vouched[eid] = max(vouched.get(eid, 0.0), rel)
    ranked = list(zip(m.episodes, _relevance(m.episodes), strict=True))
    ranked += [(Hit(e, 0.0, ("cited",)), 0.0) for e in m.sources.values()]
    asked: dict[str, float] = {}  # a reply's id -> the relevance of the best episode it answers
    for hit, rel in ranked:
        reply = m.replies.get(hit.item.uuid)
        if reply is not None:
            asked[reply.uuid] = max(asked.get(reply.uuid, 0.0), rel)
    seen = {h.item.uuid for h, _ in ranked}
    for reply in m.replies.values():
        if reply.uuid not in seen:
            seen.add(reply.uuid)
            ranked.append((Hit(reply, 0.0, ("reply",)), 0.0))
    top = max((h.score for h in m.episodes), default=0.0)
    voice = _voice(m.query, [h.item for h, _ in ranked])
    out: list[Piece] = []
    for hit, own in ranked:
        episode = hit.item
        if not episode.content:
            continue
        if _filler(hit, top, wanted) and episode.uuid not in vouched and episode.uuid not in asked:
            continue
        rel = max(own, SOURCE_SHARE * vouched.get(episode.uuid, 0.0), REPLY_SHARE * asked.get(episode.uuid, 0.0))
        text = excerpt(episode.content, wanted, EXCERPT_CHARS * (2 if rel >= WHOLE_SHARE else 1))
        weight = (0.6 if (episode.role or "").casefold() in _QUIET_ROLES else 1.0) * voice(episode)
        out.append(Piece(
            "episodes", episode_line(episode, text, cite), rel * weight, hit, terms=frozenset(terms(text)),
            episode=episode.uuid, uuid=episode.uuid,
        ))
    return out


OTHER_VOICE = 0.5  # an episode said by someone else, when the question names a speaker: this share


def speaker_of(episode: Episode) -> str | None:
    """Who said an episode: its speaker, else the name a message starts with (``Sam: ...``)."""
    return episode.speaker or speaker_in(episode.content or "")


def _voice(query: str, episodes: Sequence[Episode]) -> Callable[[Episode], float]:
    """What an episode's speaker is worth to a question that names one of
    the speakers ("what does Sam do to relax?"): Sam's own words say what Sam
    did; another's that only name Sam ("thanks, Sam!") say less. Questions
    that name no speaker weigh every episode alike."""
    names = analyse(query).capitalised
    if not names:
        return lambda episode: 1.0
    speakers = {e.uuid: s.casefold() for e in episodes if (s := speaker_of(e))}
    named = {s for s in speakers.values() if s in names or s.split()[0] in names}
    if not named:
        return lambda episode: 1.0
    return lambda episode: 1.0 if speakers.get(episode.uuid, next(iter(named))) in named else OTHER_VOICE


FILLER_SHARE = 0.45  # an episode sharing no word with the query needs this share of the best episode's score


def _filler(hit: Hit[Any], top: float, wanted: frozenset[str]) -> bool:
    """An episode found only by a weak likeness (no word of the query in it, a small share of the best
    score): it would fill the budget, not answer ("who is Maya" and an assistant's reply about Go)."""
    if not wanted or top <= 0 or "cited" in hit.methods:
        return False
    return hit.score < FILLER_SHARE * top and not terms(hit.item.content or "") & wanted


def _compact(piece: Piece) -> tuple[str, str]:
    if piece.section != "episodes":
        return "", f"- {piece.line}"
    day, line = compact_line(piece.line)
    return day or "", line


def compact_line(line: str) -> tuple[str | None, str]:
    """An episode's part line (``[2024-05-20] Sam: excerpt (ep id)``) as the
    default layout writes it: its day heading (``2024-05-20:``) and
    ``[id] Sam: excerpt``; any other line as ``- line``."""
    found = _DAY.match(line)
    head, sep, cited = line.rpartition(" (ep ")
    if found is None or not sep or not cited.endswith(")"):
        return None, f"- {line}"
    return f"{found.group(1)[1:-1]}:", f"[{cited[:-1]}] {head[found.end():]}"


def _sizes(texts: Sequence[str], counter: TokenCounter) -> list[int]:
    """Each text's size: the counter's count of them all, shared out by
    length (counting texts one by one costs a call each, and a caller's
    counter may be slow). The estimate counts each, being cheap."""
    if isinstance(counter, EstimateCounter) or not texts:
        return [counter.count(t) for t in texts]
    ratio = counter.count("".join(texts)) / max(sum(len(t) for t in texts), 1)
    return [max(1, round(len(t) * ratio)) for t in texts]


def _title(m: Material) -> str | None:
    said = []
    if m.as_of is not None:
        said.append(f"as of {m.as_of.isoformat()}")
    if m.known_at is not None:
        said.append(f"as known at {m.known_at.isoformat()}")
    return f"Memory {', '.join(said)}:" if said else None


def _ordered(chosen: Sequence[Piece]) -> dict[str, list[Piece]]:
    """The chosen pieces of each section in block order."""
    return {
        "facts": sorted(
            (p for p in chosen if p.section == "facts"), key=lambda p: (p.extra["kind"], -p.value, p.order)
        ),
        "entities": sorted((p for p in chosen if p.section == "entities"), key=lambda p: (-p.value, p.order)),
        "episodes": sorted(
            (p for p in chosen if p.section == "episodes"),
            key=lambda p: (p.item.item.reference_time, p.item.item.created_at, p.uuid),
        ),
    }


def _parts(m: Material, chosen: Sequence[Piece], user: str | None) -> ContextParts:
    by = _ordered(chosen)
    return ContextParts(
        user=m.user if user is not None else None,
        facts=[p.line for p in by["facts"]], entities=[p.line for p in by["entities"]],
        episodes=[p.line for p in by["episodes"]],
        as_of=m.as_of, known_at=m.known_at, query=m.query, user_line=user,
    )


def default_layout(parts: ContextParts, title: str | None = None) -> str:
    lines = [title] if title else []
    if parts.user_line:
        lines.append(f"User: {parts.user_line}")
    for name, items in (("facts", parts.facts), ("entities", parts.entities), ("episodes", parts.episodes)):
        if items:
            lines.append(_HEADINGS[name])
            day = None
            for item in items:
                heading, line = compact_line(item) if name == "episodes" else (None, f"- {item}")
                if heading is not None and heading != day:  # in time order: each day once, above its lines
                    day = heading
                    lines.append(day)
                lines.append(line)
    return "\n".join(lines)


def apply_template(template: Template | None, parts: ContextParts, title: str | None) -> str:
    """The block laid out by ``template`` (a format string over
    :meth:`ContextParts.fields`, or a function of the parts), or by default."""
    if template is None:
        return default_layout(parts, title)
    if isinstance(template, str):
        _check_fields(template, parts.fields())
        try:
            return template.format(**parts.fields())
        except (KeyError, IndexError, ValueError, AttributeError, TypeError) as exc:
            names = ", ".join(sorted(parts.fields()))
            raise InvalidInputError("template", f"cannot be filled ({type(exc).__name__}: {exc}); "
                                                f"its fields are {names}") from None
    text = template(parts)
    if not isinstance(text, str):
        raise InvalidInputError("template", f"must return a string, got {type(text).__name__}")
    return text


def _check_fields(template: str, fields: dict[str, Any]) -> None:
    """Plain ``{name}`` fields only: a format string over REST must not reach into objects (``{user.__class__}``)
    or pad a field to a gigabyte (``{user:>999999999}``)."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise InvalidInputError("template", f"not a format string: {exc}") from None
    for _, name, spec, _conversion in parsed:
        if name is None:
            continue
        if name not in fields:
            raise InvalidInputError(
                "template", f"unknown field {{{name}}}: a field is a plain name, one of {', '.join(sorted(fields))}"
            )
        if spec:
            raise InvalidInputError("template", f"field {{{name}}} has a format spec ({spec!r}); none is allowed")


def _user_line(m: Material, counter: TokenCounter, budget: int) -> str | None:
    """The user's line, its summary cut to a quarter of the budget (the name alone if even that is too long)."""
    if m.user is None:
        return None
    line = user_line(m.user, m.user_summary)
    words = line.split(" ")
    while len(words) > 1 and counter.count(" ".join(words)) > budget // 4:
        words = words[: max(1, len(words) * 3 // 4)]
    cut = " ".join(words)
    if cut != line:
        cut = cut.rstrip(" ,;:.") + "…" if len(words) > len(m.user.name.split(" ")) else m.user.name
    return cut


def build(
    m: Material, *, counter: TokenCounter, max_tokens: int, template: Template | None
) -> Context:
    """The block: candidate lines valued, packed within ``max_tokens`` (as
    ``counter`` counts the final text), laid out."""
    wanted = terms(m.query)
    cite = Citations(
        [e for h in m.facts for e in h.item.episodes[:2]] + [h.item.uuid for h in m.episodes]
    )
    pieces = _pieces(m, cite, wanted, counter)
    user = _user_line(m, counter, max_tokens)
    title = _title(m)

    def layout(chosen: list[Piece]) -> str:
        return apply_template(template, _parts(m, chosen, user), title)

    if user is not None and counter.count(layout([])) > max_tokens:
        user = None
    empty = layout([])
    if counter.count(empty) > max_tokens:
        field_name = "template" if template is not None else "max_tokens"
        raise InvalidInputError(field_name, f"the block's fixed text alone is more than max_tokens ({max_tokens})")
    chosen, text, size = pack(pieces, layout=layout, counter=counter, max_tokens=max_tokens)
    used = {id(p) for p in chosen}
    by = _ordered(chosen)
    return Context(
        text=text,
        facts=[p.item for p in by["facts"]],
        entities=[p.item for p in by["entities"]],
        episodes=[p.item for p in by["episodes"]],
        user=m.user if user is not None else None,
        tokens=size,
        max_tokens=max_tokens,
        counter=counter.name,
        left_out=[p.item for p in sorted(pieces, key=lambda p: p.order) if id(p) not in used],
        query=m.query,
        as_of=m.as_of,
        known_at=m.known_at,
        parts=_parts(m, chosen, user),
    )
