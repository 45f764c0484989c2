"""docs/integrations.md's examples run as they are, offline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langgraph")
pytest.importorskip("pydantic_ai")

DOC = Path(__file__).resolve().parents[1] / "docs" / "integrations.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_doc_has_an_example_per_framework() -> None:
    assert len(EXAMPLES) == 4
    for module in ("langchain", "langgraph", "pydantic_ai"):
        assert any(f"from {module}" in code or f"integrations.{module}" in code for code in EXAMPLES)


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_example_runs(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(EXAMPLES[index], f"{DOC.name}[{index}]", "exec"), {"__name__": f"example_{index}"})
    assert capsys.readouterr().out.strip()
