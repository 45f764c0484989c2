"""The offline extractor reading a message with the conversation before it
(ingest/offline/thread.py): names said earlier in full, "he"/"she" across
messages, and a short answer to the assistant's yes/no question; never the
assistant's question alone."""

from __future__ import annotations

import pytest

from kronograph import Memory

from .offline_thread_reading import SAM, last_facts

# -- names said earlier ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "now", "fact"),
    [
        ("i work at Fjord Biotech", "i left fjord last week", (SAM, "LEFT", "Fjord Biotech")),
        ("i work at Fjord Biotech", "i quit fjord biotech", (SAM, "LEFT", "Fjord Biotech")),
        ("we just hired Dana Whitfield", "dana moved to Leeds", ("Dana Whitfield", "LIVES_IN", "Leeds")),
        ("my husband Tom is great", "tom's brother Gary moved to Leeds", ("Tom", "SIBLING_OF", "Gary")),
        ("thinking about Notion tbh", "ok i switched to notion", (SAM, "USES", "Notion")),
    ],
)
def test_a_name_said_earlier_is_known_in_lower_case_and_in_short(
    earlier: str, now: str, fact: tuple[str, str, str]
) -> None:
    assert fact in last_facts(earlier, "A: Nice!", now)


def test_two_earlier_names_a_short_one_could_mean_expand_to_neither() -> None:
    facts = last_facts("I met Tom Hardy and Tom Baker", "tom moved to Leeds")
    assert not {f for f in facts if f[0].startswith("Tom ")}


def test_without_a_thread_a_message_is_read_alone() -> None:
    assert last_facts("i left fjord last week") == {(SAM, "LEFT", "Fjord")}


# -- he and she across messages -----------------------------------------------------------------


@pytest.mark.parametrize(
    "messages",
    [
        ("my sister Emma is visiting", "A: How's Emma doing?", "she works at Acme Corp now"),
        ("my wife Emma is pregnant", "A: Congrats!", "she works at Acme Corp now"),
        ("A: How's Emma these days?", "she works at Acme Corp now"),
        ("my brother Tom and my sister Emma came over", "she works at Acme Corp now"),
    ],
)
def test_she_is_the_one_woman_named_last(messages: tuple[str, ...]) -> None:
    assert ("Emma", "WORKS_AT", "Acme Corp") in last_facts(*messages)


@pytest.mark.parametrize(
    "messages",
    [
        ("we had dinner with Tom Hardy and Emma Stone", "she works at Acme Corp now"),  # two: either
        ("Emma came over", "A: How's your mum?", "she works at Acme Corp now"),  # someone since, unnamed
        ("my sister Emma is visiting", "we hired Luis. he works at Acme Corp"),  # the message's own
    ],
)
def test_he_or_she_stays_unread_when_the_thread_does_not_say_who(messages: tuple[str, ...]) -> None:
    assert not {f for f in last_facts(*messages) if f[0] == "Emma"}


# -- answers to the assistant's question --------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "reply", "fact"),
    [
        ("Do you use Trello?", "yep", (SAM, "USES", "Trello")),
        ("Nice. Do you use any tool for that too?", "yes, Trello mostly", (SAM, "USES", "Trello")),
        ("Do you live in Leeds?", "yeah for 3 years", (SAM, "LIVES_IN", "Leeds")),
        ("Are you still at Acme Corp?", "yep, still there", (SAM, "WORKS_AT", "Acme Corp")),
        ("Is Tom your husband?", "yes!", (SAM, "MARRIED_TO", "Tom")),
        ("Is Tom your boss?", "yeah he is", (SAM, "REPORTS_TO", "Tom")),
        ("Are you still at Acme Corp?", "nope", (SAM, "LEFT", "Acme Corp")),
        ("Do you still use Trello?", "nah", (SAM, "NO_LONGER_USES", "Trello")),
    ],
)
def test_a_short_answer_says_what_the_question_asked(question: str, reply: str, fact: tuple[str, str, str]) -> None:
    assert fact in last_facts(f"A: {question}", reply)


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("Do you use Trello?", "no"),
        ("Do you use Trello?", "I moved to York"),  # not an answer
        ("Would you move to Osaka?", "yes"),  # a wish, not a fact
        ("Do you use Trello or Asana?", "yes"),  # which one?
        ("Do you use any tool for that?", "yes"),  # nothing named
    ],
)
def test_no_answer_or_an_open_question_gives_the_question_nothing(question: str, reply: str) -> None:
    assert not {f for f in last_facts(f"A: {question}", reply) if f[2] in ("Trello", "Asana", "Osaka")}


@pytest.mark.parametrize(
    ("question", "reply", "fact"),
    [
        ("What do you use for quotes right now?", "just Excel lol", (SAM, "USES", "Excel")),
        ("Which app do you use to track runs?", "Strava mostly", (SAM, "USES", "Strava")),
        ("Cool! What software do you use?", "Mostly Google Sheets, sometimes paper", (SAM, "USES", "Google Sheets")),
        ("Where do you work these days?", "at Northwind Health, in the lab", (SAM, "WORKS_AT", "Northwind Health")),
        ("Where are you based?", "Leeds, for now", (SAM, "LIVES_IN", "Leeds")),
    ],
)
def test_a_name_alone_answers_what_or_where(question: str, reply: str, fact: tuple[str, str, str]) -> None:
    assert fact in last_facts(f"A: {question}", reply)


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("What do you use for quotes?", "Excel is too slow for this"),  # about it, not an answer
        ("What do you use, Jobber or Excel?", "Excel"),  # named in the question: a choice, left alone
        ("What do you use for quotes?", "Excel? no way, too clunky"),  # a question back
        ("What do you use for quotes?", "nothing really"),  # nothing named
        ("Where do you work?", "I don't right now"),
    ],
)
def test_no_named_answer_from_a_sentence_about_it(question: str, reply: str) -> None:
    assert not [f for f in last_facts(f"A: {question}", reply) if f[0] == SAM]


