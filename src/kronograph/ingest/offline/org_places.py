"""Where an organisation is, said in passing: "a Cessna at the Rand Flying
Club in Germiston", "she's at Leeds General Infirmary in Leeds now". A name
that reads as an organisation by its own words (Club, Hospital, University,
Ltd ...) followed by "in" and a place is located there, whatever the rest of
the sentence says (where a club is does not depend on whether one joins it),
unless a clause of the sentence already read it as its object."""

from __future__ import annotations

from .context import Context, Subject
from .names import Run, Token, known_city, name_label
from .patterns import phrase

__all__ = ["read_org_places"]

# what names an organisation by its last word besides the suffixes every reader knows (names.py)
_BODIES = frozenset(
    "club infirmary library museum orchestra society association council trust church theatre theater gallery hotel "
    "stadium airport station market brewery winery surgery practice".split()
)
# a place on a street is no town
_STREETS = frozenset("road street st avenue ave lane way drive close square park hill place row".split())
_CLOSE = frozenset({",", ".", "!", "?", ";", ")", "and", "but", "so", "now", "too", "lol"})


def read_org_places(tokens: list[Token], runs: list[Run], ctx: Context, text: str) -> int:
    """The LOCATED_IN facts of "<Organisation> in <Place>" in one sentence."""
    runs_at = {r.first: r for r in runs}
    made = 0
    for org in runs:
        k = org.last + 1
        if k + 1 >= len(tokens) or tokens[k].lower != "in" or not _organisation(org.name):
            continue
        place = runs_at.get(k + 1) or known_city(tokens, k + 1)
        if place is None or _organisation(place.name) or place.name.split()[-1].lower() in _STREETS:
            continue
        if place.last + 1 < len(tokens) and tokens[place.last + 1].lower not in _CLOSE:
            continue  # "Acme Bank in Leeds Road": not a place on its own
        if place.name.casefold() in ctx.people or not all(w.isalpha() for w in place.name.split()):
            continue
        read = {f.relation for f in ctx.facts.values() if f.object == org.name}
        if read - {"LIVES_IN"}:
            continue  # a clause read it already ("owns the Polar Light Hotel in Tromsø"): only in passing here
        ctx.mention(org.name, "Organization")
        ctx.mention(place.name, "Location")
        made += ctx.add_fact(Subject(org.name, 0.8), "LOCATED_IN", (place.name, "Location"), (None, None), text)
        made += _moved_to_work(org.name, place.name, ctx)
    return made


def _moved_to_work(org: str, place: str, ctx: Context) -> int:
    """ "kenji moved to the National Diet Library in Tokyo": a move to an organisation is a new job, in its town."""
    made = 0
    for key, fact in list(ctx.facts.items()):
        if fact.relation != "LIVES_IN" or fact.object != org:
            continue
        del ctx.facts[key]
        ctx.entities[org.casefold()].labels = ["Organization"]
        works = fact.model_copy(update={"relation": "WORKS_AT", "fact": f"{fact.subject} {phrase('WORKS_AT')} {org}"})
        lives = fact.model_copy(update={"object": place, "fact": f"{fact.subject} {phrase('LIVES_IN')} {place}"})
        for new in (works, lives):
            key = (new.subject.casefold(), new.relation, new.object.casefold())
            made += key not in ctx.facts
            ctx.facts.setdefault(key, new)
    return made


def _organisation(name: str) -> bool:
    return name_label(name) == "Organization" or name.split()[-1].lower() in _BODIES
