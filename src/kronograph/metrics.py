"""Operational metrics: counters and histograms a deployment watches.

One process-wide registry, as Prometheus clients keep one: the library
records into it as it works, :func:`snapshot` reads it as plain data and
:func:`render` in Prometheus's text exposition format (what a ``/metrics``
endpoint serves). Labels are bounded sets (status, call purpose, scope,
search method), never group ids or names, so the series stay few.

With the OpenTelemetry API installed, :func:`span` opens a span per
operation (``add_episode``, ``search``); without it, it costs nothing.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "REGISTRY",
    "Counter",
    "Histogram",
    "Registry",
    "record_candidates",
    "record_episode",
    "record_facts",
    "record_interval_violations",
    "record_model_call",
    "record_redo",
    "record_http_request",
    "record_search",
    "render",
    "reset",
    "snapshot",
    "span",
]

Labels = tuple[tuple[str, str], ...]

# Seconds: from a tenth of a millisecond to a minute (Prometheus style, cumulative).
TIME_BUCKETS = (0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0)
COUNT_BUCKETS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500)


def _labels(values: Mapping[str, object]) -> Labels:
    return tuple(sorted((k, str(v)) for k, v in values.items()))


@dataclass
class Counter:
    name: str
    help: str
    values: dict[Labels, float] = field(default_factory=dict)

    def inc(self, amount: float = 1.0, **labels: object) -> None:
        if amount < 0:
            raise ValueError(f"{self.name}: a counter only goes up")
        key = _labels(labels)
        self.values[key] = self.values.get(key, 0.0) + amount


@dataclass
class Histogram:
    name: str
    help: str
    buckets: Sequence[float]
    counts: dict[Labels, list[int]] = field(default_factory=dict)  # per bucket, not cumulative; last: +Inf
    sums: dict[Labels, float] = field(default_factory=dict)

    def observe(self, value: float, **labels: object) -> None:
        key = _labels(labels)
        counts = self.counts.setdefault(key, [0] * (len(self.buckets) + 1))
        counts[bisect.bisect_left(self.buckets, value)] += 1
        self.sums[key] = self.sums.get(key, 0.0) + value


class Registry:
    """The metrics kronograph keeps. Updates take a lock: a memory may be used
    from several threads (the sync shell hands work between them)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.episodes = Counter("kronograph_episodes_total", "Episodes ingested, by final status.")
        self.episode_seconds = Histogram(
            "kronograph_episode_seconds",
            "Time to ingest one episode, from its extraction to its commit (resumed ones: from resuming).",
            TIME_BUCKETS,
        )
        self.late_episodes = Counter(
            "kronograph_late_episodes_total",
            "Episodes whose reference time is before one already ingested in their group (by this process).",
        )
        self.not_understood = Counter(
            "kronograph_episodes_not_understood_total",
            "Complete episodes from which nothing was understood: no fact taken (their notes say what they said).",
        )
        self.model_calls = Counter("kronograph_model_calls_total", "Model calls, by purpose (cached answers apart).")
        self.model_tokens = Counter("kronograph_model_tokens_total", "Model tokens, by purpose and direction.")
        self.candidates = Histogram(
            "kronograph_fact_candidates", "Stored facts a new fact was resolved against.", COUNT_BUCKETS
        )
        self.facts = Counter(
            "kronograph_facts_total",
            "Facts by outcome: created, merged (restated), retired (closed or expired), changed.",
        )
        self.redos = Counter(
            "kronograph_write_redos_total",
            "Writes prepared again because their group changed between their reads and their commit, by kind.",
        )
        self.interval_violations = Counter(
            "kronograph_interval_violations_total", "Overlapping intervals found in a single-valued slot."
        )
        self.search_seconds = Histogram(
            "kronograph_search_seconds", "Search time, by scope and method (\"all\": the whole search).", TIME_BUCKETS
        )
        self.http_seconds = Histogram(
            "kronograph_http_request_seconds",
            "Time to answer an HTTP request of the service, by method, route (its template) and status.",
            TIME_BUCKETS,
        )

    def _metrics(self) -> list[Counter | Histogram]:
        return [m for m in vars(self).values() if isinstance(m, Counter | Histogram)]

    @contextmanager
    def locked(self) -> Iterator[Registry]:
        with self._lock:
            yield self

    def reset(self) -> None:
        with self._lock:
            for metric in self._metrics():
                if isinstance(metric, Counter):
                    metric.values.clear()
                else:
                    metric.counts.clear()
                    metric.sums.clear()

    def snapshot(self) -> dict[str, Any]:
        """Every series as plain data: ``{name: {label string: value}}``; a
        histogram's value is ``{"count", "sum", "buckets": {le: cumulative}}``."""
        out: dict[str, Any] = {}
        with self._lock:
            for metric in self._metrics():
                series: dict[str, Any] = {}
                if isinstance(metric, Counter):
                    for key, value in metric.values.items():
                        series[_label_text(key)] = value
                else:
                    for key, counts in metric.counts.items():
                        cumulative, running = {}, 0
                        for le, n in zip([*map(_number, metric.buckets), "+Inf"], counts, strict=True):
                            running += n
                            cumulative[le] = running
                        series[_label_text(key)] = {"count": running, "sum": metric.sums[key], "buckets": cumulative}
                out[metric.name] = series
        return out

    def render(self) -> str:
        """The Prometheus text exposition format (version 0.0.4)."""
        lines: list[str] = []
        with self._lock:
            for metric in self._metrics():
                kind = "counter" if isinstance(metric, Counter) else "histogram"
                lines += [f"# HELP {metric.name} {metric.help}", f"# TYPE {metric.name} {kind}"]
                if isinstance(metric, Counter):
                    for key, value in sorted(metric.values.items()):
                        lines.append(f"{metric.name}{_label_text(key)} {_number(value)}")
                    continue
                for key, counts in sorted(metric.counts.items()):
                    running = 0
                    for le, n in zip([*map(_number, metric.buckets), "+Inf"], counts, strict=True):
                        running += n
                        lines.append(f"{metric.name}_bucket{_label_text((*key, ('le', le)))} {running}")
                    lines.append(f"{metric.name}_sum{_label_text(key)} {_number(metric.sums[key])}")
                    lines.append(f"{metric.name}_count{_label_text(key)} {running}")
        return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _label_text(key: Labels) -> str:
    if not key:
        return ""
    escaped = (v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") for _, v in key)
    return "{" + ",".join(f'{k}="{v}"' for (k, _), v in zip(key, escaped, strict=True)) + "}"


REGISTRY = Registry()


def snapshot() -> dict[str, Any]:
    return REGISTRY.snapshot()


def render() -> str:
    return REGISTRY.render()


def reset() -> None:
    REGISTRY.reset()


# -- what the library records ---------------------------------------------------


def record_episode(result: Any, seconds: float, *, late: bool) -> None:
    """One processed episode: its status, how long it took, whether it came
    late, and what it did to the graph (an ``EpisodeResult``)."""
    r = REGISTRY
    with r.locked():
        r.episodes.inc(status=str(result.status))
        r.episode_seconds.observe(seconds)
        if late:
            r.late_episodes.inc()
        if getattr(result, "understood_nothing", False):
            r.not_understood.inc()
        for outcome in ("created", "merged", "retired", "changed"):
            if found := len(getattr(result, outcome)):
                r.facts.inc(found, outcome=outcome)


def record_model_call(purpose: str, *, prompt_tokens: int, completion_tokens: int, cached: bool = False) -> None:
    r = REGISTRY
    with r.locked():
        r.model_calls.inc(purpose=purpose, cached=str(cached).lower())
        if prompt_tokens:
            r.model_tokens.inc(prompt_tokens, purpose=purpose, direction="prompt")
        if completion_tokens:
            r.model_tokens.inc(completion_tokens, purpose=purpose, direction="completion")


def record_candidates(count: int) -> None:
    with REGISTRY.locked() as r:
        r.candidates.observe(count)


def record_facts(outcomes: Mapping[str, int]) -> None:
    """Facts written outside an episode (``add_fact``), by outcome."""
    with REGISTRY.locked() as r:
        for outcome, found in outcomes.items():
            if found:
                r.facts.inc(found, outcome=outcome)


def record_search(scope: str, method: str, seconds: float) -> None:
    with REGISTRY.locked() as r:
        r.search_seconds.observe(seconds, scope=scope, method=method)


def record_http_request(method: str, route: str, status: int, seconds: float) -> None:
    with REGISTRY.locked() as r:
        r.http_seconds.observe(seconds, method=method, route=route, status=str(status))


def record_redo(kind: str) -> None:
    """A write whose reads went stale before its commit, prepared again."""
    with REGISTRY.locked() as r:
        r.redos.inc(kind=kind)


def record_interval_violations(count: int) -> None:
    if count:
        with REGISTRY.locked() as r:
            r.interval_violations.inc(count)


def span(name: str, **attributes: object) -> AbstractContextManager[Any]:
    """An OpenTelemetry span named ``kronograph.<name>`` when the API is
    installed (a no-op tracer unless the application configured one)."""
    try:
        from opentelemetry import trace
    except ImportError:
        return nullcontext()
    attrs = {k: v if isinstance(v, bool | int | float | str) else str(v) for k, v in attributes.items()}
    return trace.get_tracer("kronograph").start_as_current_span(f"kronograph.{name}", attributes=attrs)
