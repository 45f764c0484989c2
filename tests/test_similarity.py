"""Name similarity for entity resolution: the predicates, the pair table, and
merge decisions over several candidates."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from itertools import count

import numpy as np
import pytest

from kronograph.embed import HashingEmbedder
from kronograph.ingest.similarity import (
    MERGE_AT,
    PLAUSIBLE_AT,
    MergeDecision,
    ScoredCandidate,
    acronym_of,
    contains_words,
    decide_merge,
    is_identifier,
    name_tokens,
    score_candidates,
    string_similarity,
)
from kronograph.model import Entity

_ids = count(1)


def ent(name: str, labels: Sequence[str] = (), aliases: Sequence[str] = (), *, age: int = 0) -> Entity:
    """An entity; a larger ``age`` makes it older."""
    n = next(_ids)
    created = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(seconds=n) - timedelta(days=age)
    return Entity(
        uuid=f"e{n:04d}", group_id="g", name=name, labels=tuple(labels), aliases=tuple(aliases), created_at=created
    )


def decide(name: str, *names: str, labels: Sequence[str] = ()) -> MergeDecision:
    return decide_merge(score_candidates(name, labels, None, [(ent(n), None) for n in names]))


# -- predicates ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["SR-2023-052", "INV-0042", "PR #123", "v2.3.1", "ABC123", "42", "Apollo 11", "Q3 2023", "ISO 9001"]
)
def test_identifiers(name: str) -> None:
    assert is_identifier(name)


@pytest.mark.parametrize(
    "name", ["Acme Robotics", "IBM", "Alice Moreno", "2023 Annual Report", "New York City", "", "R2 unit of Acme"]
)
def test_not_identifiers(name: str) -> None:
    assert not is_identifier(name)


@pytest.mark.parametrize(
    ("short", "long"),
    [
        ("NYC", "New York City"),
        ("IBM", "International Business Machines"),
        ("IBM", "International Business Machines Corp."),
        ("MIT", "Massachusetts Institute of Technology"),
        ("BoA", "Bank of America"),
        ("N.Y.C.", "New York City"),
        ("HP", "Hewlett-Packard"),
        ("un", "United Nations"),
    ],
)
def test_acronyms(short: str, long: str) -> None:
    assert acronym_of(short, long)


@pytest.mark.parametrize(
    ("short", "long"),
    [
        ("NYC", "New York"),
        ("IBM", "Intel"),
        ("Acme", "Acme Robotics"),
        ("New York City", "NYC"),
        ("ABCDEFGHIJ", "a b c d e f g h i j"),
        ("NY", "New"),
    ],
)
def test_not_acronyms(short: str, long: str) -> None:
    assert not acronym_of(short, long)


def test_acronym_stop_words_can_be_kept() -> None:
    assert not acronym_of("MIT", "Massachusetts Institute of Technology", ignore_stop_words=False)
    assert acronym_of("MIOT", "Massachusetts Institute of Technology", ignore_stop_words=False)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("Acme", "Acme Robotics", True),
        ("Acme Robotics", "Acme", True),
        ("Alice", "Alice Moreno", True),
        ("Moreno", "Alice Moreno", True),
        ("Alice Moreno", "Alice B. Moreno", True),
        ("New York", "New York City", True),
        ("New", "New York", False),
        ("Bank", "Acme Bank", False),
        ("The", "The Hague", False),
        ("Acme Robotics", "Acme Bank", False),
        ("Acme", "Acme", False),
        ("Alice Moreno", "Alice Chen", False),
    ],
)
def test_contains_words(a: str, b: str, expected: bool) -> None:
    assert contains_words(a, b) is expected


def test_string_similarity_bounds_and_order() -> None:
    assert string_similarity("Acme Robotics", "acme robotics") == 1.0
    assert string_similarity("Robotics Acme", "Acme Robotics") == 1.0
    assert string_similarity("Acme Robotics", "Acme Robotics Inc.") == 1.0  # legal suffixes do not count
    assert string_similarity("Acme", "") == 0.0
    typo = string_similarity("Acme Robotcs", "Acme Robotics")
    other = string_similarity("Acme Robotics", "Berlin")
    assert 0.0 <= other < 0.5 < 0.9 < typo <= 1.0


def test_name_tokens_fold_case_accents_and_punctuation() -> None:
    assert name_tokens("Zürich-Café") == ("zurich", "cafe")
    assert name_tokens("O'Brien & Sons") == ("obrien", "sons")


# -- the pair table: one candidate each ------------------------------------------

MERGE = [
    ("Acme Robotics", "acme  robotics", "exact"),
    ("Acme Robotics", "Acme Robotics Inc.", "equivalent"),
    ("Acme Robotics GmbH", "Acme-Robotics", "equivalent"),
    ("Dr. Alice Moreno", "Alice Moreno", "equivalent"),
    ("Zürich", "Zurich", "equivalent"),
    ("Moreno, Alice", "Alice Moreno", "reordered"),
    ("IBM", "International Business Machines", "acronym"),
    ("NYC", "New York City", "acronym"),
    ("International Business Machines", "IBM", "acronym"),
    ("Acme", "Acme Robotics", "prefix"),
    ("Alice", "Alice Moreno", "prefix"),
    ("Alice Moreno", "Alice", "prefix"),
    ("New York", "New York City", "prefix"),
    ("Alice Moreno", "Alice B. Moreno", "anchored"),
    ("A. Moreno", "Alice Moreno", "initials"),
    ("Acme Robotcs", "Acme Robotics", "fuzzy"),
    ("SR-2023-052", "sr-2023-052", "exact"),
]


@pytest.mark.parametrize(("name", "candidate", "kind"), MERGE)
def test_pairs_that_merge(name: str, candidate: str, kind: str) -> None:
    scored = score_candidates(name, [], None, [(ent(candidate), None)])
    assert [c.kind for c in scored] == [kind]
    d = decide_merge(scored)
    assert d.outcome == "merge", d.reason
    assert d.entity is not None and d.entity.name == candidate


PLAUSIBLE = [
    ("Moreno", "Alice Moreno", "subset"),
    ("Robotics", "Acme Robotics", "subset"),
    ("Berlin", "Bern", "fuzzy"),
    ("UN", "United Nations", "acronym"),  # two letters collide too easily to merge alone
]


@pytest.mark.parametrize(("name", "candidate", "kind"), PLAUSIBLE)
def test_pairs_that_are_only_plausible(name: str, candidate: str, kind: str) -> None:
    d = decide(name, candidate)
    assert d.outcome == "ambiguous", d.reason
    assert [c.kind for c in d.candidates] == [kind]
    assert PLAUSIBLE_AT <= d.candidates[0].score < MERGE_AT


NEVER = [
    ("SR-2023-052", "SR-2023-053"),
    ("SR-2023-052", "SR 2023 052"),  # identifiers match exactly or not at all
    ("INV-0042", "INV-0043"),
    ("PR #123", "PR #124"),
    ("v2.3.1", "v2.3.2"),
    ("ABC123", "ABC124"),
    ("Apollo 11", "Apollo 13"),
    ("2023 Annual Report", "2024 Annual Report"),
    ("Acme", "Acme 2"),
    ("Alice Moreno", "Alice Chen"),
    ("Alice Moreno", "Alicia Moreno"),
    ("Acme Robotics", "Acme Bank"),
    ("A. Chen", "Alice Moreno"),
    ("New", "New York"),
    ("Bank", "Acme Bank"),
    ("University", "University of Berlin"),
    ("NYC", "New York"),
    ("Acme", "Acne"),
    ("Berlin", "Alice"),
    ("Bob Smith", "Robert Smith"),  # nicknames: a known gap, never a wrong merge
    ("", "Acme"),
]


@pytest.mark.parametrize(("name", "candidate"), NEVER)
def test_pairs_that_never_match(name: str, candidate: str) -> None:
    assert score_candidates(name, [], None, [(ent(candidate), None)]) == []
    assert decide(name, candidate).outcome == "new"


def test_identifiers_stay_apart_even_with_identical_vectors() -> None:
    v = np.ones(4, dtype=np.float32) / 2
    scored = score_candidates("SR-2023-052", [], v, [(ent("SR-2023-053"), v)])
    assert scored == []


def test_at_least_thirty_pairs_are_pinned() -> None:
    assert len(MERGE) + len(PLAUSIBLE) + len(NEVER) >= 30


# -- several candidates ----------------------------------------------------------


def test_acme_alone_merges_but_beside_acme_bank_is_ambiguous() -> None:
    assert decide("Acme", "Acme Robotics").outcome == "merge"
    d = decide("Acme", "Acme Robotics", "Acme Bank")
    assert d.outcome == "ambiguous"
    assert {c.entity.name for c in d.candidates} == {"Acme Robotics", "Acme Bank"}
    assert "no clear winner" in d.reason


def test_a_first_name_among_two_people_is_ambiguous() -> None:
    d = decide("Alice", "Alice Moreno", "Alice Chen")
    assert d.outcome == "ambiguous" and len(d.candidates) == 2
    assert decide("Alice Moreno", "Alice Chen", "Alice Moreno").entity.name == "Alice Moreno"  # type: ignore[union-attr]


def test_a_clear_margin_merges_over_a_weaker_candidate() -> None:
    d = decide("Acme", "Acme Robotics", "Robotics Acme Bank Group")
    assert d.outcome == "merge" and d.entity is not None and d.entity.name == "Acme Robotics"


def test_exact_match_wins_over_close_ones() -> None:
    d = decide("Acme Robotics", "Acme Robotics Inc.", "Acme Robotics", "Acme")
    assert d.outcome == "merge" and d.entity is not None and d.entity.name == "Acme Robotics"
    assert d.reason.startswith("exact match")


def test_several_exact_matches_choose_a_labelled_then_the_oldest() -> None:
    old, young, company = ent("Acme", age=10), ent("Acme", age=1), ent("Acme", ["Company"])
    both = [(old, None), (young, None)]
    assert decide_merge(score_candidates("Acme", [], None, both)).entity == old
    labelled = [(old, None), (company, None)]
    assert decide_merge(score_candidates("acme", ["Organization"], None, labelled)).entity == company


def test_aliases_count_as_names() -> None:
    robert = ent("Robert Smith", aliases=["Bob Smith", "Bobby"])
    d = decide_merge(score_candidates("Bob Smith", [], None, [(robert, None)]))
    assert d.outcome == "merge" and d.entity == robert
    assert d.candidates[0].matched == "Bob Smith" and d.candidates[0].kind == "exact"
    big_apple = ent("New York City", aliases=["The Big Apple"])
    assert decide_merge(score_candidates("NYC", [], None, [(big_apple, None)])).entity == big_apple


def test_incompatible_labels_exclude_a_candidate() -> None:
    fruit, company = ent("Apple", ["Food"]), ent("Apple Inc.", ["Company"])
    scored = score_candidates("Apple", ["Organization"], None, [(fruit, None), (company, None)])
    assert [c.entity for c in scored] == [company]
    assert scored[0].shares_label
    assert decide_merge(scored).entity == company
    assert score_candidates("Apple", [], None, [(fruit, None)])[0].kind == "exact"  # no labels: anything goes


def test_no_candidates_is_new() -> None:
    d = decide_merge([])
    assert (d.outcome, d.entity, d.candidates) == ("new", None, ())


def test_plausible_candidates_are_bounded() -> None:
    names = [f"Acme {w}" for w in ("Robotics", "Bank", "Foods", "Labs2", "Air", "Sea", "Rail", "Oil", "Gas", "Paper")]
    d = decide("Acme", *names)
    assert d.outcome == "ambiguous" and len(d.candidates) == 8


# -- vectors ---------------------------------------------------------------------


def vectors(*texts: str) -> list[np.ndarray]:
    return list(HashingEmbedder().embed_sync(list(texts)))


def test_cosine_is_reported_and_blends_into_fuzzy_scores() -> None:
    name, near = vectors("Acme Robotcs", "Acme Robotics")
    with_vectors = score_candidates("Acme Robotcs", [], name, [(ent("Acme Robotics"), near)])
    without = score_candidates("Acme Robotcs", [], None, [(ent("Acme Robotics"), None)])
    assert with_vectors[0].cosine is not None and without[0].cosine is None
    assert with_vectors[0].kind == without[0].kind == "fuzzy"
    assert with_vectors[0].score != without[0].score


def test_cosine_does_not_change_rule_matches() -> None:
    name, far = vectors("IBM", "International Business Machines")
    scored = score_candidates("IBM", [], name, [(ent("International Business Machines"), far)])
    assert scored[0].kind == "acronym" and scored[0].score == 0.9
    assert scored[0].cosine is not None and scored[0].cosine < 0.3


def test_near_identical_vectors_make_conflicting_names_plausible_never_merged() -> None:
    v = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    scored = score_candidates("The Big Apple", [], v, [(ent("New York City"), v)])
    assert [c.kind for c in scored] == ["semantic"]
    assert decide_merge(scored).outcome == "ambiguous"
    assert score_candidates("The Big Apple", [], v, [(ent("New York City"), np.array([0.0, 1.0, 0.0]))]) == []


def test_mismatched_or_zero_vectors_are_ignored() -> None:
    zero, short = np.zeros(3), np.ones(2)
    scored = score_candidates("Acme", [], zero, [(ent("Acme Robotics"), zero), (ent("Acme Robotics X"), short)])
    assert all(c.cosine is None for c in scored)


def test_results_are_sorted_best_first() -> None:
    scored = score_candidates(
        "Acme", [], None, [(ent("Acme Robotics Foods"), None), (ent("Acme"), None), (ent("Foods Acme"), None)]
    )
    assert [c.kind for c in scored] == ["exact", "prefix", "subset"]
    assert all(isinstance(c, ScoredCandidate) for c in scored)
    assert [c.score for c in scored] == sorted((c.score for c in scored), reverse=True)
