"""Corrections of an earlier message (ingest/offline/thread_corrections.py): "sorry, I meant Y, not X" takes back
the earlier fact about X (expired, as never true) and puts Y in its place; nothing without a word that owns up
to a mistake, nothing for a name no earlier fact had."""

from __future__ import annotations

import pytest

from kronograph import Memory

from .offline_thread_reading import SAM, last_facts


@pytest.mark.parametrize(
    ("earlier", "correction", "taken_back", "instead"),
    [
        ("my brother Tom works at Globex", "sorry, I meant Initech, not Globex", ("Tom", "Globex"),
         ("Tom", "WORKS_AT", "Initech")),
        ("we live in Leith", "oops, wrong, it's Portobello not Leith", (SAM, "Leith"), (SAM, "LIVES_IN", "Portobello")),
        ("I work at Northwind Traders", "correction from earlier: it's Southwind Traders, not Northwind Traders",
         (SAM, "Northwind Traders"), (SAM, "WORKS_AT", "Southwind Traders")),
        ("my sister Ana lives in Porto", "i mixed them up, Ana lives in Braga, not porto", ("Ana", "Porto"),
         ("Ana", "LIVES_IN", "Braga")),
    ],
)
def test_a_correction_takes_back_the_earlier_fact(
    earlier: str, correction: str, taken_back: tuple[str, str], instead: tuple[str, str, str]
) -> None:
    facts = last_facts(earlier, correction)
    assert (taken_back[0], "NO_LONGER_LINKED_TO", taken_back[1]) in facts
    assert instead in facts


@pytest.mark.parametrize(
    "later",
    [
        "Initech, not Globex",  # no word owns up to a mistake
        "sorry, I meant Initech, not Acme",  # no earlier fact was about Acme
        "sorry, he is not at Globex today, he's working from home",  # "not at": no name right after "not"
    ],
)
def test_no_correction_without_a_cue_or_an_earlier_fact(later: str) -> None:
    facts = last_facts("my brother Tom works at Globex", later)
    assert not [f for f in facts if f[1] == "NO_LONGER_LINKED_TO" and f[0] == "Tom"]


def test_the_corrected_fact_is_expired_not_ended() -> None:
    with Memory(":memory:", model=None) as memory:
        memory.add_messages(
            "g",
            [
                {"role": "user", "content": "my husband Tom is a chef at Globex", "created_at": "2024-05-01T10:00Z"},
                {"role": "user", "content": "sorry, I meant Initech, not Globex", "created_at": "2024-05-03T10:00Z"},
            ],
            thread="t1",
            user_name=SAM,
        )
        now = {(f.subject, f.relation, f.object) for f in memory.facts("g")}
        then = {(f.subject, f.relation, f.object) for f in memory.facts("g", as_of="2024-05-02T00:00Z")}
    assert ("Tom", "WORKS_AT", "Initech") in now and ("Tom", "WORKS_AT", "Initech") in then
    assert ("Tom", "WORKS_AT", "Globex") not in now | then


# -- an organisation named later by the end of its name ----------------------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "later", "expected"),
    [
        ("i teach bass at Escola Vila Musical", "i quit teaching at vila musical",
         (SAM, "LEFT", "Escola Vila Musical")),
        ("I work at Northbridge Community Hospital", "I left Community Hospital in May",
         (SAM, "LEFT", "Northbridge Community Hospital")),
        ("i'm a nurse at Royal Tees Infirmary", "finally left tees infirmary", (SAM, "LEFT", "Royal Tees Infirmary")),
    ],
)
def test_the_end_of_a_longer_name_is_that_name(earlier: str, later: str, expected: tuple[str, str, str]) -> None:
    assert expected in last_facts(earlier, later)


def test_a_place_sharing_a_first_word_is_not_the_school() -> None:
    facts = last_facts("we just moved to Vila Madalena", "i quit teaching at vila musical")
    assert (SAM, "LEFT", "Vila Musical") in facts
    assert not [f for f in facts if f[2] == "Vila Madalena"]


# -- a job applied for, then got; a job left with its town -------------------------------------------------------


