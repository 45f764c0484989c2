"""The pure resolution functions, with no database at all."""

from __future__ import annotations

from datetime import UTC, datetime

from kronograph.ingest.entities import choose_entity, compatible
from kronograph.ingest.resolution import decide, plan_fact, screen
from kronograph.ingest.timeline import merge_sources, recompute
from kronograph.model import Entity, RelationType, Verdict, fold_relation
from kronograph.store.plan import Plan
from kronograph.store.records import FactRecord, Neighbourhood, Source

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def day(n: int) -> datetime:
    return datetime(2024, 1, 1, tzinfo=UTC).replace(day=1) + (datetime(2024, 1, 2, tzinfo=UTC) - T0) * n


def rec(
    uuid: str,
    s: str,
    rel: str,
    o: str,
    start: int,
    *,
    end: int | None = None,
    created: int = 0,
    episode: str | None = None,
) -> FactRecord:
    valid = day(start)
    stated = day(end) if end is not None else None
    return FactRecord(
        uuid=uuid,
        group_id="g",
        source_uuid=s,
        target_uuid=o,
        subject=s,
        object=o,
        relation=rel,
        relation_key=rel.lower(),
        fact=f"{s} {rel} {o}",
        valid_at=valid,
        invalid_at=None,
        stated_invalid_at=stated,
        created_at=day(created),
        expired_at=None,
        invalidated_by=None,
        sources=(Source(episode or f"ep-{uuid}", valid, stated, day(created)),),
    )


MANY_TO_ONE = RelationType(cardinality="many_to_one")
ONE_TO_MANY = RelationType(cardinality="one_to_many")


class TestGuard:
    def test_unrelated_relation_on_shared_entity_is_not_eligible(self) -> None:
        job = rec("f1", "dana", "WORKS_AT", "initech", 1)
        new = rec("f2", "dana", "MAINTAINS", "libfoo", 5, created=5)
        screening = screen(new, [job], None)
        assert screening.for_judge == [] and screening.by_cardinality == []
        decision = decide(screening, Verdict(contradicts=["f1"]))
        assert decision.contradicts == [] and decision.refused == ["f1"]

    def test_same_pair_is_eligible_whatever_the_relation_and_direction(self) -> None:
        employs = rec("f1", "globex", "EMPLOYS", "omar", 1)
        left = rec("f2", "omar", "LEFT", "globex", 9, created=9)
        screening = screen(left, [employs], None)
        assert [c.uuid for c in screening.for_judge] == ["f1"]
        assert [c.uuid for c in decide(screening, Verdict(contradicts=["f1"])).contradicts] == ["f1"]

    def test_shared_entity_and_folded_relation_is_eligible(self) -> None:
        old = rec("f1", "helper.py", "part_of", "toolkit", 1)
        new = rec("f2", "helper.rb", "part_of", "toolkit", 9, created=9)
        assert [c.uuid for c in screen(new, [old], None).for_judge] == ["f1"]

    def test_unknown_uuid_in_verdict_is_refused(self) -> None:
        new = rec("f2", "a", "likes", "b", 2)
        decision = decide(screen(new, [], None), Verdict(contradicts=["nope"], duplicate_of="nada"))
        assert decision.contradicts == [] and decision.duplicate_of is None
        assert decision.refused == ["nope", "nada"]


class TestCardinality:
    def test_many_to_one_contradicts_other_objects_of_the_subject_only(self) -> None:
        oslo = rec("f1", "eve", "lives_in", "oslo", 1)
        bob_oslo = rec("f3", "bob", "lives_in", "oslo", 1)
        bergen = rec("f2", "eve", "lives_in", "bergen", 9, created=9)
        screening = screen(bergen, [oslo, bob_oslo], MANY_TO_ONE)
        assert [c.uuid for c in screening.by_cardinality] == ["f1"]
        assert screening.for_judge == []

    def test_one_to_many_contradicts_other_subjects_of_the_object(self) -> None:
        sarah = rec("f1", "sarah", "ceo_of", "acme", 1)
        sarah_other = rec("f3", "sarah", "ceo_of", "globex", 1)
        mike = rec("f2", "mike", "ceo_of", "acme", 9, created=9)
        assert [c.uuid for c in screen(mike, [sarah, sarah_other], ONE_TO_MANY).by_cardinality] == ["f1"]

    def test_wrong_judge_cannot_override_a_declared_compatibility(self) -> None:
        bob_oslo = rec("f3", "bob", "lives_in", "oslo", 1)
        eve_oslo = rec("f2", "eve", "lives_in", "oslo", 9, created=9)
        decision = decide(screen(eve_oslo, [bob_oslo], MANY_TO_ONE), Verdict(contradicts=["f3"]))
        assert decision.contradicts == [] and decision.refused == ["f3"]


