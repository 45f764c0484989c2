"""Conversations in: ``add_messages``, speakers and roles on episodes, the
group's settings and its user, on every backend, through the public API."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from kronograph import GroupSettings, InvalidInputError, Memory, Message

MakeMemory = Callable[..., Memory]
G = "chat"


@pytest.fixture
def memory(memory_factory: MakeMemory) -> Memory:
    return memory_factory(model=None)


def _facts(memory: Memory, group: str = G) -> set[tuple[str, str, str]]:
    return {(f.subject, f.relation, f.object) for f in memory.facts(group)}


def _written(memory: Memory, group: str = G) -> tuple[object, ...]:
    return (
        [e.uuid for e in memory.episodes(group)], [e.uuid for e in memory.entities(group)],
        memory.settings(group).values,
    )


# -- messages become episodes --------------------------------------------------------------------------------


def test_each_message_is_an_episode_with_its_speaker_role_time_and_thread(memory: Memory, clock: Any) -> None:
    results = memory.add_messages(G, [
        {"role": "user", "content": "I work at Northwind.", "created_at": "2024-03-01T09:00:00", "id": "m1"},
        Message(role="assistant", content="Noted!", created_at=datetime(2024, 3, 1, 9, 1, tzinfo=UTC), id="m2"),
        {"role": "tool", "content": "lookup: 3 rows", "name": "search-tool", "id": "m3", "metadata": {"n": 3}},
    ], thread="t1", user_name="Sam Carter")
    assert [r.episode_id for r in results] == ["m1", "m2", "m3"] and all(r.ok for r in results)
    first, second, third = (memory.episode(G, e) for e in ("m1", "m2", "m3"))
    assert (first.speaker, first.role, first.kind) == ("Sam Carter", "user", "message")
    assert (second.speaker, second.role) == ("Assistant", "assistant")
    assert (third.speaker, third.role, third.metadata) == ("search-tool", "tool", {"n": 3})
    assert first.reference_time == datetime(2024, 3, 1, 9, 0, tzinfo=UTC)  # naive is UTC, kept as the event's time
    assert first.created_at == clock.now  # ingestion time is the clock's
    assert third.reference_time == clock.now  # no created_at: the clock
    assert {e.saga for e in (first, second, third)} == {"t1"}
    assert [i.saga for i in memory.sagas(G)] == ["t1"]


def test_a_message_id_is_idempotent_and_refused_for_other_content(memory: Memory) -> None:
    message = {"role": "user", "content": "I live in Lisbon.", "id": "m1"}
    (first,) = memory.add_messages(G, [message], user_name="Ann")
    (again,) = memory.add_messages(G, [message])
    assert first.ok and again.duplicate and again.episode_id == "m1"
    before = _written(memory)
    with pytest.raises(InvalidInputError) as caught:
        memory.add_messages(G, [{"role": "user", "content": "ok"}, {**message, "content": "Other."}],
                            user_name="Someone Else")
    assert caught.value.field == "messages[1].id"
    assert _written(memory) == before  # neither the first message nor the new user name


@pytest.mark.parametrize(("bad", "field"), [
    ({"role": "", "content": "x"}, "messages[1].role"),
    ({"role": "us\ner", "content": "x"}, "messages[1].role"),
    ({"role": "r" * 65, "content": "x"}, "messages[1].role"),
    ({"content": "x"}, "messages[1].role"),
    ({"role": "user", "content": "   "}, "messages[1].content"),
    ({"role": "user", "content": "a\x00b"}, "messages[1].content"),
    ({"role": "user", "content": 42}, "messages[1].content"),
    ({"role": "user", "content": "x", "name": " Sam"}, "messages[1].name"),
    ({"role": "user", "content": "x", "created_at": "last tuesday"}, "messages[1].created_at"),
    ({"role": "user", "content": "x", "id": ""}, "messages[1].id"),
    ({"role": "user", "content": "x", "metadata": [1]}, "messages[1].metadata"),
    ({"role": "user", "content": "x", "sender": "Sam"}, "messages[1].sender"),
    ("just text", "messages[1]"),
])
def test_a_bad_message_is_named_by_position_and_field_and_nothing_is_written(
    memory: Memory, bad: Any, field: str
) -> None:
    memory.configure(G, user_name="Ann")
    before = _written(memory)
    with pytest.raises(InvalidInputError) as caught:
        memory.add_messages(G, [{"role": "user", "content": "I work at Acme."}, bad], user_name="Bea")
    assert caught.value.field == field and str(caught.value).startswith(f"{field}: ")
    assert _written(memory) == before


@pytest.mark.parametrize(("messages", "field"), [
    ("hello", "messages"), ({"role": "user"}, "messages"), (Message(role="user", content="hi"), "messages"),
    (42, "messages"),
])
def test_messages_must_be_a_list(memory: Memory, messages: Any, field: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        memory.add_messages(G, messages)
    assert caught.value.field == field


def test_no_messages_is_no_episode(memory: Memory) -> None:
    assert memory.add_messages(G, [], user_name="Ann") == []
    assert memory.episodes(G) == [] and memory.settings(G).user_name == "Ann"


def test_bad_call_arguments_are_refused(memory: Memory) -> None:
    for kwargs, field in (({"user_name": ""}, "user_name"), ({"assistant_name": "a\tb"}, "assistant_name"),
                          ({"thread": " t"}, "thread"), ({"actor": ""}, "actor")):
        with pytest.raises(InvalidInputError) as caught:
            memory.add_messages(G, [{"role": "user", "content": "hi"}], **kwargs)
        assert caught.value.field == field
    assert memory.episodes(G) == [] and memory.settings(G).user_name is None


# -- who said it ---------------------------------------------------------------------------------------------


def test_first_person_is_the_user_and_the_assistant_states_no_fact(memory: Memory) -> None:
    memory.add_messages(G, [
        {"role": "user", "content": "I work at Northwind and I live in Lisbon."},
        {"role": "assistant", "content": "You work at Northwind, great. I work at Initech. You could move to Porto."},
        {"role": "system", "content": "Maya lives in Berlin."},
    ], user_name="Sam")
    assert _facts(memory) == {("Sam", "WORKS_AT", "Northwind"), ("Sam", "LIVES_IN", "Lisbon")}
    user = memory.user(G)
    assert user is not None and user.name == "Sam" and not user.summary_stale
    assert user.summary is not None and "Northwind" in user.summary and "Lisbon" in user.summary


def test_the_user_name_is_remembered_across_calls(memory: Memory) -> None:
    memory.add_messages(G, [{"role": "user", "content": "I live in Oslo."}], user_name="Ann Lee")
    assert memory.settings(G) == GroupSettings(group_id=G, user_name="Ann Lee", values={"user_name": "Ann Lee"})
    (later,) = memory.add_messages(G, [{"role": "user", "content": "I work at Fjord Biotech."}])
    assert memory.episode(G, later.episode_id).speaker == "Ann Lee"
    assert _facts(memory) == {("Ann Lee", "LIVES_IN", "Oslo"), ("Ann Lee", "WORKS_AT", "Fjord Biotech")}
    named = memory.add_messages(G, [{"role": "user", "name": "Bo Chen", "content": "I work at Acme."}])
    assert memory.episode(G, named[0].episode_id).speaker == "Bo Chen"  # a message's name wins


def test_add_episode_takes_a_speaker_and_a_role(memory: Memory) -> None:
    memory.configure(G, user_name="Priya")
    said = memory.add_episode(G, "I work at Globex.", speaker="Omar Haddad", reference_time="2024-01-01")
    as_user = memory.add_episode(G, "I live in Madrid.", role="user", reference_time="2024-01-02")
    by_bot = memory.add_episode(G, "I live in Rome.", role="assistant", reference_time="2024-01-03")
    assert (memory.episode(G, said.episode_id).speaker, memory.episode(G, said.episode_id).role) == (
        "Omar Haddad", None)
    assert (memory.episode(G, as_user.episode_id).speaker, memory.episode(G, as_user.episode_id).role) == (
        "Priya", "user")
    assert memory.episode(G, by_bot.episode_id).speaker == "Assistant"
    assert _facts(memory) == {("Omar Haddad", "WORKS_AT", "Globex"), ("Priya", "LIVES_IN", "Madrid")}
    with pytest.raises(InvalidInputError) as caught:
        memory.add_episode(G, "x", speaker="a\nb")
    assert caught.value.field == "speaker"


def test_bulk_items_and_the_queue_keep_speaker_and_role(memory: Memory) -> None:
    memory.add_episodes(G, [
        {"content": "I work at Acme.", "speaker": "Dee Park", "reference_time": "2024-01-01"},
        {"content": "I live in Kyoto.", "role": "user", "reference_time": "2024-01-02"},
    ])
    queued = memory.enqueue_episode(G, "I live in Osaka.", speaker="Eli Ross", role="user",
                                    reference_time="2024-01-03", episode_id="q1")
    assert (queued.speaker, queued.role) == ("Eli Ross", "user")
    assert memory.process_queue() == 1
    done = memory.episode(G, "q1")
    assert (done.status, done.speaker, done.role) == ("complete", "Eli Ross", "user")
    assert ("Dee Park", "WORKS_AT", "Acme") in _facts(memory)
    assert ("Eli Ross", "LIVES_IN", "Osaka") in _facts(memory)


# -- the user at the centre ----------------------------------------------------------------------------------


def test_sam_then_sam_carter_is_one_person(memory: Memory) -> None:
    memory.add_messages(G, [{"role": "user", "content": "Hi, I'm Sam. I live in Lisbon."}], user_name="Sam Carter")
    memory.add_messages(G, [{"role": "assistant", "content": "Sam, you said you live in Lisbon?"},
                            {"role": "user", "content": "Sam works at Northwind."}])
    people = [e for e in memory.entities(G) if "sam" in e.name.casefold()]
    assert [(e.name, e.aliases) for e in people] == [("Sam Carter", ("Sam",))]
    assert _facts(memory) == {("Sam Carter", "LIVES_IN", "Lisbon"), ("Sam Carter", "WORKS_AT", "Northwind")}
    user = memory.user(G)
    assert user is not None and user.uuid == people[0].uuid


def test_a_full_name_speaker_joins_the_entity_of_their_first_name(memory: Memory) -> None:
    memory.add_episode(G, "Sam: I work at Acme.", reference_time="2024-01-01")
    memory.add_episode(G, "I live in Rome.", speaker="Sam Carter", reference_time="2024-01-02")
    (sam,) = [e for e in memory.entities(G) if "sam" in e.name.casefold()]
    assert "Sam Carter" in sam.aliases
    assert _facts(memory) == {("Sam", "WORKS_AT", "Acme"), ("Sam", "LIVES_IN", "Rome")}


def test_nicknames_resolve_to_the_user_but_other_full_names_stay_apart(memory: Memory) -> None:
    memory.add_messages(G, [{"role": "user", "content": "Bob works at Initech. Robert Lee works at Acme."}],
                        user_name="Robert Carter")
    assert _facts(memory) == {("Robert Carter", "WORKS_AT", "Initech"), ("Robert Lee", "WORKS_AT", "Acme")}
    user = memory.user(G)
    assert user is not None and user.name == "Robert Carter" and "Bob" in user.aliases


def test_a_short_user_name_joins_no_two_full_names(memory: Memory) -> None:
    memory.add_messages(G, [{"role": "user", "content": "I live in Oslo. Sam Carter works at Acme."},
                            {"role": "user", "content": "Sam Lee works at Initech."}], user_name="Sam")
    assert _facts(memory) == {("Sam", "LIVES_IN", "Oslo"), ("Sam Carter", "WORKS_AT", "Acme"),
                              ("Sam Lee", "WORKS_AT", "Initech")}


def test_a_new_user_name_renames_the_user_and_keeps_the_old_as_an_alias(memory: Memory) -> None:
    memory.add_messages(G, [{"role": "user", "content": "I live in Lisbon."}], user_name="Sam")
    before = memory.user(G)
    assert before is not None and before.name == "Sam"
    settings = memory.configure(G, user_name="Sam Carter")
    assert settings.user_name == "Sam Carter"
    after = memory.user(G)
    assert after is not None and (after.uuid, after.name, after.aliases) == (before.uuid, "Sam Carter", ("Sam",))
    memory.add_messages(G, [{"role": "user", "content": "I work at Northwind."}])
    assert _facts(memory) == {("Sam Carter", "LIVES_IN", "Lisbon"), ("Sam Carter", "WORKS_AT", "Northwind")}
    found = memory.search(G, "Sam Carter", scopes=["entities"], recipe="cosine").entities
    assert found and found[0].item.uuid == before.uuid
    import asyncio

    import numpy as np

    from kronograph import HashingEmbedder

    stored = memory._call(memory.store.item_vectors(G, "entities", [before.uuid]))  # type: ignore[attr-defined]
    expected = asyncio.run(HashingEmbedder().embed(["Sam Carter"]))[0]
    assert np.allclose(stored[before.uuid], expected)  # its name's vector is the new name's
    assert [e.kind for e in memory.audit_events(G)].count("settings_changed") == 2


def test_settings_and_the_user_belong_to_their_group(memory: Memory) -> None:
    memory.add_messages("a", [{"role": "user", "content": "I live in Oslo."}], user_name="Ann")
    assert memory.settings("b") == GroupSettings(group_id="b")
    assert memory.user("b") is None and memory.entities("b") == []
    (said,) = memory.add_messages("b", [{"role": "user", "content": "I live in Rome."}])
    assert memory.episode("b", said.episode_id).speaker is None  # b has no user: A's is not borrowed
    assert memory.user("a") is not None and memory.user("a").name == "Ann"  # type: ignore[union-attr]
    assert memory.configure("b").user_name is None


def test_forget_erases_the_user_name_from_the_settings(memory: Memory) -> None:
    memory.add_messages(G, [{"role": "user", "content": "I live in Lisbon."}], user_name="Zorblax Quentin")
    memory.configure("other", user_name="Zorblax Quentin")
    exported = memory.export(G)
    assert exported.settings is not None and exported.settings.user_name == "Zorblax Quentin"
    assert ("settings", exported.settings) in exported.records()
    report = memory.forget(G, entity="Zorblax Quentin")
    assert report.verified, report.leftovers
    assert memory.export(G).settings is None
    assert memory.settings(G).user_name is None and memory.user(G) is None
    assert memory.settings("other").user_name == "Zorblax Quentin"  # another group's settings are its own


def test_the_sync_and_async_apis_agree_on_the_new_methods() -> None:
    import inspect

    from kronograph import AsyncMemory

    for name in ("add_messages", "settings", "configure", "user", "add_episode", "enqueue_episode"):
        assert inspect.signature(getattr(Memory, name)) == inspect.signature(getattr(AsyncMemory, name)), name
        assert getattr(AsyncMemory, name).__doc__ and getattr(Memory, name).__doc__ or name in (
            "add_episode", "enqueue_episode"), name


def test_an_interrupted_message_resumes_with_its_speaker_and_role(memory: Memory) -> None:
    store = memory.store  # type: ignore[attr-defined]
    original = store.unit

    def broken(group_id: str, **_: Any) -> Any:  # the commit never happens: as if the process died there
        raise KeyboardInterrupt

    store.unit = broken
    with pytest.raises(KeyboardInterrupt):
        memory.add_messages(G, [
            {"role": "user", "content": "I live in Oslo.", "id": "m1"},
            {"role": "assistant", "content": "I live in Rome. You work at Acme.", "id": "m2"},
        ], user_name="Ann Lee")
    store.unit = original
    assert {e.status for e in memory.episodes(G)} != {"complete"}
    memory.resume()
    done = {e.uuid: e for e in memory.episodes(G)}
    assert {(u, e.status, e.speaker, e.role) for u, e in done.items()} == {
        ("m1", "complete", "Ann Lee", "user"), ("m2", "complete", "Assistant", "assistant"),
    }
    assert _facts(memory) == {("Ann Lee", "LIVES_IN", "Oslo")}


# -- an older database ---------------------------------------------------------------------------------------


# the change feed's indexes (SQLite v16, PostgreSQL v13), which came later still
_FEED_INDEXES = " ".join(
    f"DROP INDEX IF EXISTS {name};"
    for name in ("facts_by_recorded", "history_by_recorded", "history_by_group_fact", "audit_by_kind")
)


def _downgrade_sqlite(path: Any) -> None:
    """The file as kronograph wrote it before schema version 14 (and the later ones)."""
    import sqlite3

    conn = sqlite3.connect(path)
    conn.executescript(
        "ALTER TABLE episodes DROP COLUMN speaker; ALTER TABLE episodes DROP COLUMN role;"
        " DROP TABLE group_settings; ALTER TABLE facts DROP COLUMN event; ALTER TABLE fact_history DROP COLUMN event;"
        f" {_FEED_INDEXES} DELETE FROM schema_migrations WHERE version >= 14;"
    )
    conn.close()


def _downgrade_postgres(url: str) -> None:
    """The database as kronograph wrote it before schema version 11 (and the later ones)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "ALTER TABLE episodes DROP COLUMN speaker; ALTER TABLE episodes DROP COLUMN role;"
            " DROP TABLE group_settings; ALTER TABLE facts DROP COLUMN event;"
            f" ALTER TABLE fact_history DROP COLUMN event; {_FEED_INDEXES}"
            " DELETE FROM schema_migrations WHERE version >= 11;"
        )


