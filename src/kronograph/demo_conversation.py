"""The chat that ``kronograph demo`` reads: three friends over most of 2024.

It is written for the offline extractor (plain "Speaker: text" messages whose
sentences its rules understand) and to exercise what a temporal memory is for:
people joining and leaving companies, moving cities, an explicit date, relative
dates ("last week", "yesterday", "last month"), small talk that holds no fact,
and one older message that arrives months late.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["CONVERSATION", "Message"]


class Message(NamedTuple):
    """One chat message: when it was sent (its reference time) and, if later, when it reached the memory."""

    sent: str
    text: str
    received: str | None = None

    @property
    def arrival(self) -> str:
        return self.received or self.sent


# In arrival order: the last message was sent first and forwarded late.
CONVERSATION: tuple[Message, ...] = (
    Message("2024-01-08T09:00", "Priya: Hi all! I started at Acme this week as a data engineer."),
    Message("2024-01-08T09:05", "Tom: Congrats Priya! I work at Globex and I live in Berlin."),
    Message("2024-01-08T09:07", "Priya: Thanks! Say hi to Berlin for me."),
    Message("2024-02-14T18:20", "Tom: Big news: I joined Initech on February 12."),
    Message("2024-03-02T10:00", "Priya: I moved to Paris last week. No more night trains!"),
    Message("2024-04-20T11:30", "Lena: Hello, I'm Lena. I live in Madrid and I work at Globex."),
    Message("2024-05-06T08:15", "Tom: Lena is the CEO of Globex now."),
    Message("2024-06-10T16:45", "Priya: I left Acme yesterday. Three weeks off before the next job!"),
    Message("2024-07-01T08:30", "Priya: I joined Umbrella today. New team, new desk!"),
    Message("2024-08-19T20:10", "Tom: I moved to Amsterdam on August 15."),
    Message("2024-09-03T12:00", "Lena: Tom, how is Amsterdam treating you?"),
    Message("2024-10-15T14:30", "Lena: I moved to Lisbon last month. Still at Globex though."),
    Message("2024-10-15T14:40", "Tom: Lisbon! Priya, you have to visit her."),
    Message("2023-11-20T10:00", "Priya: I have lived in Lyon since 2021.", received="2024-11-04T09:00"),
)
