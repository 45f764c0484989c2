"""The offline extractor on messages typed to an assistant: no "Name:" prefix
(the speaker is given), lower case, contractions, ties between people, life
events, tools, languages, endings of standing facts, relative dates; and
still nothing from plans, hearsay, questions and assistants."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kronograph import Memory
from kronograph.ingest.offline import ENDINGS, OfflineExtractor
from kronograph.ingest.offline.dates import find_times
from kronograph.ingest.pipeline import OFFLINE_RELATION_TYPES
from kronograph.model import fold_relation

REF = datetime(2024, 5, 15, 14, 30, tzinfo=UTC)  # a Wednesday
SAM = "Sam Carter"


def facts(content: str, speaker: str = SAM, role: str = "user") -> set[tuple[str, str, str]]:
    result = OfflineExtractor().extract(content, reference_time=REF, speaker=speaker, role=role, addressee="Assistant")
    return {(f.subject, f.relation, f.object) for f in result.facts}


def dated(content: str) -> dict[tuple[str, str], str | None]:
    result = OfflineExtractor().extract(content, reference_time=REF, speaker=SAM, role="user")
    return {(f.relation, f.object): (f.valid_at or "")[:10] or None for f in result.facts}


# -- how people type ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    ["sam: I live in Berlin", "user: I live in Berlin", "Me: I live in Berlin", "SAM CARTER: I live in Berlin"],
)
def test_a_prefix_naming_the_speaker_is_dropped(content: str) -> None:
    assert facts(content) == {(SAM, "LIVES_IN", "Berlin")}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("im based in Leeds", (SAM, "LIVES_IN", "Leeds")),
        ("I’m allergic to cats", (SAM, "ALLERGIC_TO", "cats")),
        ("i dont work at Acme anymore", (SAM, "LEFT", "Acme")),
        ("I’ve been living in Dublin since 2018", (SAM, "LIVES_IN", "Dublin")),
        ("we’re based in Amsterdam", (SAM, "LIVES_IN", "Amsterdam")),
    ],
)
def test_contractions_with_and_without_apostrophes(content: str, expected: tuple[str, str, str]) -> None:
    assert facts(content) == {expected}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("i work at google now", (SAM, "WORKS_AT", "Google")),
        ("i live in berlin", (SAM, "LIVES_IN", "Berlin")),
        ("i moved to new york last year", (SAM, "LIVES_IN", "New York")),
        ("i married jonas", (SAM, "MARRIED_TO", "Jonas")),
        ("i speak spanish", (SAM, "SPEAKS", "Spanish")),
        ("i graduated from the university of edinburgh", (SAM, "STUDIED_AT", "University of Edinburgh")),
        ("i quit my job at amazon", (SAM, "LEFT", "Amazon")),
    ],
)
def test_lower_case_names_after_a_specific_verb(content: str, expected: tuple[str, str, str]) -> None:
    assert facts(content) == {expected}


@pytest.mark.parametrize(
    "content",
    [
        "i work at home most days",
        "i live in a tiny flat near the station",
        "at the moment i'm working from home",
        "i work at night",
        "i live in hope",
        "i'm married to a doctor",
        "i speak to Tom every day",
        "i'm fluent in sarcasm",
        "I switched to decaf",
        "my dog died.",
        "my husband cooked.",
        "I have a PhD in physics",
        "i have a meeting with Google tomorrow",
    ],
)
def test_common_words_are_no_names(content: str) -> None:
    assert facts(content) == set()


def test_the_speaker_introducing_themselves_is_the_speaker() -> None:
    assert facts("hi i'm sam, studying computer science at TU Delft") == {(SAM, "STUDIED_AT", "TU Delft")}
    assert facts("Hi, I'm Sam, cofounder of Quillstack.") == {(SAM, "COFOUNDER_OF", "Quillstack")}
    assert facts("hey, sam here. i live in seattle") == {(SAM, "LIVES_IN", "Seattle")}


def test_a_statement_before_a_question_is_read() -> None:
    assert facts("i'm allergic to penicillin, what do they usually give instead?") == {
        (SAM, "ALLERGIC_TO", "penicillin")
    }
    assert facts("If I move to Rome, what should I pack?") == set()


# -- people ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("my girlfriend Maya is a nurse", {(SAM, "DATING", "Maya")}),
        ("Maya, my girlfriend, just moved to Lisbon.", {(SAM, "DATING", "Maya"), ("Maya", "LIVES_IN", "Lisbon")}),
        ("my sister Emma lives in Leeds", {(SAM, "SIBLING_OF", "Emma"), ("Emma", "LIVES_IN", "Leeds")}),
        ("my sister emma lives in leeds", {(SAM, "SIBLING_OF", "Emma"), ("Emma", "LIVES_IN", "Leeds")}),
        ("Raj is Priya's husband.", {("Priya", "MARRIED_TO", "Raj")}),
        ("Priya's husband Raj is a chef", {("Priya", "MARRIED_TO", "Raj")}),
        ("my boss Tom is on holiday", {(SAM, "REPORTS_TO", "Tom")}),
        ("Priya is my manager", {(SAM, "REPORTS_TO", "Priya")}),
        ("Tom is my best friend", {(SAM, "FRIENDS_WITH", "Tom")}),
        ("my dog Rex hates the rain", {(SAM, "HAS_PET", "Rex")}),
        ("my son Leo started school", {(SAM, "PARENT_OF", "Leo")}),
        ("my mum Linda lives in York", {("Linda", "PARENT_OF", SAM), ("Linda", "LIVES_IN", "York")}),
        ("my kids Leo and Ana", {(SAM, "PARENT_OF", "Leo"), (SAM, "PARENT_OF", "Ana")}),
        ("my granddaughter Isla", {(SAM, "GRANDPARENT_OF", "Isla")}),
        ("we used to have a dog called Bramble, she died last year", set()),
        ("i have two cats, Mochi and Tofu", {(SAM, "HAS_PET", "Mochi"), (SAM, "HAS_PET", "Tofu")}),
        ("I have a sister named Emma", {(SAM, "SIBLING_OF", "Emma")}),
        (
            "my brother Karim and his wife Nadia live in Coventry",
            {
                (SAM, "SIBLING_OF", "Karim"),
                ("Karim", "MARRIED_TO", "Nadia"),
                ("Karim", "LIVES_IN", "Coventry"),
                ("Nadia", "LIVES_IN", "Coventry"),
            },
        ),
        (
            "Jonas, my cofounder at Quillstack, handles sales",
            {(SAM, "COFOUNDER_WITH", "Jonas"), (SAM, "WORKS_AT", "Quillstack"), ("Jonas", "WORKS_AT", "Quillstack")},
        ),
        (
            "Omar's company, Atlas Freight, is based in Rotterdam.",
            {("Omar", "ASSOCIATED_WITH", "Atlas Freight"), ("Atlas Freight", "BASED_IN", "Rotterdam")},
        ),
    ],
)
def test_ties_between_people(content: str, expected: set[tuple[str, str, str]]) -> None:
    assert facts(content) == expected


@pytest.mark.parametrize(
    "content",
    [
        "my ex Maya lives in Leeds",
        "my old boss Tom",
        "my late husband Raj",
        "Tom was my boss",
        "Tom isn't my boss",
        "my sister lives in Leeds",
        "my friend says Tom quit Acme",
        "I met Tom and his wife Ana at the party",
    ],
)
def test_ties_that_are_over_unnamed_or_unsure(content: str) -> None:
    assert {f for f in facts(content) if f[1] not in ("MET", "LIVES_IN")} == set()


def test_a_tie_named_in_passing_holds_in_a_doubtful_sentence() -> None:
    assert facts("my friend Tom told me Hillcrest might merge, no idea if true") == {(SAM, "FRIENDS_WITH", "Tom")}
    assert facts("Is my sister Emma coming?") == {(SAM, "SIBLING_OF", "Emma")}
    assert facts("If I had a sister named Emma") == set()


def test_x_and_i() -> None:
    assert facts("Maya and I got engaged last weekend!") == {(SAM, "ENGAGED_TO", "Maya")}
    assert facts("Lena and I have been dating since last summer") == {(SAM, "DATING", "Lena")}
    assert facts("My wife Nadia and I moved to Porto in 2021.") == {
        (SAM, "MARRIED_TO", "Nadia"),
        (SAM, "LIVES_IN", "Porto"),
        ("Nadia", "LIVES_IN", "Porto"),
    }
    assert facts("Lucía and I broke up last week") == {(SAM, "NO_LONGER_DATING", "Lucía")}
    assert facts("me and Kai broke up. he moved back to Bristol") == {
        (SAM, "NO_LONGER_DATING", "Kai"),
        ("Kai", "LIVES_IN", "Bristol"),
    }


def test_life_events_are_dated() -> None:
    assert dated("Maya and I got engaged last weekend!") == {("ENGAGED_TO", "Maya"): "2024-05-11"}
    assert dated("we adopted a cat named Miso two weeks ago") == {("HAS_PET", "Miso"): "2024-05-01"}
    assert dated("my daughter Ana was born in march") == {("PARENT_OF", "Ana"): "2024-03-01"}
    assert dated("i graduated from MIT in 2019") == {("STUDIED_AT", "MIT"): "2019-01-01"}
    assert dated("I was born in Lisbon") == {("BORN_IN", "Lisbon"): None}


def test_names_given_in_the_next_sentence() -> None:
    assert dated("we adopted a dog yesterday! her name's Biscuit, she's a beagle mix") == {
        ("HAS_PET", "Biscuit"): "2024-05-14"
    }
    assert facts("my sister Emma just had twins!! Zara and Yusuf") == {
        (SAM, "SIBLING_OF", "Emma"),
        ("Emma", "PARENT_OF", "Zara"),
        ("Emma", "PARENT_OF", "Yusuf"),
    }
    assert facts("my sister Emma just had a baby, a little boy named Leo") == {
        (SAM, "SIBLING_OF", "Emma"),
        ("Emma", "PARENT_OF", "Leo"),
    }
    assert dated("we got a puppy last month, his name is Otto") == {("HAS_PET", "Otto"): "2024-04-01"}
    assert facts("my girlfriend Sophie and I just adopted a rescue dog, his name is Biscuit") == {
        (SAM, "DATING", "Sophie"),
        (SAM, "HAS_PET", "Biscuit"),
        ("Sophie", "HAS_PET", "Biscuit"),  # adopted together: hers too
    }
    assert facts("We had a baby! Finally.") == set()
    assert facts("we got a puppy. Tom helped us pick him.") == set()


# -- things, places, tools ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("I speak Spanish and Portuguese.", {(SAM, "SPEAKS", "Spanish"), (SAM, "SPEAKS", "Portuguese")}),
        ("I'm learning Japanese at the moment", {(SAM, "LEARNING", "Japanese")}),
        ("I'm fluent in German", {(SAM, "SPEAKS", "German")}),
        ("I speak Russian, Dmitri only speaks Russian", {(SAM, "SPEAKS", "Russian"), ("Dmitri", "SPEAKS", "Russian")}),
        ("im allergic to peanuts", {(SAM, "ALLERGIC_TO", "peanuts")}),
        ("I studied CS at Stanford.", {(SAM, "STUDIED_AT", "Stanford")}),
        ("I have a master's from Imperial College.", {(SAM, "STUDIED_AT", "Imperial College")}),
        ("I have a Tesla", {(SAM, "OWNS", "Tesla")}),
        ("I bought a house in Leeds last summer", {(SAM, "OWNS_PROPERTY_IN", "Leeds")}),
        ("I grew up in Glasgow btw", {(SAM, "GREW_UP_IN", "Glasgow")}),
        ("i just started a masters at King's College London", {(SAM, "STUDIED_AT", "King's College London")}),
        ("i'm from the US but live in Berlin now", {(SAM, "LIVES_IN", "Berlin")}),
        ("Tom's Tesla broke down", set()),
        ("i run a small bakery called Crumb & Co", {(SAM, "OWNS", "Crumb & Co")}),
        ("I run a marathon every year", set()),
        ("i'm allergic to kiwi, weird for a baker", {(SAM, "ALLERGIC_TO", "kiwi")}),
        ("also piotr left PwC, he's freelancing now", {("Piotr", "LEFT", "PwC")}),
        ("then traffic moved to the left", set()),
        (
            "my daughter Zofia starts uni in october, she got into Jagiellonian",
            {(SAM, "PARENT_OF", "Zofia"), ("Zofia", "STUDIED_AT", "Jagiellonian")},
        ),
        ("I have asthma", {(SAM, "HAS_CONDITION", "Asthma")}),
        ("I have a cold", set()),
        ("I drive a Honda Civic", {(SAM, "OWNS", "Honda Civic")}),
        ("i have a tesla but parking is a nightmare", {(SAM, "OWNS", "Tesla")}),
        ("I got an offer at Stripe", set()),
        ("I support Arsenal", {(SAM, "LIKES", "Arsenal")}),
        ("I teach at Parkside Primary", {(SAM, "WORKS_AT", "Parkside Primary")}),
        ("I volunteer at Oxfam on weekends", {(SAM, "VOLUNTEERS_AT", "Oxfam")}),
        ("my husband's name is Raj", {(SAM, "MARRIED_TO", "Raj")}),
        ("my roommate Lars, he's from Oslo", {(SAM, "ROOMMATE_OF", "Lars"), ("Lars", "COMES_FROM", "Oslo")}),
        (
            "i'm a GP at Riverside Medical Centre in Manchester",
            {(SAM, "WORKS_AT", "Riverside Medical Centre"), ("Riverside Medical Centre", "LOCATED_IN", "Manchester"),
             (SAM, "WORKS_IN", "Manchester"), (SAM, "HAS_ROLE", "GP")},
        ),
        ("first week at shopify done", {(SAM, "WORKS_AT", "Shopify")}),
        ("first day at Spotify went well", {(SAM, "WORKS_AT", "Spotify")}),
        ("two weeks in at monzo and loving it", {(SAM, "WORKS_AT", "Monzo")}),
        ("I teach maths at Hillcrest Academy", {(SAM, "WORKS_AT", "Hillcrest Academy")}),
        (
            "I'm a data engineer at Klarna in Stockholm",
            {(SAM, "WORKS_AT", "Klarna"), ("Klarna", "LOCATED_IN", "Stockholm"),
             (SAM, "WORKS_IN", "Stockholm"), (SAM, "HAS_ROLE", "data engineer")},
        ),
        ("oh and I quit Klarna!", {(SAM, "LEFT", "Klarna")}),
        ("i'm at Helix Labs now, second week", {(SAM, "WORKS_AT", "Helix Labs")}),
        ("I'm at Heathrow now, flight's delayed", set()),
        ("Lina is a vet in Bristol, she's coming next week", {("Lina", "WORKS_IN", "Bristol")}),
        ("I'm a big believer in Agile", set()),
        ("my native language is Polish", {(SAM, "SPEAKS", "Polish")}),
        ("Tom's first week at Google went well", set()),
        ("Maya and I have been together for three years", {(SAM, "PARTNER_OF", "Maya")}),
    ],
)
def test_languages_allergies_education_ownership_origins(content: str, expected: set[tuple[str, str, str]]) -> None:
    assert facts(content) == expected


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("we use Kubernetes", {(SAM, "USES", "Kubernetes")}),
        ("we use kubernetes and kafka", {(SAM, "USES", "Kubernetes"), (SAM, "USES", "Kafka")}),
        ("our backend runs on Snowflake", {(SAM, "USES", "Snowflake")}),
        ("we run everything on gcp", {(SAM, "USES", "Gcp")}),
        ("backend is Django on Postgres", {(SAM, "USES", "Django"), (SAM, "USES", "Postgres")}),
        ("i write python all day", {(SAM, "USES", "Python")}),
        ("i use an iPhone", {(SAM, "USES", "iPhone")}),
        (
            "we moved the online shop from Shopify to WooCommerce",
            {(SAM, "USES", "WooCommerce"), (SAM, "NO_LONGER_USES", "Shopify")},
        ),
        ("I switched to Neovim", {(SAM, "USES", "Neovim")}),
        (
            "we migrated from Elasticsearch to OpenSearch last month",
            {(SAM, "USES", "OpenSearch"), (SAM, "NO_LONGER_USES", "Elasticsearch")},
        ),
    ],
)
def test_tools_and_stacks(content: str, expected: set[tuple[str, str, str]]) -> None:
    assert facts(content) == expected


def test_a_move_from_one_place_to_another_ends_the_first() -> None:
    assert dated("we moved from Leeds to York last month") == {
        ("LIVES_IN", "York"): "2024-04-01",
        ("NO_LONGER_LIVES_IN", "Leeds"): "2024-04-01",
    }


def test_a_migration_dates_both_ends() -> None:
    assert dated("we migrated from Elasticsearch to OpenSearch last month") == {
        ("USES", "OpenSearch"): "2024-04-01",
        ("NO_LONGER_USES", "Elasticsearch"): "2024-04-01",
    }


# -- endings -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("I don't use Python at work anymore", (SAM, "NO_LONGER_USES", "Python")),
        ("I stopped using Notion last week", (SAM, "NO_LONGER_USES", "Notion")),
        ("I used to use Vim", (SAM, "NO_LONGER_USES", "Vim")),
        ("we ditched Jira", (SAM, "NO_LONGER_USES", "Jira")),
        ("I no longer live in Paris.", (SAM, "NO_LONGER_LIVES_IN", "Paris")),
        ("we moved out of Toronto", (SAM, "NO_LONGER_LIVES_IN", "Toronto")),
        ("I'm not at Acme anymore", (SAM, "LEFT", "Acme")),
        ("i left acme two weeks ago", (SAM, "LEFT", "Acme")),
        ("I sold my Tesla", (SAM, "NO_LONGER_OWNS", "Tesla")),
    ],
)
def test_a_negation_that_ends_a_standing_fact(content: str, expected: tuple[str, str, str]) -> None:
    (fact,) = OfflineExtractor().extract(content, reference_time=REF, speaker=SAM).facts
    assert (fact.subject, fact.relation, fact.object) == expected
    assert fact.invalid_at is None


def test_every_ending_is_declared_to_end_its_state() -> None:
    for ending, ended in ENDINGS.items():
        declared = OFFLINE_RELATION_TYPES[fold_relation(ending)]
        assert declared.ends_keys == {fold_relation(r) for r in ended}
        assert ending.startswith("NO_LONGER_")  # read as "the link ended" by whoever counts links
    assert fold_relation("LIVES_IN") in OFFLINE_RELATION_TYPES[fold_relation("LEFT")].ends_keys
    assert fold_relation("LIVES_IN") in OFFLINE_RELATION_TYPES[fold_relation("NO_LONGER_LIVES_IN")].ends_keys


def test_an_ending_closes_the_standing_fact_in_memory() -> None:
    with Memory(":memory:", model=None) as memory:
        memory.add_episode("g", f"{SAM}: we use Jira and Slack", reference_time="2024-01-10T10:00:00Z")
        memory.add_episode("g", f"{SAM}: we don't use Jira anymore", reference_time="2024-03-10T10:00:00Z")
        memory.add_episode("g", f"{SAM}: I live in Paris", reference_time="2024-01-10T10:00:00Z")
        memory.add_episode("g", f"{SAM}: I no longer live in Paris.", reference_time="2024-04-01T10:00:00Z")
        now = {(f.relation, f.object) for f in memory.facts("g")}
        before = {(f.relation, f.object) for f in memory.facts("g", as_of="2024-02-01T00:00:00Z")}
    assert ("USES", "Slack") in now and ("USES", "Jira") not in now and ("LIVES_IN", "Paris") not in now
    assert {("USES", "Jira"), ("LIVES_IN", "Paris")} <= before


def test_a_later_origin_replaces_an_earlier_one() -> None:
    with Memory(":memory:", model=None) as memory:
        memory.add_episode("g", f"{SAM}: Maya is from Paris", reference_time="2024-01-10T10:00:00Z")
        memory.add_episode("g", f"{SAM}: sorry, Maya is from Lyon", reference_time="2024-01-11T10:00:00Z")
        now = {(f.subject, f.relation, f.object) for f in memory.facts("g")}
    assert ("Maya", "COMES_FROM", "Lyon") in now and ("Maya", "COMES_FROM", "Paris") not in now


def test_corrections_in_passing() -> None:
    assert facts("Karim lives in Leicester, sorry, Coventry, he moved ages ago") == {("Karim", "LIVES_IN", "Coventry")}
    assert facts("we live in Alcalá. Actually, Alcobendas, not Alcalá") == {(SAM, "LIVES_IN", "Alcobendas")}
    assert facts("I work at Acme, I mean Acme Robotics.") == {(SAM, "WORKS_AT", "Acme Robotics")}
    assert facts("I moved to Uppsala, sorry, I meant Gothenburg") == {(SAM, "LIVES_IN", "Gothenburg")}
    assert facts("Tom works at Acme. Ana works at Globex, not Acme.") == {
        ("Tom", "WORKS_AT", "Acme"),
        ("Ana", "WORKS_AT", "Globex"),
    }


# -- nothing from these ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "I'm thinking of moving to Lisbon",
        "I was going to join Stripe but turned it down.",
        "i was planning to move to Vancouver in the spring but that's off now",
        "my friend says Tom quit Acme",
        "Tom said he moved to Paris",
        "apparently Nina got engaged",
        "someone told me Acme is based in Oslo",
        "should I move to Berlin?",
        "if I get the job at Google I'll move to Zurich",
        "we might switch to Postgres next year",
        "I'd love to live in Japan someday",
        "I don't live in London",
        "I'm not allergic to anything",
        "we're moving to Lisbon in march!",
        "thinking about doing a part-time masters at LSE. worth it?",
        "What do you think, should we use Redis or Memcached?",
        "You use Python, right?",
    ],
)
def test_plans_hearsay_hypotheticals_questions_say_nothing(content: str) -> None:
    assert facts(content) == set()


def test_assistant_messages_say_nothing() -> None:
    said = "You mentioned you work at Google and live in Berlin. Congrats on the engagement with Maya!"
    assert facts(said, speaker="Assistant", role="assistant") == set()


# -- relative dates ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("last weekend", "2024-05-11"),
        ("this past weekend", "2024-05-11"),
        ("over the weekend", "2024-05-11"),
        ("this weekend", "2024-05-18"),
        ("two weeks ago", "2024-05-01"),
        ("a couple of months ago", "2024-03-15"),
        ("a couple weeks ago", "2024-05-01"),
        ("a few weeks ago", "2024-04-24"),
        ("this morning", "2024-05-15"),
        ("last night", "2024-05-14"),
        ("on monday", "2024-05-13"),
        ("last summer", "2023-06-01"),
        ("last winter", "2023-12-01"),
        ("in the spring", "2024-03-01"),
        ("at the end of March", "2024-03-31"),
        ("in mid-April", "2024-04-15"),
        ("early May", "2024-05-01"),
        ("late 2023", "2023-12-31"),
    ],
)
def test_chat_dates(text: str, day: str) -> None:
    (found,) = find_times(text, REF)
    assert found.when.date().isoformat() == day


def test_weekends_and_seasons_around_the_reference_day() -> None:
    sunday, monday = datetime(2024, 5, 19, tzinfo=UTC), datetime(2024, 5, 20, tzinfo=UTC)
    assert find_times("last weekend", sunday)[0].when.day == 11  # this one is not over yet
    assert find_times("over the weekend", sunday)[0].when.day == 18
    assert find_times("last weekend", monday)[0].when.day == 18
    assert find_times("last summer", datetime(2024, 9, 10, tzinfo=UTC))[0].when.year == 2024
    assert find_times("I fall asleep early", REF) == []


# -- more of how people say it in chat (issue 14) ------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # languages beyond the list: a capitalised word, a qualified language, the language said first
        ("I speak Wolof and Fula", {(SAM, "SPEAKS", "Wolof"), (SAM, "SPEAKS", "Fula")}),
        ("i'm fluent in Bislama", {(SAM, "SPEAKS", "Bislama")}),
        ("cantonese is my mother tongue", {(SAM, "SPEAKS", "Cantonese")}),
        ("i'm learning brazilian portuguese", {(SAM, "LEARNING", "Brazilian Portuguese")}),
        ("I speak English and Maria teaches", {(SAM, "SPEAKS", "English")}),
        (
            "i'm learning korean now instead of japanese",
            {(SAM, "LEARNING", "Korean"), (SAM, "NO_LONGER_LEARNING", "Japanese")},
        ),
        # the stack, said every which way
        ("we deploy everything to GKE", {(SAM, "USES", "GKE")}),
        ("our metrics go to Honeycomb", {(SAM, "USES", "Honeycomb")}),
        ("we do monitoring with Grafana", {(SAM, "USES", "Grafana")}),
        ("orchestration is Prefect", {(SAM, "USES", "Prefect")}),
        ("everything here is rust", {(SAM, "USES", "Rust")}),
        ("i'm on duckdb now", {(SAM, "USES", "Duckdb")}),
        ("i write a lot of kotlin", {(SAM, "USES", "Kotlin")}),
        ("i analyze the data in matlab", {(SAM, "USES", "Matlab")}),
        ("we moved off Jenkins onto Buildkite", {(SAM, "USES", "Buildkite"), (SAM, "NO_LONGER_USES", "Jenkins")}),
        ("we replaced Trello with Linear", {(SAM, "USES", "Linear"), (SAM, "NO_LONGER_USES", "Trello")}),
        ("we dropped iCloud for Dropbox", {(SAM, "USES", "Dropbox"), (SAM, "NO_LONGER_USES", "iCloud")}),
        ("i moved from Airtable to Notion", {(SAM, "USES", "Notion"), (SAM, "NO_LONGER_USES", "Airtable")}),
        ("we switched our CI to Woodpecker", {(SAM, "USES", "Woodpecker")}),
        ("i mostly work in typescript", {(SAM, "USES", "Typescript")}),
        ("our pipelines are all on Dagster now", {(SAM, "USES", "Dagster")}),
        ("our data lives in Snowflake", {(SAM, "USES", "Snowflake")}),
        ("we built our backend in Elixir", {(SAM, "USES", "Elixir")}),
        ("at work (Lumen Bank) we use Kafka", {(SAM, "WORKS_AT", "Lumen Bank"), (SAM, "USES", "Kafka")}),
        ("my team at Ostrom is great", {(SAM, "WORKS_AT", "Ostrom")}),
        ("i've been at Monzo for two years", {(SAM, "WORKS_AT", "Monzo")}),
        # work and where it is
        ("I'm Sam, product designer at Quillstack.", {(SAM, "WORKS_AT", "Quillstack")}),
        (
            "I teach at St Brigid's in Galway",
            {(SAM, "WORKS_AT", "St Brigid's"), ("St Brigid's", "LOCATED_IN", "Galway"),
             (SAM, "WORKS_IN", "Galway")},
        ),
        ("started a residency at Northgate Clinic last month", {(SAM, "WORKS_AT", "Northgate Clinic")}),
        (
            "I work at Northwind and we're a logistics startup in Lisbon",
            {(SAM, "WORKS_AT", "Northwind"), ("Northwind", "BASED_IN", "Lisbon")},
        ),
        (
            "I work at Tandem Labs, a robotics firm in Turin",
            {(SAM, "WORKS_AT", "Tandem Labs"), ("Tandem Labs", "LOCATED_IN", "Turin"),
             (SAM, "WORKS_IN", "Turin")},
        ),
        ("i work remotely for Acme from Porto", {(SAM, "WORKS_AT", "Acme"), (SAM, "LIVES_IN", "Porto")}),
        ("i run a bakery in Leeds called Crumbs", {(SAM, "OWNS", "Crumbs"), ("Crumbs", "BASED_IN", "Leeds")}),
        ("we rented a house in Clontarf", {(SAM, "LIVES_IN", "Clontarf")}),
        ("we're renting in Clontarf but might buy next year", {(SAM, "LIVES_IN", "Clontarf")}),
        # people, pets and things
        ("my uni friend Ola is visiting", {(SAM, "FRIENDS_WITH", "Ola")}),
        ("my sous chef Marco is off sick", {(SAM, "COLLEAGUE_OF", "Marco")}),
        ("we adopted a kitten, a tabby called Mango", {(SAM, "HAS_PET", "Mango")}),
        ("Priya and I celebrated our fifth wedding anniversary", {(SAM, "MARRIED_TO", "Priya")}),
        ("Nadia had a baby boy last week, Idris!", {("Nadia", "PARENT_OF", "Idris")}),
        ("we bought a campervan", {(SAM, "OWNS", "Campervan")}),
        ("i commute in my toyota yaris", {(SAM, "OWNS", "Toyota Yaris")}),
        ("my Honda Civic is in the shop", {(SAM, "OWNS", "Honda Civic")}),
        ("Tom lives in Leeds, no wait, York", {("Tom", "LIVES_IN", "York")}),
        ("we promoted Lena, she's my deputy now", {(SAM, "COLLEAGUE_OF", "Lena")}),
        ("my sister-in-law Gita is visiting", {(SAM, "RELATIVE_OF", "Gita")}),
        ("we have two grandchildren, Ivo and Pia", {(SAM, "GRANDPARENT_OF", "Ivo"), (SAM, "GRANDPARENT_OF", "Pia")}),
        ("I proposed to Noor last night and she said yes!!", {(SAM, "ENGAGED_TO", "Noor")}),
        ("I help out at Shelterbox on Tuesdays", {(SAM, "VOLUNTEERS_AT", "Shelterbox")}),
        ("I do my invoicing in FreeAgent", {(SAM, "USES", "FreeAgent")}),
        # what a bare "i'm allergic" is to: what the message asked to do without
        ("any soup recipes without celery? i'm allergic", {(SAM, "ALLERGIC_TO", "celery")}),
        ("i freelance as an illustrator, mostly in figma", {(SAM, "USES", "Figma")}),
        ("the analytics lives in ClickHouse", {(SAM, "USES", "ClickHouse")}),
        ("new job, so no more jira for me", {(SAM, "NO_LONGER_USES", "Jira")}),
        ("my stepmum Carol is retiring", {("Carol", "PARENT_OF", SAM)}),
        # a child through a third person: both parents
        (
            "Mira had the baby! our daughter Noor, born at dawn",
            {("Mira", "PARENT_OF", "Noor"), (SAM, "PARENT_OF", "Noor")},
        ),
        ("Lina and I have a daughter, Sara", {("Lina", "PARENT_OF", "Sara"), (SAM, "PARENT_OF", "Sara")}),
        ("Lina and I took my son Omar to the zoo", {(SAM, "PARENT_OF", "Omar")}),
    ],
)
def test_more_chat_phrasings(content: str, expected: set[tuple[str, str, str]]) -> None:
    assert facts(content) == expected


@pytest.mark.parametrize(
    "content",
    [
        "we're a family of four in Lisbon",  # no employer named: whose place is it?
        "we might move off Heroku onto Render",
        "are you thinking of replacing Jira with Linear?",
        "should we buy a caravan?",
        "we might rent a flat in Paris",
        "i'm on holiday in Crete",
        "my friend says Tom speaks Quechua",
        "I never write scala",
        "i'm fluent in Excel",
        "I've been at Disneyland for two days",
        "i'm allergic, sadly",
        "I proposed to Noor but she said no",
        "any soup recipes without celery? i'm not allergic, i just hate it",
        "no more meetings on fridays",
        "her team at Google is great",
        "do your pipelines run on Airflow?",
        "should i work in python?",
        "i'm learning Paris by heart lol",
        "I speak to Maria every day",
        "we were going to switch from Square to Toast but didn't",
        "my boss says we're a fintech in Bangalore",
    ],
)
def test_more_chat_phrasings_stay_precise(content: str) -> None:
    assert facts(content) == set()


# -- endings in the speaker's own words (round three) ------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("we've stopped using Trello, too clunky", (SAM, "NO_LONGER_USES", "Trello")),
        ("also i gave up italian, no time for it", (SAM, "NO_LONGER_LEARNING", "italian")),
        ("i quit using Evernote last year", (SAM, "NO_LONGER_USES", "Evernote")),
        ("the office runs on zoom workplace. so no more workplace for me", (SAM, "NO_LONGER_USES", "zoom workplace")),
        ("my Stripe internship ended last week", (SAM, "LEFT", "Stripe")),
        ("my contract with Lumen Health ended in april", (SAM, "LEFT", "Lumen Health")),
        ("oh and the Shopify co-op is over", (SAM, "LEFT", "Shopify")),
        ("i've finished at Ocado, taking the summer off", (SAM, "LEFT", "Ocado")),
    ],
)
def test_an_ending_in_the_speakers_words(content: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(content)


@pytest.mark.parametrize(
    "content",
    [
        "I'm retired now, 68. I was a plumber for Thames Water for 30 years",
        "I worked at Unilever for decades before I retired",
    ],
)
def test_a_past_job_is_no_current_job(content: str) -> None:
    assert not any(rel == "WORKS_AT" for _, rel, _ in facts(content))


@pytest.mark.parametrize(
    "content",
    [
        "i stopped for a bit to eat",  # no object
        "I quit Brightline Media last Friday",  # a job left, not a tool dropped
        "we might stop using Asana",  # a plan
        "did you stop using Asana?",  # a question
    ],
)
def test_no_tool_ending_without_a_tool_stopped(content: str) -> None:
    assert not any(rel == "NO_LONGER_USES" for _, rel, _ in facts(content))


@pytest.mark.parametrize(
    "content",
    ["the summer term ended yesterday", "our spring term is over", "the school term ended, kids are home"],
)
def test_a_term_that_ended_is_no_job_left(content: str) -> None:
    assert not any(rel == "LEFT" for _, rel, _ in facts(content))


def test_a_switch_ends_the_old_tool_for_whoever_moved() -> None:
    found = facts("we've dropped freeagent, my husband Tariq moved the invoices over to QuickBooks")
    assert {("Tariq", "USES", "QuickBooks"), ("Tariq", "NO_LONGER_USES", "freeagent")} <= found
    assert not any(rel == "USES" for _, rel, _ in facts("we moved the office to Leeds"))


def test_taking_back_a_name_said_in_an_earlier_message() -> None:
    assert (SAM, "NO_LONGER_LINKED_TO", "Braga") in facts("sorry, my mistake, the house is in Guimarães, not braga")
    assert not any(rel == "NO_LONGER_LINKED_TO" for _, rel, _ in facts("i'm tired, not sure why"))
    with Memory(":memory:", model=None) as memory:
        memory.add_episode("g", f"{SAM}: we bought a house in Braga", reference_time="2024-01-10T10:00:00Z")
        memory.add_episode(
            "g", f"{SAM}: sorry, wrong, the house is in Guimarães, not braga", reference_time="2024-01-10T10:05:00Z"
        )
        now = {(f.relation, f.object) for f in memory.facts("g")}
    assert ("OWNS_PROPERTY_IN", "Braga") not in now


def test_a_sentence_without_a_subject_after_one_about_someone_else_is_not_the_speakers() -> None:
    assert not facts("my cousin arrived in Lyon, she's sharing a flat. learning french every day") & {
        (SAM, "LEARNING", "French")
    }
    assert (SAM, "LEARNING", "French") in facts("finally sorted my visa. learning french every day")


# -- jobs and places typed in passing (round three) --------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("i'm a midwife at rosie hospital, mostly nights", (SAM, "WORKS_AT", "Rosie Hospital")),
        ("my son Idris just started at bangor university", ("Idris", "WORKS_AT", "Bangor University")),
        ("my wife Mele works nights at Fonterra", ("Mele", "WORKS_AT", "Fonterra")),
        ("i'm in the cardiology team at St Vincent's now", (SAM, "WORKS_AT", "St Vincent's")),
        ("my brother Kofi is doing an internship at Unilever", ("Kofi", "WORKS_AT", "Unilever")),
    ],
)
def test_a_job_typed_in_passing(content: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(content)


@pytest.mark.parametrize("content", ["i'm a nurse at night", "i'm a believer at heart", "she's a big fan at home"])
def test_a_title_before_a_common_word_is_no_job(content: str) -> None:
    assert not any(rel == "WORKS_AT" for _, rel, _ in facts(content))


def test_a_self_introduction_with_here_takes_an_appositive_job() -> None:
    assert ("Lea Fontaine", "WORKS_AT", "Chez Marius") in facts(
        "bonjour, lea here, line cook at Chez Marius in lyon.", speaker="Lea Fontaine"
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("we finally got a new van, a little citroen berlingo", (SAM, "OWNS", "Citroen Berlingo")),
        ("i bought a banjo last week", (SAM, "OWNS", "Banjo")),
        ("i'm learning the mandolin from videos", (SAM, "LEARNING", "Mandolin")),
        ("the figs grow so well here in Mildura", (SAM, "LIVES_IN", "Mildura")),
        ("back in guelph for the summer term", (SAM, "LIVES_IN", "Guelph")),
        ("i'm living in a sublet in Leith with two students", (SAM, "LIVES_IN", "Leith")),
        ("I play darts at the Red Lion Darts Club on fridays", (SAM, "MEMBER_OF", "Red Lion Darts Club")),
        ("my wife Ana sings with the Harbour Community Choir", ("Ana", "MEMBER_OF", "Harbour Community Choir")),
    ],
)
def test_things_owned_learned_places_and_clubs_in_passing(content: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(content)


@pytest.mark.parametrize(
    "content",
    [
        "we got a new car, a kia picanto, the old fiat died last month",  # the old one is no longer owned
        "back in the day we all played guitar",  # no place
        "i might join the Riverside Rowing Club",  # a plan
    ],
)
def test_no_ownership_place_or_club_from_these(content: str) -> None:
    found = facts(content)
    assert not {(SAM, "OWNS", "Fiat"), (SAM, "LIVES_IN", "The Day")} & found
    assert not any(rel == "MEMBER_OF" for _, rel, _ in found)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            "we're a tiny design studio in porto, Casa Forma",
            {(SAM, "WORKS_AT", "Casa Forma"), ("Casa Forma", "BASED_IN", "Porto")},
        ),
        (
            "my cousin Rui runs a bakery in Braga, Pão Quente",
            {("Rui", "OWNS", "Pão Quente"), ("Pão Quente", "BASED_IN", "Braga")},
        ),
        ("hey im sam, 2nd year physics at the university of bath", {(SAM, "STUDIED_AT", "University of Bath")}),
    ],
)
def test_a_business_named_after_a_comma_and_a_year_of_study(content: str, expected: set[tuple[str, str, str]]) -> None:
    assert expected <= facts(content)


@pytest.mark.parametrize(
    "content",
    [
        "we're not a studio in porto, Casa Forma is",  # a negation
        "my friend Ana is a 2nd year at the university of bath",  # someone else's year
        "we might open a bakery in Braga, Pão Quente",  # a plan
    ],
)
def test_no_business_or_study_from_these(content: str) -> None:
    found = facts(content)
    assert not any(s == SAM and rel in ("WORKS_AT", "STUDIED_AT", "OWNS") for s, rel, _ in found)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("phew, ported everything to unreal last month", (SAM, "USES", "Unreal")),
        ("i keep it simple and do everything in obsidian", (SAM, "USES", "Obsidian")),
    ],
)
def test_the_speakers_tool_said_in_passing(content: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(content)


def test_someone_elses_everything_is_not_the_speakers() -> None:
    assert not any(s == SAM and rel == "USES" for s, rel, _ in facts("my wife Rhian does everything in xero"))


def test_she_is_the_one_a_kin_word_calls_a_woman() -> None:
    found = facts("my sister Priya got engaged to Arun. she lives in Pune")
    assert ("Priya", "LIVES_IN", "Pune") in found and ("Arun", "LIVES_IN", "Pune") not in found
    assert not any(rel == "LIVES_IN" for _, rel, _ in facts("my brother Tom met Ana. she lives in Pune"))


def test_living_in_between_is_no_place() -> None:
    assert facts("she works in Leeds, we live in between, in Wakefield") >= {(SAM, "LIVES_IN", "Wakefield")}
    assert not any(rel == "LIVES_IN" for _, rel, _ in facts("we live in between"))


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("already handed in my notice at brightwater legal", (SAM, "LEFT", "Brightwater Legal")),
        ("i resigned from Globex today", (SAM, "LEFT", "Globex")),
        ("hi, i'm sam, junior associate at Vieira Costa in porto", (SAM, "WORKS_AT", "Vieira Costa")),
    ],
)
def test_notice_handed_in_and_a_title_in_an_introduction(content: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(content)


def test_notice_only_planned_ends_nothing() -> None:
    assert facts("i might hand in my notice at Globex") == set()


def test_a_girlfriend_named_after_a_comma() -> None:
    assert ("Idris", "DATING", "Mari") in facts("Idris has a girlfriend now, Mari, from his course")
    assert facts("my cousin says Idris has a girlfriend called Mari") == set()  # hearsay


def test_builds_run_on_a_tool() -> None:
    assert (SAM, "USES", "Jenkins") in facts("our builds run on jenkins")


def test_an_acronym_and_its_version_are_one_name() -> None:
    assert (SAM, "USES", "ROS 2") in facts("we're using ROS 2 and a jetson for the robot")
    assert (SAM, "MET", "TOM") in facts("I met TOM 2 times")  # a count, no version


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("our daughter was born on tuesday, Niamh", (SAM, "PARENT_OF", "Niamh")),
        ("my nephew gave me his old kindle, so nice", (SAM, "OWNS", "Kindle")),
        ("we farm cattle just outside Builth Wells", (SAM, "LIVES_IN", "Builth Wells")),
        ("we're flying to Madeira, where I was born", (SAM, "BORN_IN", "Madeira")),
        ("big news!! deputy head at Riverside Academy, started monday", (SAM, "WORKS_AT", "Riverside Academy")),
    ],
)
def test_births_gifts_farms_birthplaces_and_a_new_job_in_passing(content: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(content)


@pytest.mark.parametrize(
    "content",
    [
        "my friend Ola gave me her old guitar? no",  # a question
        "she's a teacher at Riverside Academy, started monday",  # someone else's job: no subjectless start
        "maybe we'll farm near Hay",  # a hedge
    ],
)
def test_no_gift_farm_or_new_job_from_these(content: str) -> None:
    assert not any(s == SAM and rel in ("OWNS", "LIVES_IN", "WORKS_AT") for s, rel, _ in facts(content))


# -- fourth round: jobs with no article, subjectless job lines -----------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("hey, sam here. backend developer at Quillfin in leeds", (SAM, "WORKS_AT", "Quillfin")),
        ("i'm head-chef at Mosswood Bistro these days", (SAM, "WORKS_AT", "Mosswood Bistro")),
        ("update: left the old place. now staff nurse at Riverside Clinic", (SAM, "WORKS_AT", "Riverside Clinic")),
        ("Dana's senior architect at Brightwell Partners", ("Dana", "WORKS_AT", "Brightwell Partners")),
    ],
)
def test_a_job_title_without_an_article(content: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(content)


@pytest.mark.parametrize(
    "content",
    [
        "good at Scrabble, bad at Monopoly",
        "nurse at Riverside Clinic? is that a good job?",
        "I might be developer at Quillfin next year",
        "backend developer at Quillfin would be a dream",
    ],
)
def test_a_title_line_that_is_no_job_of_the_speaker_stays_empty(content: str) -> None:
    assert not {f for f in facts(content) if f[1] == "WORKS_AT"}


def test_an_assistant_title_line_stays_empty() -> None:
    assert facts("senior developer at Quillfin, that sounds great!", role="assistant") == set()


# -- fourth round: tools listed with their purposes, moves between camel-case tools -------------------


def test_tools_listed_each_with_its_purpose_are_all_used() -> None:
    assert facts("we use Trello for the roadmap and Zeplin Pro for handoffs") >= {
        (SAM, "USES", "Trello"),
        (SAM, "USES", "Zeplin Pro"),
    }
    assert (SAM, "USES", "Quibly") in facts("i use Noteworth at home and Quibly for work stuff")


@pytest.mark.parametrize(
    "content",
    [
        "we use Trello for the roadmap and Dana says it's fine",
        "should we use Trello for the roadmap and Zeplin for handoffs?",
        "we don't use Trello for the roadmap and Zeplin for handoffs",
    ],
)
def test_a_purpose_list_that_names_no_second_tool_adds_none(content: str) -> None:
    found = facts(content)
    assert (SAM, "USES", "Dana") not in found and (SAM, "USES", "Zeplin") not in found


def test_a_move_between_camel_case_names_is_between_tools() -> None:
    assert facts("we moved from PlanGrid to Fieldwire this spring") == {
        (SAM, "NO_LONGER_USES", "PlanGrid"),
        (SAM, "USES", "Fieldwire"),
    }
    assert (SAM, "LIVES_IN", "Dallas") in facts("we moved from McKinney to Dallas in 2020")
    assert (SAM, "LIVES_IN", "Porto") in facts("i moved from Lisbon to Porto last year")


def test_an_assistant_tool_move_stays_empty() -> None:
    assert facts("Many teams moved from PlanGrid to Fieldwire.", role="assistant") == set()


def test_a_name_after_a_kin_word_is_a_person_even_when_it_is_a_city() -> None:
    assert facts("my son Austin is doing well. he works at Pellwick Labs") >= {
        (SAM, "PARENT_OF", "Austin"),
        ("Austin", "WORKS_AT", "Pellwick Labs"),
    }
    assert (SAM, "LIVES_IN", "Austin") in facts("we moved to Austin last year")
    assert facts("my son Austin might work at Pellwick Labs someday") == {(SAM, "PARENT_OF", "Austin")}


def test_a_job_at_an_organisation_in_a_city_is_work_in_that_city() -> None:
    assert facts("i'm a pharmacist at Greenvale Clinic in berlin, mostly weekends") >= {
        (SAM, "WORKS_AT", "Greenvale Clinic"),
        ("Greenvale Clinic", "LOCATED_IN", "Berlin"),
        (SAM, "WORKS_IN", "Berlin"),
    }


@pytest.mark.parametrize(
    "content",
    [
        "i met a pharmacist at Greenvale Clinic in berlin",
        "i might be a pharmacist at Greenvale Clinic in berlin next year",
        "is she a pharmacist at Greenvale Clinic in berlin?",
    ],
)
def test_no_work_in_a_city_without_a_job_stated(content: str) -> None:
    assert not {f for f in facts(content) if f[1] == "WORKS_IN"}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("i'm taking evening pottery classes at Hollow Lane Studio", (SAM, "STUDIED_AT", "Hollow Lane Studio")),
        ("i started a baking course at Maple School of Cookery", (SAM, "STUDIED_AT", "Maple School of Cookery")),
        ("my son Theo is doing german lessons at Sprachhaus now", ("Theo", "STUDIED_AT", "Sprachhaus")),
    ],
)
def test_classes_or_a_course_at_a_place_is_study_there(content: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(content)


@pytest.mark.parametrize(
    "content",
    [
        "i'm thinking about taking pottery classes at Hollow Lane Studio",
        "should i start a baking course at Maple School of Cookery?",
        "my friend said she's taking pottery classes at Hollow Lane Studio",
        "i'm not taking pottery classes at Hollow Lane Studio",
    ],
)
def test_classes_planned_asked_or_heard_of_add_no_study(content: str) -> None:
    assert not {f for f in facts(content) if f[1] == "STUDIED_AT"}


def test_a_nationality_then_from_a_place_is_where_one_comes_from() -> None:
    assert ("Maren", "COMES_FROM", "Bergen") in facts("my wife Maren is norwegian, from Bergen")
    assert (SAM, "COMES_FROM", "Cork") in facts("i'm irish, from Cork originally")


@pytest.mark.parametrize(
    "content", ["Maren is tired, from Bristol traffic", "is she norwegian, from Bergen?", "Maren isn't norwegian"]
)
def test_no_origin_from_a_tiredness_or_a_question(content: str) -> None:
    assert not {f for f in facts(content) if f[1] == "COMES_FROM"}