class TestRestatement:
    def test_overlapping_restatement_merges(self) -> None:
        old = rec("f1", "bob", "likes", "coffee", 1)
        new = rec("f2", "bob", "likes", "coffee", 5, created=5)
        assert screen(new, [old], None).restatement is old

    def test_restatement_after_the_fact_closed_is_a_new_interval(self) -> None:
        old = rec("f1", "alice", "lives_in", "beijing", 1).with_(invalid_at=day(3))
        new = rec("f2", "alice", "lives_in", "beijing", 9, created=9)
        screening = screen(new, [old], MANY_TO_ONE)
        assert screening.restatement is None and screening.by_cardinality == []

    def test_merge_keeps_earliest_start_and_latest_stated_end(self) -> None:
        a = Source("e1", day(5), None, day(5))
        b = Source("e2", day(2), day(8), day(6))
        c = Source("e3", day(3), day(7), day(7))
        merged = merge_sources(rec("f1", "x", "r", "y", 5), (a, b, c))
        assert merged.valid_at == day(2) and merged.stated_invalid_at == day(8)

    def test_plan_merges_provenance_and_moves_start_earlier(self) -> None:
        old = rec("f1", "bob", "likes", "coffee", 5, episode="e1")
        new = rec("f2", "bob", "likes", "coffee", 2, created=9, episode="e2")
        screening = screen(new, [old], None)
        plan = Plan(group_id="g", now=day(9), expected_revision=1)
        hood = Neighbourhood(records={"f1": old}, edges={"f1": set()}, complete={"f1"})
        outcome = plan_fact(
            plan=plan, new=new, decision=decide(screening, Verdict()), restatement=old, hood=hood, episode_id="e2"
        )
        assert outcome.merged and outcome.target.uuid == "f1"
        assert outcome.target.valid_at == day(2) and outcome.target.episodes == ("e1", "e2")
        assert plan.new_facts == [] and [u.cause for u in plan.updated_facts] == ["restated"]
        assert [(h.record.uuid, h.record.valid_at) for h in plan.history] == [("f1", day(5))]  # the old version


class TestTimeline:
    def test_closed_at_the_earliest_later_start(self) -> None:
        a = rec("a", "x", "r", "1", 1)
        b = rec("b", "x", "r", "2", 5, created=1)
        c = rec("c", "x", "r", "3", 3, created=2)
        got = recompute(a, [b, c], day(9))
        assert got.invalid_at == day(3) and got.invalidated_by == "c"

    def test_stated_end_wins_when_earlier_or_equal(self) -> None:
        a = rec("a", "x", "r", "1", 1, end=4)
        b = rec("b", "x", "r", "2", 4, created=1)
        got = recompute(a, [b], day(9))
        assert got.invalid_at == day(4) and got.invalidated_by is None

    def test_later_start_never_closes_earlier(self) -> None:
        late = rec("b", "x", "r", "2", 5, created=1)
        early = rec("a", "x", "r", "1", 1, created=2)
        assert recompute(late, [early], day(9)).invalid_at is None

    def test_same_start_correction_expires_the_older_record(self) -> None:
        old = rec("a", "x", "r", "1", 1, created=1)
        fix = rec("b", "x", "r", "2", 1, created=2)
        got = recompute(old, [fix], day(9))
        assert got.expired_at == day(9) and got.invalidated_by == "b"
        assert recompute(fix, [old], day(9)).expired_at is None
        # Expiry time is kept on later recomputes, and undone when the link goes.
        assert recompute(got, [fix], day(12)).expired_at == day(9)
        assert recompute(got, [], day(12)).expired_at is None

    def test_unchanged_record_is_returned_as_is(self) -> None:
        a = rec("a", "x", "r", "1", 1)
        assert recompute(a, [], day(2)) is a


