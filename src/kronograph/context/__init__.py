"""Context blocks: a prompt-ready memory block for a question or the last
messages (``memory.context``). See ``docs/context.md``."""

from .block import Material, Template, build
from .tokens import EstimateCounter, TokenCounter, counter_for, default_counter
from .types import Context, ContextParts

__all__ = [
    "Context", "ContextParts", "EstimateCounter", "Material", "Template", "TokenCounter", "build", "counter_for",
    "default_counter",
]
