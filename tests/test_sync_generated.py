"""The blocking ``Memory`` is generated from ``AsyncMemory`` (tools/gen_sync.py):
it must be what the generator writes now, and mirror every public async method
with the same signature and docstring."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import pydoc
import sys
from pathlib import Path
from types import ModuleType

import pytest

import kronograph
from kronograph import AsyncMemory, Memory
from kronograph.ingest.bulk import EpisodeItem
from kronograph.ingest.judge import refuse_writes_from_a_judge

ROOT = Path(__file__).resolve().parents[1]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_sync", ROOT / "tools" / "gen_sync.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_sync", module)
    spec.loader.exec_module(module)
    return module


gen = _generator()


def _public(cls: type) -> dict[str, object]:
    return {n: v for n, v in inspect.getmembers(cls) if not n.startswith("_")}


def test_sync_py_is_what_the_generator_writes_now() -> None:
    written = (ROOT / "src" / "kronograph" / "sync.py").read_text(encoding="utf-8")
    assert written == gen.render(), (
        "src/kronograph/sync.py is stale (a public AsyncMemory method changed): regenerate it with "
        f"`{gen.COMMAND}` and commit the result"
    )


def test_every_public_async_method_has_a_sync_twin_with_its_signature_and_docstring() -> None:
    methods = {n: v for n, v in _public(AsyncMemory).items() if inspect.iscoroutinefunction(v)}
    assert len(methods) > 30
    for name, async_method in methods.items():
        twin = "close" if name == "aclose" else name
        method = getattr(Memory, twin, None)
        assert method is not None and inspect.isfunction(method), name
        assert not inspect.iscoroutinefunction(method), name
        doc = inspect.getdoc(async_method)
        assert doc, f"AsyncMemory.{name} has no docstring"
        assert inspect.getdoc(method), name
        if twin == name:
            assert inspect.signature(method) == inspect.signature(async_method), name
            assert method.__doc__ == async_method.__doc__, name
    sync_only = set(_public(Memory)) - set(methods) - {"close"}
    assert sync_only == {"store", "at"} == set(_public(AsyncMemory)) - set(methods)  # a property, a view
    assert inspect.getdoc(Memory.store)
    assert inspect.signature(Memory.__init__) == inspect.signature(AsyncMemory.__init__)


def test_help_on_a_sync_method_shows_the_async_text() -> None:
    text = pydoc.render_doc(kronograph.Memory.search, renderer=pydoc.plaintext)
    async_doc = inspect.getdoc(kronograph.AsyncMemory.search)
    assert async_doc and async_doc.splitlines()[0] in text
    assert " ".join(async_doc.split()) in " ".join(text.split())
    assert "\nsearch(self, group_ids" in text and "async search" not in text  # the blocking one, documented


def test_add_episode_keywords_agree_everywhere_they_are_listed() -> None:
    """add_episode's keyword list is written out in add_episode, enqueue_episode
    and EpisodeItem (the sync ones are generated); they must not drift."""
    add = inspect.signature(AsyncMemory.add_episode).parameters
    assert add == inspect.signature(AsyncMemory.enqueue_episode).parameters
    item = {f.name: f.default for f in dataclasses.fields(EpisodeItem)}
    keywords = {n: p.default for n, p in add.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert set(item) == {"content", "addressee", *keywords}
    assert all(item[n] == d for n, d in keywords.items())
    for method in (AsyncMemory.add_episode, AsyncMemory.enqueue_episode):  # each passes every one on
        node, _ = gen._parsed(method)
        made = [c for c in ast.walk(node) if isinstance(c, ast.Call) and ast.unparse(c.func) == "EpisodeItem"]
        assert len(made) == 1, method.__name__
        passed = {k.arg: ast.unparse(k.value) for k in made[0].keywords}
        assert passed == {n: n for n in ["content", *keywords]}, method.__name__
    from kronograph.server.schemas import EpisodeIn

    assert set(EpisodeIn.model_fields) <= set(item)  # the REST body may offer fewer, never others


# -- the generator's judge guards --------------------------------------------------------------------


class _Shapes:
    async def bare(self, group_id: str) -> None:
        """Writes."""
        refuse_writes_from_a_judge()

    async def conditional(self, group_id: str, repair: bool = False) -> None:
        """Writes when repairing."""
        if repair:
            refuse_writes_from_a_judge()

    async def via_helper(self, group_id: str) -> None:
        """Writes through a helper."""
        return await self._helper(group_id)

    async def _helper(self, group_id: str) -> None:
        refuse_writes_from_a_judge()

    async def maybe_through_helper(self, group_id: str) -> None:
        """Reads; may write under a condition of its own (not repeated)."""
        if group_id:
            await self._helper(group_id)

    async def read(self, group_id: str) -> None:
        """Reads."""

    async def buried(self, group_id: str) -> None:
        """A guard the shell could not repeat faithfully."""
        for _ in range(2):
            refuse_writes_from_a_judge()


def test_the_generator_repeats_each_judge_guard_as_written() -> None:
    assert ast.unparse(gen._guard(_Shapes, "bare")) == "refuse_writes_from_a_judge()"
    conditional = gen._guard(_Shapes, "conditional")
    assert isinstance(conditional, ast.If) and ast.unparse(conditional.test) == "repair"
    assert ast.unparse(gen._guard(_Shapes, "via_helper")) == "refuse_writes_from_a_judge()"
    assert gen._guard(_Shapes, "maybe_through_helper") is None
    assert gen._guard(_Shapes, "read") is None
    with pytest.raises(gen.GeneratorError, match="buried.*inside a For"):
        gen._guard(_Shapes, "buried")


def test_the_sync_shell_refuses_a_judges_write_in_the_callers_thread() -> None:
    source = (ROOT / "src" / "kronograph" / "sync.py").read_text(encoding="utf-8")
    guarded = {n for n, m in _public(AsyncMemory).items()
               if inspect.iscoroutinefunction(m) and gen._guard(AsyncMemory, n) is not None}
    assert {"add_fact", "add_episode", "add_messages", "forget", "reconcile"} <= guarded
    assert not guarded & {"search", "facts", "context", "user", "episode"}
    for name in guarded:
        body = source.split(f"    def {name}(", 1)[1].split("\n    def ", 1)[0]
        assert "refuse_writes_from_a_judge()" in body, name


def test_the_point_in_time_view_has_a_blocking_twin_of_every_read() -> None:
    from kronograph.point_in_time import PointInTime
    from kronograph.sync import MemoryAt

    reads = {n: v for n, v in _public(PointInTime).items() if inspect.iscoroutinefunction(v)}
    assert {"facts", "search", "context", "timeline", "entities", "episodes", "events", "lookahead"} <= set(reads)
    for name, read in reads.items():
        twin = getattr(MemoryAt, name)
        assert not inspect.iscoroutinefunction(twin), name
        assert inspect.signature(twin) == inspect.signature(read) and twin.__doc__ == read.__doc__, name
    assert inspect.signature(Memory.at).parameters.keys() == inspect.signature(AsyncMemory.at).parameters.keys()
