"""Metrics: what the library records as it works, read as data or in
Prometheus's text format."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest

from kronograph import Memory, metrics

from .ingest_helpers import ScriptedProvider
from .test_ingest import T0, client, employment_judge, extraction_table, facts_json


@pytest.fixture(autouse=True)
def fresh_registry() -> Iterator[None]:
    metrics.reset()
    yield
    metrics.reset()


def _value(name: str, **labels: str) -> float:
    key = "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}" if labels else ""
    return float(metrics.snapshot()[name].get(key, 0))


def test_episodes_model_calls_facts_and_late_arrivals_are_counted() -> None:
    table = {
        "Ann Lee: I work at Acme.": facts_json(("Ann Lee", "WORKS_AT", "Acme")),
        "Ann Lee: I now work at Globex.": facts_json(("Ann Lee", "WORKS_AT", "Globex"), valid_at="2024-03-01"),
        "Ann Lee: I like jazz.": facts_json(("Ann Lee", "LIKES", "Jazz")),
    }
    provider = ScriptedProvider(Extraction=extraction_table(table), JudgeAnswer=employment_judge)
    with Memory(model=client(provider)) as memory:
        memory.add_episode("g", "Ann Lee: I work at Acme.", reference_time=T0)
        memory.add_episode("g", "Ann Lee: I now work at Globex.", reference_time="2024-03-02")
        memory.add_episode("g", "Ann Lee: I like jazz.", reference_time="2023-12-01")  # before the others: late
    assert _value("kronograph_episodes_total", status="complete") == 3
    assert _value("kronograph_late_episodes_total") == 1
    assert _value("kronograph_model_calls_total", purpose="extract", cached="false") == 3
    assert _value("kronograph_model_calls_total", purpose="judge", cached="false") == provider.count("JudgeAnswer")
    prompt_tokens = sum(len(user) for _, user in provider.calls)  # at least the user prompts' share
    assert _value("kronograph_model_tokens_total", purpose="extract", direction="prompt") > 0
    assert prompt_tokens > 0
    assert _value("kronograph_facts_total", outcome="created") == 3
    assert _value("kronograph_facts_total", outcome="retired") == 1  # Globex retired Acme
    assert metrics.snapshot()["kronograph_episode_seconds"][""]["count"] == 3
    candidates = metrics.snapshot()["kronograph_fact_candidates"][""]
    assert candidates["count"] >= 3 and candidates["sum"] >= 1  # Globex was resolved against Acme


def test_add_fact_and_search_are_measured_by_scope_and_method(
    memory_factory: Callable[..., Memory],
) -> None:
    memory = memory_factory(model=None)
    memory.add_fact("g", "Alice", "LIVES_IN", "Paris")
    memory.add_fact("g", "Alice", "LIVES_IN", "Paris")  # restated: merged
    memory.search("g", "Alice Paris", scopes=("facts", "entities"))
    assert _value("kronograph_facts_total", outcome="created") == 1
    assert _value("kronograph_facts_total", outcome="merged") == 1
    searches = metrics.snapshot()["kronograph_search_seconds"]
    assert searches['{method="all",scope="all"}']["count"] == 1
    for scope in ("facts", "entities"):
        for method in ("bm25", "cosine"):
            assert searches[f'{{method="{method}",scope="{scope}"}}']["count"] >= 1


def test_the_text_format_is_prometheus_exposition() -> None:
    with Memory(model=None) as memory:
        memory.add_fact("g", "Alice", "LIVES_IN", "Paris")
        memory.search("g", "Alice")
    text = metrics.render()
    sample = re.compile(
        r'^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? -?[0-9.e+-]+$|^[a-z_]+\{.*le="\+Inf".*\} \d+$'
    )
    for line in text.splitlines():
        if line.startswith("# "):
            assert re.match(r"^# (HELP|TYPE) kronograph_[a-z_]+ ", line), line
        else:
            assert sample.match(line), line
    # A histogram's buckets are cumulative and end at +Inf with the count.
    buckets = [int(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith('kronograph_search_seconds_bucket{method="all"')]
    assert buckets == sorted(buckets)
    count = next(line for line in text.splitlines() if line.startswith('kronograph_search_seconds_count{method="all"'))
    assert buckets[-1] == int(count.rsplit(" ", 1)[1]) == 1


def test_labels_are_escaped_and_counters_only_go_up() -> None:
    registry = metrics.Registry()
    registry.model_calls.inc(purpose='odd "name"\\with\nbreaks', cached="false")
    assert 'purpose="odd \\"name\\"\\\\with\\nbreaks"' in registry.render()
    with pytest.raises(ValueError, match="only goes up"):
        registry.model_calls.inc(-1)


def test_operations_are_opentelemetry_spans() -> None:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("kronograph")
    # The global provider can be set once per process: hand ours in for this test.
    original = trace.get_tracer
    trace.get_tracer = lambda *args, **kwargs: tracer  # type: ignore[assignment]
    try:
        with Memory(model=None) as memory:
            memory.add_fact("g", "Alice", "LIVES_IN", "Paris")
            memory.add_episode("g", "Bob moved to Lyon in 2018.")
            memory.search("g", "Alice", scopes=("facts",))
    finally:
        trace.get_tracer = original  # type: ignore[assignment]
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert {"kronograph.add_fact", "kronograph.add_episode", "kronograph.search"} <= spans.keys()
    assert spans["kronograph.search"].attributes["scopes"] == "facts"
    assert spans["kronograph.add_fact"].attributes["group_id"] == "g"


def test_without_prometheus_client_recording_is_free_and_reading_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(metrics, "_prometheus", None)
    registry = metrics.Registry()
    registry.model_calls.inc(purpose="extract", cached="false")  # recorded nowhere, no error
    registry.search_seconds.observe(0.1, scope="all", method="all")
    with pytest.raises(ImportError, match=r"pip install 'kronograph\[server\]'"):
        registry.snapshot()
    with pytest.raises(ImportError, match=r"kronograph\[server\]"):
        registry.render()


def test_the_registry_is_a_prometheus_client_collector() -> None:
    from prometheus_client import CollectorRegistry, generate_latest

    metrics.record_redo("episode")
    host = CollectorRegistry()
    host.register(metrics.REGISTRY)
    assert 'kronograph_write_redos_total{kind="episode"} 1.0' in generate_latest(host).decode()
