"""Operational metrics: counters and histograms a deployment watches.

One process-wide registry, kept by ``prometheus_client`` (the ``server``
extra): the library records into it as it works, :func:`snapshot` reads it as
plain data and :func:`render` in Prometheus's text exposition format (what a
``/metrics`` endpoint serves); ``REGISTRY`` is itself a ``prometheus_client``
collector, which an application may register in its own registry. Without
``prometheus_client`` recording costs nothing and reading says what to
install. Labels are bounded sets (status, call purpose, scope, search
method), never group ids or names, so the series stay few.

With the OpenTelemetry API installed, :func:`span` opens a span per
operation (``add_episode``, ``search``); without it, it costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .model import EpisodeResult

try:
    import prometheus_client as _prometheus
except ImportError:  # the server extra is not installed: nothing is recorded
    _prometheus = None  # type: ignore[assignment]

__all__ = [
    "INSTALL_HINT",
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

INSTALL_HINT = "pip install 'kronograph[server]'"

Labels = tuple[tuple[str, str], ...]

# Seconds: from a tenth of a millisecond to a minute (Prometheus style, cumulative).
TIME_BUCKETS = (0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0)
COUNT_BUCKETS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500)


class _Metric:
    """A ``prometheus_client`` metric (None without the package) and its
    labelled children, kept by label values: ``labels()`` is slow."""

    def __init__(self, name: str, help: str, metric: Any) -> None:
        self.name, self.help, self._metric = name, help, metric
        self._children: dict[tuple[tuple[str, object], ...], Any] = {}

    def _child(self, labels: dict[str, object]) -> Any:
        if not labels:
            return self._metric
        key = tuple(labels.items())
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = self._metric.labels(**{k: str(v) for k, v in labels.items()})
        return child


class Counter(_Metric):
    """A ``prometheus_client`` counter with its label names, updated by keyword."""

    def __init__(self, name: str, help: str, labels: Sequence[str] = (), *, registry: Any = None) -> None:
        super().__init__(name, help, None if _prometheus is None else _prometheus.Counter(
            name, help, tuple(labels), registry=registry
        ))

    def inc(self, amount: float = 1.0, **labels: object) -> None:
        if amount < 0:
            raise ValueError(f"{self.name}: a counter only goes up")
        if self._metric is not None:
            self._child(labels).inc(amount)

    def series(self) -> dict[Labels, Any]:
        """Each series' value, by its labels."""
        return {_key(s.labels): s.value for s in _samples(self._metric) if s.name == self.name}


class Histogram(_Metric):
    """A ``prometheus_client`` histogram with its label names, updated by keyword."""

    def __init__(
        self, name: str, help: str, buckets: Sequence[float], labels: Sequence[str] = (), *, registry: Any = None
    ) -> None:
        super().__init__(name, help, None if _prometheus is None else _prometheus.Histogram(
            name, help, tuple(labels), registry=registry, buckets=tuple(buckets)
        ))

    def observe(self, value: float, **labels: object) -> None:
        if self._metric is not None:
            self._child(labels).observe(value)

    def series(self) -> dict[Labels, Any]:
        """Each series as ``{"count", "sum", "buckets": {le: cumulative}}``, by its labels."""
        out: dict[Labels, dict[str, Any]] = {}
        for s in _samples(self._metric):
            le = s.labels.get("le")
            one = out.setdefault(_key({k: v for k, v in s.labels.items() if k != "le"}), {"buckets": {}})
            if s.name == f"{self.name}_bucket" and le is not None:
                one["buckets"][le if le == "+Inf" else _number(float(le))] = int(s.value)
            elif s.name == f"{self.name}_count":
                one["count"] = int(s.value)
            elif s.name == f"{self.name}_sum":
                one["sum"] = s.value
        return {key: {"count": v["count"], "sum": v["sum"], "buckets": v["buckets"]} for key, v in out.items()}


def _samples(metric: Any) -> Iterator[Any]:
    if metric is None:
        raise ImportError(f"kronograph's metrics are kept by prometheus_client: {INSTALL_HINT}")
    for family in metric.collect():
        yield from family.samples


def _key(labels: Mapping[str, str]) -> Labels:
    return tuple(sorted(labels.items()))


