"""kronograph: a temporal knowledge-graph memory for AI agents."""

from .authority import ContradictionPolicy
from .context import Context, ContextParts, TokenCounter
from .embed import HashingEmbedder
from .erasure import ErasureChain, ErasureReceipt
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
from .lookahead import LookaheadItem, LookaheadReport
from .maintain.repair import MergeResult, SplitResult
from .memory import AsyncMemory
from .message import Message
from .model import (
    AddFactResult,
    AuditEvent,
    Cardinality,
    Change,
    Community,
    CommunityAttachment,
    CommunityBuild,
    CommunityUpdate,
    Contradiction,
    Entity,
    EntitySummary,
    Episode,
    EpisodeResult,
    EpisodeStatus,
    Fact,
    FactChange,
    FactSource,
    ForgetReport,
    GroupExport,
    GroupSettings,
    ModelUsage,
    PossibleContradiction,
    QueueStats,
    RelationType,
    RemovalResult,
    SagaInfo,
    SagaSummary,
    Verdict,
)
from .overview import ConnectedEntity, EpisodeDetail, GroupOverview
from .point_in_time import PointInTime
from .sync import Memory, MemoryAt

# The one place the version is written: pyproject.toml reads it (setuptools dynamic version) into the
# package metadata, and `kronograph --version` prints it.
__version__ = "0.1.0"

__all__ = [
    "AddFactResult",
    "AsyncMemory",
    "AuditEvent",
    "Cardinality",
    "Change",
    "ClosedError",
    "Community",
    "CommunityAttachment",
    "CommunityBuild",
    "CommunityUpdate",
    "ConcurrentWriteError",
    "ConnectedEntity",
    "Context",
    "ContextParts",
    "EmbeddingError",
    "Entity",
    "EntitySummary",
    "Episode",
    "EpisodeDetail",
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
    "LookaheadItem",
    "LookaheadReport",
    "Memory",
    "MemoryAt",
    "MergeResult",
    "Message",
    "ModelClient",
    "ModelError",
    "ModelOutputError",
    "ModelSettings",
    "ModelUsage",
    "PointInTime",
    "PossibleContradiction",
    "Contradiction",
    "ContradictionPolicy",
    "NotFoundError",
    "QueueStats",
    "RelationType",
    "ForgetReport",
    "ErasureReceipt",
    "ErasureChain",
    "GroupExport",
    "GroupOverview",
    "GroupSettings",
    "RemovalResult",
    "SagaInfo",
    "SagaSummary",
    "SchemaError",
    "SplitResult",
    "StoreError",
    "TokenCounter",
    "TransientModelError",
    "Verdict",
]
