"""The offline extractor: English rules that turn an episode into entities and
facts with no model and no network (see docs/offline-extractor.md)."""

from .dates import TimeMention, find_times, resolve_time
from .extractor import OfflineExtractor
from .patterns import ENDINGS

__all__ = ["ENDINGS", "OfflineExtractor", "TimeMention", "find_times", "resolve_time"]