def test_a_yes_is_only_the_users() -> None:
    assert last_facts("A: Do you use Trello?", "A: yes") == set()


# -- through the public API ---------------------------------------------------------------------


def _chat(messages: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    with Memory(":memory:", model=None) as memory:
        memory.add_messages(
            "g",
            [
                {"role": role, "content": text, "created_at": f"2024-05-0{i + 1}T10:00:00Z"}
                for i, (role, text) in enumerate(messages)
            ],
            thread="t1",
            user_name=SAM,
        )
        return [(f.subject, f.relation, f.object) for f in memory.facts("g")]


def test_add_messages_reads_a_message_with_the_thread_before_it() -> None:
    facts = _chat(
        [
            ("user", "my wife Lerato and i are moving house"),
            ("assistant", "Exciting! How's Lerato feeling about it?"),
            ("user", "tired but happy. she teaches at Parkview Primary"),
            ("assistant", "Do you use a planner app for the move?"),
            ("user", "yep Trello"),
        ]
    )
    assert ("Lerato", "WORKS_AT", "Parkview Primary") in facts
    assert (SAM, "USES", "Trello") in facts


def test_add_messages_links_nothing_from_a_question_alone() -> None:
    facts = _chat(
        [
            ("user", "planning the move this week"),
            ("assistant", "Do you use Trello for that?"),
            ("user", "no"),
            ("assistant", "Is Tom Hardy your landlord? Are you still at Acme Corp?"),
        ]
    )
    assert not [f for f in facts if {"Trello", "Tom Hardy", "Acme Corp"} & {f[0], f[2]}]


# -- a baby the thread expected -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "now", "parents"),
    [
        ("my wife Ana is pregnant!", "baby's here! meet Leo, born on sunday", {SAM, "Ana"}),
        ("we're expecting twins", "Leo was born last night", {SAM}),
        ("Ana and I are having a baby!!", "she's here!!! Leo, 3.2kg, born last night", {SAM, "Ana"}),
        ("we're expecting", "he arrived last night!! Leo", {SAM}),
    ],
)
def test_a_baby_the_thread_expected_is_named_when_it_arrives(earlier: str, now: str, parents: set[str]) -> None:
    facts = last_facts(earlier, "A: Congratulations!", now)
    assert {s for s, r, o in facts if r == "PARENT_OF" and o == "Leo"} == parents


@pytest.mark.parametrize(
    "messages",
    [
        ("my wife Ana is great", "she's here!!! Leo, 3.2kg"),  # no baby was expected
        ("we're expecting", "she's here! Berlin was cold"),  # a place, not a name
        ("my friend Leo is visiting", "we're expecting", "he's here! Leo is great"),  # someone known
    ],
)
def test_an_arrival_names_no_child_without_an_expected_baby_and_a_new_name(messages: tuple[str, ...]) -> None:
    assert not {f for f in last_facts(*messages) if f[1] == "PARENT_OF"}


# -- a move the thread planned --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("messages", "fact"),
    [
        (("we rent a flat in Leith", "moving out of leith next month!", "moved in!! boxes everywhere"),
         (SAM, "NO_LONGER_LIVES_IN", "Leith")),
        (("we're moving to Leeds in june", "we've moved!"), (SAM, "LIVES_IN", "Leeds")),
        (("i'm moving to Leeds next month", "A: Good luck!", "finally moved in. so tired"), (SAM, "LIVES_IN", "Leeds")),
    ],
)
def test_moved_in_completes_the_move_the_thread_planned(messages: tuple[str, ...], fact: tuple[str, str, str]) -> None:
    assert fact in last_facts(*messages)


@pytest.mark.parametrize(
    "messages",
    [
        ("we're moving to Leeds in june", "moved the sofa, it was heavy"),  # another "moved"
        ("we live in Leeds", "moved in!!"),  # no move was planned
    ],
)
def test_moved_without_a_planned_move_says_nothing_new(messages: tuple[str, ...]) -> None:
    assert last_facts(*messages) == set()


def test_a_forget_leaves_no_message_read_in_the_readers_memos() -> None:
    from kronograph.ingest.offline import thread

    with Memory(":memory:", model=None) as m:
        m.add_messages("g", [{"role": "user", "content": "my sister Zelda works at Quuxcorp"},
                             {"role": "user", "content": "she loves it"}], thread="t", user_name="Sam")
        assert thread._read.cache_info().currsize > 0
        m.context("g", "where does Zelda work")  # the block's term and stem memos hold her name too
        from kronograph.context import excerpt

        assert excerpt.stem.cache_info().currsize > 0
        m.forget("g", entity="Zelda")
        assert thread._read.cache_info().currsize == 0 and thread._tokens.cache_info().currsize == 0
        assert excerpt.terms.cache_info().currsize == 0 and excerpt.stem.cache_info().currsize == 0