@pytest.mark.parametrize("backend_name", ["sqlite", "postgres"])
def test_an_older_database_is_migrated_and_keeps_its_episodes(tmp_path: Any, backend_name: str) -> None:
    if backend_name == "sqlite":
        from kronograph.store.sqlite.schema import MIGRATIONS

        where: Any = tmp_path / "old.db"
        downgrade: Callable[[Any], None] = _downgrade_sqlite
        latest = 14
    else:
        from kronograph.store.postgres.schema import MIGRATIONS  # type: ignore[assignment]

        from . import pg_server

        where = pg_server.databases().fresh()
        downgrade = _downgrade_postgres
        latest = 11
    assert (latest, "speakers") in [(version, name) for version, name, _ in MIGRATIONS]
    with Memory(where, model=None) as memory:
        memory.add_episode(G, "Ann: I work at Acme.", reference_time="2024-01-01", episode_id="old")
    downgrade(where)
    with Memory(where, model=None) as memory:
        old = memory.episode(G, "old")
        assert (old.status, old.speaker, old.role) == ("complete", None, None)
        assert memory.settings(G).user_name is None
        memory.add_messages(G, [{"role": "user", "content": "I live in Oslo.", "id": "new"}], user_name="Ann")
        assert (memory.episode(G, "new").speaker, memory.settings(G).user_name) == ("Ann", "Ann")
        assert _facts(memory) == {("Ann", "WORKS_AT", "Acme"), ("Ann", "LIVES_IN", "Oslo")}