@pytest.mark.parametrize(
    ("applied", "got"),
    [
        ("I've applied to Northwind Health, fingers crossed", "got the job!! starting in september"),
        ("i have an interview at Northwind Health on friday", "they offered me the role 🎉"),
        ("just applied for a nurse post at Northwind Health", "GOT IT"),
        ("so i applied to Northwind Health", "got it!!! start on the 3rd"),
    ],
)
def test_a_job_applied_for_then_got(applied: str, got: str) -> None:
    assert (SAM, "WORKS_AT", "Northwind Health") in last_facts(applied, got)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("I've applied to Northwind Health", "got it, thanks"),  # understood, not hired
        ("I've applied to Northwind Health", "i didn't get the job"),
        ("my friend works at Northwind Health", "got the job!!"),  # nothing the user applied to
    ],
)
def test_no_job_without_an_application_and_a_yes(earlier: str, later: str) -> None:
    assert not [f for f in last_facts(earlier, later) if f[1] == "WORKS_AT"]


@pytest.mark.parametrize(
    "left", ["left Royal Infirmary last week", "i've finished at Royal Infirmary", "I resigned from royal infirmary"]
)
def test_a_job_left_takes_its_town(left: str) -> None:
    facts = last_facts("I'm a nurse at Royal Infirmary in Leeds, and I live in Leeds", left)
    assert (SAM, "NO_LONGER_WORKS_IN", "Leeds") in facts
    assert not [f for f in facts if f[1] in ("NO_LONGER_LIVES_IN", "NO_LONGER_LINKED_TO")]


# -- a move under way ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "out", "to"),
    [
        ("moving out of our flat in Leith this week, we found a house in Portobello", "Leith", "Portobello"),
        ("we're moving out of Leith today!! just bought a flat in Portobello", "Leith", "Portobello"),
        ("moving out of my studio in Gracia tomorrow, rented a room in Sants", "Gracia", "Sants"),
    ],
)
def test_a_move_under_way(text: str, out: str, to: str) -> None:
    facts = last_facts(text)
    assert (SAM, "NO_LONGER_LIVES_IN", out) in facts
    assert (SAM, "LIVES_IN", to) in facts
    assert (SAM, "LIVES_IN", out) not in facts


def test_a_move_next_month_is_no_move_yet() -> None:
    facts = last_facts("moving out of our flat in Leith next month, we found a house in Portobello")
    assert (SAM, "LIVES_IN", "Portobello") not in facts
    assert (SAM, "NO_LONGER_LIVES_IN", "Leith") not in facts


# -- "I said X. It's actually Y (now)" ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "subject", "relation", "old", "new"),
    [
        ("Sorry, I said Tom works at Acme Corp. It's actually Initech now, they merged in January.",
         "Tom", "WORKS_AT", "Acme Corp", "Initech"),
        ("I told you we live in Leith. Actually, it's Portobello, I always mix them up.",
         SAM, "LIVES_IN", "Leith", "Portobello"),
        ("oops, I mentioned that my sister Ana works at Globex. it's really Initech", "Ana", "WORKS_AT", "Globex",
         "Initech"),
    ],
)
def test_a_quoted_claim_then_the_right_name(text: str, subject: str, relation: str, old: str, new: str) -> None:
    facts = last_facts(text)
    assert (subject, "NO_LONGER_LINKED_TO", old) in facts
    assert (subject, relation, new) in facts


def test_a_change_now_ends_the_old_name_then_not_before() -> None:
    with Memory(":memory:", model=None) as memory:
        memory.add_messages(
            "g",
            [
                {"role": "user", "content": "my husband Tom works at Acme Corp", "created_at": "2024-03-01T10:00Z"},
                {"role": "user", "content": "Sorry, I said Tom works at Acme Corp. It's actually Initech now, "
                 "they were bought in April.", "created_at": "2024-05-01T10:00Z"},
            ],
            thread="t1",
            user_name=SAM,
        )
        now = {(f.subject, f.relation, f.object) for f in memory.facts("g")}
        before = {(f.subject, f.relation, f.object) for f in memory.facts("g", as_of="2024-03-15T00:00Z")}
    assert ("Tom", "WORKS_AT", "Initech") in now and ("Tom", "WORKS_AT", "Acme Corp") not in now
    assert ("Tom", "WORKS_AT", "Acme Corp") in before and ("Tom", "WORKS_AT", "Initech") not in before