class Registry:
    """The metrics kronograph keeps, in a ``prometheus_client`` registry of
    their own (``collector``). Its metrics are safe to update from several
    threads (the sync shell hands work between them)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Every metric from zero, in a new ``collector``."""
        r = self.collector = None if _prometheus is None else _prometheus.CollectorRegistry(auto_describe=True)
        self.episodes = Counter("kronograph_episodes_total", "Episodes ingested, by final status.", ["status"],
                                registry=r)
        self.episode_seconds = Histogram(
            "kronograph_episode_seconds",
            "Time to ingest one episode, from its extraction to its commit (resumed ones: from resuming).",
            TIME_BUCKETS, registry=r,
        )
        self.late_episodes = Counter(
            "kronograph_late_episodes_total",
            "Episodes whose reference time is before one already ingested in their group (by this process).",
            registry=r,
        )
        self.not_understood = Counter(
            "kronograph_episodes_not_understood_total",
            "Complete episodes from which nothing was understood: no fact taken (their notes say what they said).",
            registry=r,
        )
        self.model_calls = Counter("kronograph_model_calls_total", "Model calls, by purpose (cached answers apart).",
                                   ["purpose", "cached"], registry=r)
        self.model_tokens = Counter("kronograph_model_tokens_total", "Model tokens, by purpose and direction.",
                                    ["purpose", "direction"], registry=r)
        self.candidates = Histogram(
            "kronograph_fact_candidates", "Stored facts a new fact was resolved against.", COUNT_BUCKETS, registry=r
        )
        self.facts = Counter(
            "kronograph_facts_total",
            "Facts by outcome: created, merged (restated), retired (closed or expired), changed.",
            ["outcome"], registry=r,
        )
        self.redos = Counter(
            "kronograph_write_redos_total",
            "Writes prepared again because their group changed between their reads and their commit, by kind.",
            ["kind"], registry=r,
        )
        self.interval_violations = Counter(
            "kronograph_interval_violations_total", "Overlapping intervals found in a single-valued slot.",
            registry=r,
        )
        self.search_seconds = Histogram(
            "kronograph_search_seconds", "Search time, by scope and method (\"all\": the whole search).",
            TIME_BUCKETS, ["scope", "method"], registry=r,
        )
        self.http_seconds = Histogram(
            "kronograph_http_request_seconds",
            "Time to answer an HTTP request of the service, by method, route (its template) and status.",
            TIME_BUCKETS, ["method", "route", "status"], registry=r,
        )

    def collect(self) -> Iterator[Any]:
        """The metric families, for a ``prometheus_client`` registry this one is registered in."""
        if self.collector is not None:
            yield from self.collector.collect()

    def _metrics(self) -> Iterable[Counter | Histogram]:
        return [m for m in vars(self).values() if isinstance(m, Counter | Histogram)]

    def snapshot(self) -> dict[str, Any]:
        """Every series as plain data: ``{name: {label string: value}}``; a
        histogram's value is ``{"count", "sum", "buckets": {le: cumulative}}``."""
        return {m.name: {_label_text(key): value for key, value in m.series().items()} for m in self._metrics()}

    def render(self) -> str:
        """The Prometheus text exposition format (version 0.0.4)."""
        lines: list[str] = []
        for metric in self._metrics():
            kind = "counter" if isinstance(metric, Counter) else "histogram"
            lines += [f"# HELP {metric.name} {metric.help}", f"# TYPE {metric.name} {kind}"]
            name = metric.name
            for key, value in sorted(metric.series().items()):
                if isinstance(metric, Counter):
                    lines.append(f"{name}{_label_text(key)} {_number(value)}")
                    continue
                for le, running in value["buckets"].items():
                    lines.append(f"{name}_bucket{_label_text((*key, ('le', le)))} {running}")
                lines.append(f"{name}_sum{_label_text(key)} {_number(value['sum'])}")
                lines.append(f"{name}_count{_label_text(key)} {value['count']}")
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


def record_episode(result: EpisodeResult, seconds: float, *, late: bool) -> None:
    """One processed episode: its status, how long it took, whether it came
    late, and what it did to the graph (an ``EpisodeResult``)."""
    r = REGISTRY
    r.episodes.inc(status=str(result.status))
    r.episode_seconds.observe(seconds)
    if late:
        r.late_episodes.inc()
    if result.understood_nothing:
        r.not_understood.inc()
    for outcome in ("created", "merged", "retired", "changed"):
        if found := len(getattr(result, outcome)):
            r.facts.inc(found, outcome=outcome)


def record_model_call(purpose: str, *, prompt_tokens: int, completion_tokens: int, cached: bool = False) -> None:
    r = REGISTRY
    r.model_calls.inc(purpose=purpose, cached=str(cached).lower())
    if prompt_tokens:
        r.model_tokens.inc(prompt_tokens, purpose=purpose, direction="prompt")
    if completion_tokens:
        r.model_tokens.inc(completion_tokens, purpose=purpose, direction="completion")


def record_candidates(count: int) -> None:
    REGISTRY.candidates.observe(count)


def record_facts(outcomes: Mapping[str, int]) -> None:
    """Facts written outside an episode (``add_fact``), by outcome."""
    r = REGISTRY
    for outcome, found in outcomes.items():
        if found:
            r.facts.inc(found, outcome=outcome)


def record_search(scope: str, method: str, seconds: float) -> None:
    REGISTRY.search_seconds.observe(seconds, scope=scope, method=method)


def record_http_request(method: str, route: str, status: int, seconds: float) -> None:
    REGISTRY.http_seconds.observe(seconds, method=method, route=route, status=str(status))


def record_redo(kind: str) -> None:
    """A write whose reads went stale before its commit, prepared again."""
    REGISTRY.redos.inc(kind=kind)


def record_interval_violations(count: int) -> None:
    if count:
        REGISTRY.interval_violations.inc(count)


def span(name: str, **attributes: object) -> AbstractContextManager[Any]:
    """An OpenTelemetry span named ``kronograph.<name>`` when the API is
    installed (a no-op tracer unless the application configured one)."""
    try:
        from opentelemetry import trace
    except ImportError:
        return nullcontext()
    attrs = {k: v if isinstance(v, bool | int | float | str) else str(v) for k, v in attributes.items()}
    opened: AbstractContextManager[Any] = trace.get_tracer("kronograph").start_as_current_span(
        f"kronograph.{name}", attributes=attrs
    )
    return opened
