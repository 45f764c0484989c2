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
choose the group), the tools' wording (``REMEMBER``, ``RECALL``,
``GET_CONTEXT``) and their arguments' types (``Content``, ``When``,
``Query``, ``Limit``, ``AsOf``), for giving any other framework the same
tools. See ``docs/integrations.md``.
"""

from ._binding import GET_CONTEXT, RECALL, REMEMBER, AsOf, Content, Limit, MemoryBinding, Query, When
from ._pieces import Piece
from ._require import INSTALL_HINT

__all__ = [
    "GET_CONTEXT", "INSTALL_HINT", "RECALL", "REMEMBER", "AsOf", "Content", "Limit", "MemoryBinding", "Piece", "Query",
    "When",
]