@pytest.mark.parametrize(
    ("text", "subject", "new", "old"),
    [
        ("correction: Huerta Ferrer is in Meliana, not Alboraia", "Huerta Ferrer", "Meliana", "Alboraia"),
        ("sorry, wrong town, Kestrel Bakery is actually in Ripon not Thirsk", "Kestrel Bakery", "Ripon", "Thirsk"),
        ("oops, my mistake: Northgate Studio is based in Leith, not in Portobello", "Northgate Studio", "Leith",
         "Portobello"),
    ],
)
def test_where_someone_else_is_corrected(text: str, subject: str, new: str, old: str) -> None:
    facts = last_facts(text)
    assert (subject, "LOCATED_IN", new) in facts
    assert (subject, "NO_LONGER_LINKED_TO", old) in facts
    assert not [f for f in facts if f[0] == SAM and f[1] == "NO_LONGER_LINKED_TO"]  # not the speaker's


def test_where_a_place_is_needs_a_correction() -> None:
    assert not [f for f in last_facts("Kestrel Bakery is in Ripon, not Thirsk") if f[1] == "NO_LONGER_LINKED_TO"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("we moved!! Omar and I are in Leith now, two bedrooms", {(SAM, "Leith"), ("Omar", "Leith")}),
        ("finally moved, we're in Gracia now", {(SAM, "Gracia")}),
        ("just moved last week. I'm in Ripon now", {(SAM, "Ripon")}),
    ],
)
def test_moved_and_now_in_a_place(text: str, expected: set[tuple[str, str]]) -> None:
    assert {(f[0], f[2]) for f in last_facts(text) if f[1] == "LIVES_IN"} == expected


@pytest.mark.parametrize("text", ["I moved the meeting. I'm in Leeds today", "we're in Leeds now for a conference"])
def test_no_home_without_a_move(text: str) -> None:
    assert not [f for f in last_facts(text) if f[1] == "LIVES_IN"]


@pytest.mark.parametrize(
    "plan",
    [
        "we are selling the house in Glenelg and moving to Victor Harbor to be near our daughter",
        "leaving our flat in Glenelg, moving to Victor Harbor so the kids can walk to school",
        "giving up the cottage in Glenelg and moving to Victor Harbor next month",
    ],
)
def test_a_home_left_with_a_planned_move_ends_when_moved(plan: str) -> None:
    facts = last_facts("we live in Glenelg", plan, "we moved!! boxes everywhere")
    assert (SAM, "NO_LONGER_LIVES_IN", "Glenelg") in facts
    assert (SAM, "LIVES_IN", "Victor Harbor") in facts


@pytest.mark.parametrize(
    ("earlier", "later", "thing"),
    [
        ("i drive down in my fiat panda, it's ancient", "sold the panda. the metro is fine", "Fiat Panda"),
        ("we drive a Honda Civic", "we sold the civic last week", "Honda Civic"),
        ("I bought a Subaru Outback in 2019", "i sold my Outback", "Subaru Outback"),
    ],
)
def test_a_thing_named_later_by_its_last_word(earlier: str, later: str, thing: str) -> None:
    assert (SAM, "NO_LONGER_OWNS", thing) in last_facts(earlier, later)


def test_a_kind_of_place_is_not_the_name_it_ends() -> None:
    facts = last_facts("I sail at Galway Club", "i left the club")
    assert not [f for f in facts if f[2] == "Galway Club"]


