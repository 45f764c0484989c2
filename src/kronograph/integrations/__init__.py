"""Agent frameworks: a LangChain retriever, memory tools for LangGraph and
Pydantic AI agents (extra ``integrations``: ``pip install 'kronograph[integrations]'``).

Each framework has its own module, imported only when asked for, so that
``import kronograph`` never imports a framework:

- :mod:`kronograph.integrations.langchain`: ``KronographRetriever`` and
  ``memory_tools`` (LangChain tools a LangGraph agent calls);
- :mod:`kronograph.integrations.pydantic_ai`: ``memory_toolset`` and
  ``memory_tools`` for a Pydantic AI ``Agent``.

What they share, with no framework in it, is here: a :class:`MemoryBinding`
(a memory bound by the developer to one group: a model's arguments never
choose the group) and the tools' wording. See ``docs/integrations.md``.
"""

from ._binding import MemoryBinding
from ._require import INSTALL_HINT

__all__ = ["INSTALL_HINT", "MemoryBinding"]
