"""The built-in event relations: moments, not standing facts.

``Sam LEFT Northwind`` happened on a day; it is not something that stays true
from then on, as ``Sam WORKS_AT Northwind`` does. The relations below (the
moment relations the offline extractor emits, and those a model typically
writes) are events by default for the facts ingestion extracts; a declared
:class:`~kronograph.model.RelationType` with ``event`` set overrides them,
and a relation with neither stays a state. Links that hold, such as
``ENGAGED_TO``, ``MARRIED_TO``, ``BORN_IN``, ``STUDIED_AT`` or ``FOUNDED``,
stay states: an agent asking what is true now must still see them.

This module imports nothing of kronograph but the model, so that the
store's migrations back-fill existing facts with the same list.
"""

from __future__ import annotations

from .model import RelationType, fold_relation

__all__ = ["BUILT_IN_EVENTS", "MEALS", "event_default", "is_built_in_event"]

# HAD_<MEAL>_WITH: the meals and drinks people tell of having with someone.
MEALS = ("lunch", "dinner", "breakfast", "brunch", "coffee", "drinks", "drink", "tea")

_MOMENTS = (
    # what the offline extractor emits for moments
    "LEFT", "MET", "VISITED",
    # what a model typically writes for a moment; not those that may stand for
    # the link they begin (BOUGHT, ADOPTED, HIRED, STARTED_AT): a state is safer
    "JOINED", "MOVED_TO", "MOVED_FROM", "RELOCATED_TO", "GOT_ENGAGED_TO", "GOT_MARRIED_TO", "GOT_DIVORCED_FROM",
    "BROKE_UP_WITH", "GRADUATED_FROM", "QUIT", "RESIGNED_FROM", "RETIRED_FROM", "WAS_FIRED_FROM", "FIRED_FROM",
    "LAID_OFF_FROM", "WAS_LAID_OFF_FROM", "ATTENDED", "BORN", "WAS_BORN", "DIED", "TRAVELED_TO", "TRAVELLED_TO",
    "FLEW_TO", "RETURNED_FROM", "ARRIVED_IN", "INTERVIEWED_AT", "INTERVIEWED_WITH", "SPOKE_WITH", "TALKED_TO",
    "CALLED", "EMAILED",
)

BUILT_IN_EVENTS: frozenset[str] = frozenset(
    {fold_relation(r) for r in _MOMENTS} | {fold_relation(f"HAD_{meal}_WITH") for meal in MEALS}
)
"""The folded keys of the built-in event relations."""


def is_built_in_event(relation: str) -> bool:
    """Whether the built-in defaults make ``relation`` (any spelling) an event."""
    return fold_relation(relation) in BUILT_IN_EVENTS


def event_default(declared: RelationType | None, relation: str, *, built_in: bool) -> bool:
    """Whether a new fact of ``relation`` is an event: as its declared type
    says when that says either way, else as the built-in defaults say where
    they apply (``built_in``: facts ingestion extracts), else a state."""
    if declared is not None and declared.event is not None:
        return declared.event
    return built_in and is_built_in_event(relation)