class TestEntities:
    def entity(self, uuid: str, labels: tuple[str, ...], created: int = 0) -> Entity:
        return Entity(uuid=uuid, group_id="g", name="Apple", labels=labels, created_at=day(created))

    def test_label_families(self) -> None:
        assert compatible(["Company"], ["Organization"])
        assert compatible([], ["Food"])
        assert compatible(["Entity"], ["Food"])
        assert not compatible(["Organization"], ["Food"])

    def test_choice_prefers_shared_label_then_oldest(self) -> None:
        org = self.entity("org", ("Organization",), 1)
        food = self.entity("food", ("Food",), 2)
        bare = self.entity("bare", (), 0)
        assert choose_entity(["Fruit"], [org, food, bare]) is food
        assert choose_entity(["Company"], [food, org]) is org
        assert choose_entity([], [food, org]) is org
        assert choose_entity(["Person"], [org, food]) is None


def test_only_a_fact_of_the_same_pair_can_be_a_duplicate() -> None:
    old = rec("f1", "helper.py", "part_of", "toolkit", 1)
    new = rec("f2", "helper.rb", "part_of", "toolkit", 9, created=9)
    screening = screen(new, [old], None)
    assert [c.uuid for c in screening.for_judge] == ["f1"]
    decision = decide(screening, Verdict(duplicate_of="f1"))
    assert decision.duplicate_of is None and decision.refused == ["f1"]
    works = rec("f3", "alice", "works_for", "acme", 1)
    employed = rec("f4", "acme", "employs", "alice", 9, created=9)
    decision = decide(screen(employed, [works], None), Verdict(duplicate_of="f3"))
    assert decision.duplicate_of is works and decision.refused == []


class TestEvents:
    """The event rules, as pure decisions: no database."""

    def event(self, uuid: str, s: str, rel: str, o: str, start: int, **kw: object) -> FactRecord:
        return self.state(uuid, s, rel, o, start, **kw).with_(event=True)

    def state(self, uuid: str, s: str, rel: str, o: str, start: int, **kw: object) -> FactRecord:
        return rec(uuid, s, rel, o, start, **kw).with_(relation_key=fold_relation(rel))  # type: ignore[arg-type]

    def test_the_same_event_is_one_only_on_the_same_day(self) -> None:
        met = self.event("f1", "sam", "MET", "maya", 3)
        assert screen(self.event("n", "sam", "MET", "maya", 3), [met], None).restatement is met
        other_day = screen(self.event("n", "sam", "MET", "maya", 9), [met], None)
        assert other_day.restatement is None and not other_day.by_cardinality and not other_day.for_judge

    def test_no_cardinality_ever_retires_an_event_nor_is_applied_by_one(self) -> None:
        moves = RelationType(cardinality="many_to_one", event=True)
        berlin = self.event("f1", "sam", "MOVED_TO", "berlin", 1)
        found = screen(self.event("n", "sam", "MOVED_TO", "paris", 5), [berlin], moves)
        assert found.by_cardinality == [] and found.for_judge == []
        state = self.state("f2", "sam", "MOVED_TO", "rome", 1)  # written before the relation was declared
        assert screen(self.event("n", "sam", "MOVED_TO", "paris", 5), [state], moves).by_cardinality == []

    def test_an_event_ends_what_its_relation_ends_but_nothing_ends_an_event(self) -> None:
        left = RelationType(ends=("WORKS_AT", "JOINED"), event=True)
        job = self.state("f1", "sam", "WORKS_AT", "acme", 1)
        joined = self.event("f2", "sam", "JOINED", "acme", 1)
        found = screen(self.event("n", "sam", "LEFT", "acme", 5), [job, joined], left)
        assert found.by_cardinality == [job]  # the state it ends, not the moment of joining
        later = self.state("f3", "sam", "WORKS_AT", "acme", 9)
        assert recompute(joined, [later], day(10)).invalid_at is None  # linked (a judge), still not closed
        assert recompute(job, [self.event("n", "sam", "LEFT", "acme", 5)], day(10)).invalid_at == day(5)
