"""kronograph: a temporal knowledge-graph memory for AI agents."""

from .errors import (
    ClosedError,
    ConcurrentWriteError,
    InvalidInputError,
    JudgeError,
    KronographError,
    NotFoundError,
    SchemaError,
    StoreError,
)
from .memory import AsyncMemory, Memory
from .model import (
    AddFactResult,
    AuditEvent,
    Cardinality,
    Entity,
    Episode,
    Fact,
    FactChange,
    RelationType,
    RemovalResult,
    Verdict,
)

__version__ = "0.1.0"

__all__ = [
    "AddFactResult",
    "AsyncMemory",
    "AuditEvent",
    "Cardinality",
    "ClosedError",
    "ConcurrentWriteError",
    "Entity",
    "Episode",
    "Fact",
    "FactChange",
    "InvalidInputError",
    "JudgeError",
    "KronographError",
    "Memory",
    "NotFoundError",
    "RelationType",
    "RemovalResult",
    "SchemaError",
    "StoreError",
    "Verdict",
]