@pytest.mark.parametrize(
    ("earlier", "correction", "old", "new"),
    [
        ("my manager Kevin Otieno signed it off", "sorry, his surname is Ochieng, Kevin Ochieng", "Kevin Otieno",
         "Kevin Ochieng"),
        ("my friend Rizky Prasetyo and I are making a game", "wait its Rizky Pratama lol", "Rizky Prasetyo",
         "Rizky Pratama"),
        ("my boss Dr. Martin Gagnon loved it", "oops, his name is Michel. Martin is his brother", "Martin Gagnon",
         "Michel Gagnon"),
        ("my sister Anna Berg lives in Oslo", "typo, I meant Hanna Berg", "Anna Berg", "Hanna Berg"),
        ("my cousin Tom Reyes lives in Leeds", "my bad, his last name is Reyna", "Tom Reyes", "Tom Reyna"),
    ],
)
def test_a_person_renamed_later_takes_the_earlier_facts(earlier: str, correction: str, old: str, new: str) -> None:
    facts = last_facts(earlier, correction)
    moved = [f for f in facts if f[2] == new or f[0] == new]
    assert moved and not [f for f in moved if f[1].startswith("NO_LONGER")]
    assert [f for f in facts if f[1].startswith("NO_LONGER") and old in (f[0], f[2])]


@pytest.mark.parametrize(
    "later",
    [
        "Kevin Smith from accounting was there too",  # someone else, no slip owned up to
        "sorry, Kevin Otieno was late today",  # the same name again
        "oops, I met Maria Lopez at the gym",  # a new person: no earlier name one word apart
        "sorry, Kevin Otieno and Kevin Mwangi both came",  # the old name said again: two people
        "wait, Kevin Mwangi is coming too",  # a slip word, but the name is not given as the right one
        "sorry, I ran into Kevin Mwangi today",
    ],
)
def test_no_rename_without_a_slip_or_a_near_name(later: str) -> None:
    facts = last_facts("my manager Kevin Otieno signed it off", later)
    assert not [f for f in facts if f[1].startswith("NO_LONGER")]


def test_a_renamed_person_is_known_by_the_new_name_later() -> None:
    facts = last_facts("my friend Rizky Prasetyo is visiting", "wait its Rizky Pratama lol", "rizky moved to Bandung")
    assert ("Rizky Pratama", "LIVES_IN", "Bandung") in facts


def test_a_rename_may_say_not_the_old_name() -> None:
    facts = last_facts("my manager Kevin Otieno signed it off", "sorry, I meant Kevin Ochieng, not Kevin Otieno")
    assert ("Sam Carter", "REPORTS_TO", "Kevin Ochieng") in facts


@pytest.mark.parametrize(
    ("earlier", "correction", "old", "new"),
    [
        ("my sister Ana works at Hospital Santa Maria", "sorry, I meant Hospital Sao Joao, not Santa Maria",
         "Hospital Santa Maria", "Hospital Sao Joao"),
        ("I work at Northwind Trading Company", "oops it's Southwind Trading Company not Northwind Trading Company",
         "Northwind Trading Company", "Southwind Trading Company"),
        ("my brother Tom works at Saint Mary Hospital", "sorry, he's at Royal Free Hospital, not Mary Hospital",
         "Saint Mary Hospital", "Royal Free Hospital"),
    ],
)
def test_not_the_end_of_an_earlier_name_takes_it_back(earlier: str, correction: str, old: str, new: str) -> None:
    facts = last_facts(earlier, correction)
    assert [f for f in facts if f[1] == "NO_LONGER_LINKED_TO" and f[2] == old]
    assert [f for f in facts if f[2] == new and not f[1].startswith("NO_LONGER")]


def test_not_a_word_of_two_earlier_names_takes_back_neither() -> None:
    facts = last_facts("my sister Ana works at North Park Clinic and I work at South Park Clinic",
                       "sorry, Ana is at Riverside Clinic, not Park Clinic")
    assert not [f for f in facts if f[1] == "NO_LONGER_LINKED_TO" and f[2].endswith(" Park Clinic")]


def test_the_short_name_in_the_renaming_message_is_the_new_one() -> None:
    facts = last_facts("my friend Rizky Prasetyo is nice", "wait its Rizky Pratama lol. Rizky founded Warung Pixel")
    assert ("Rizky Pratama", "FOUNDED", "Warung Pixel") in facts
    assert not [f for f in facts if f[0] == "Rizky Prasetyo"]
