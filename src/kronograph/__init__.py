"""kronograph: a temporal knowledge-graph memory for AI agents."""

from .embed import HashingEmbedder
from .errors import (
    ClosedError,
    ConcurrentWriteError,
    EmbeddingError,
    EpisodeFailedError,
    InvalidInputError,
    JudgeError,
    KronographError,
    ModelError,
    ModelOutputError,
    NotFoundError,
    SchemaError,
    StoreError,
    TransientModelError,
)
from .ingest.bulk import EpisodeItem
from .ingest.json_map import JsonMapping
from .llm import ModelClient, ModelSettings
from .memory import AsyncMemory
from .model import (
    AddFactResult,
    AuditEvent,
    Cardinality,
    Entity,
    EntitySummary,
    Episode,
    EpisodeResult,
    EpisodeStatus,
    Fact,
    FactChange,
    FactSource,
    ModelUsage,
    PossibleContradiction,
    RelationType,
    ForgetReport,
    RemovalResult,
    SagaInfo,
    SagaSummary,
    Verdict,
)
from .sync import Memory

__version__ = "0.1.0"

__all__ = [
    "AddFactResult",
    "AsyncMemory",
    "AuditEvent",
    "Cardinality",
    "ClosedError",
    "ConcurrentWriteError",
    "EmbeddingError",
    "Entity",
    "EntitySummary",
    "Episode",
    "EpisodeFailedError",
    "EpisodeItem",
    "EpisodeResult",
    "EpisodeStatus",
    "Fact",
    "FactChange",
    "FactSource",
    "HashingEmbedder",
    "InvalidInputError",
    "JsonMapping",
    "JudgeError",
    "KronographError",
    "Memory",
    "ModelClient",
    "ModelError",
    "ModelOutputError",
    "ModelSettings",
    "ModelUsage",
    "PossibleContradiction",
    "NotFoundError",
    "RelationType",
    "ForgetReport",
    "RemovalResult",
    "SagaInfo",
    "SagaSummary",
    "SchemaError",
    "StoreError",
    "TransientModelError",
    "Verdict",
]
