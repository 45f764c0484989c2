"""The MCP tools ``forget`` (erase an entity, an episode or a data subject's
data for good, with an erasure receipt) and ``get_erasures`` (the group's
erasure receipts, chain checked). Thin calls on
:meth:`~kronograph.AsyncMemory.forget` and
:meth:`~kronograph.AsyncMemory.erasures` behind the group check, as every
tool of :mod:`.mcp_tools` is. The report a tool returns carries ids and
counts, never the erased text.
"""

from __future__ import annotations

from ..erasure import ErasureChain, ErasureReceipt
from ..memory import AsyncMemory
from .mcp_tools import Access, _Out, _when

__all__ = ["ErasuresOut", "ForgetOut", "forget", "get_erasures"]


def _receipt_line(r: ErasureReceipt) -> str:
    if r.entry == "verification":
        what = "verified" if r.verified else f"NOT verified ({r.leftovers} leftover(s))"
    else:
        what = f"by {r.by}: " + ", ".join(f"{k} {v}" for k, v in r.counts.items() if v)
    request = f" request {r.request_id}" if r.request_id else ""
    return f"- {r.seq} {_when(r.recorded_at)} {r.entry} {r.receipt_id}{request}: {what}"


class ForgetOut(_Out):
    """What a forget erased (how many of each kind), whether it was verified, and its receipt."""

    group_id: str
    dry_run: bool
    episodes: int
    facts: int
    entities: int
    verified: bool
    leftovers: list[str]
    receipt: ErasureReceipt | None = None

    def text(self) -> str:
        verb = "would erase" if self.dry_run else "erased"
        head = f"{verb} {self.episodes} episode(s), {self.facts} fact(s), {self.entities} entity(ies)"
        if self.dry_run:
            return head
        lines = [head + (" — verified: nothing returns it" if self.verified else " — NOT verified")]
        lines += [f"left: {where}" for where in self.leftovers]
        if self.receipt is not None:
            lines.append(f"receipt {self.receipt.receipt_id} (entry {self.receipt.seq} of the erasure log)")
        return "\n".join(lines)


class ErasuresOut(_Out):
    """The group's erasure receipts, oldest first, and whether the log's hash chain verifies."""

    group_id: str
    receipts: list[ErasureReceipt]
    chain: ErasureChain

    def text(self) -> str:
        if not self.receipts:
            return f"no erasure recorded in group {self.group_id!r}"
        lines = [f"{len(self.receipts)} erasure log entr(ies) in group {self.group_id!r}, oldest first:"]
        lines += [_receipt_line(r) for r in self.receipts]
        lines.append("hash chain intact" if self.chain.ok else "hash chain BROKEN: " + "; ".join(self.chain.problems))
        return "\n".join(lines)


async def forget(
    memory: AsyncMemory, access: Access, group_id: str | None, *, entity: str | None = None,
    episode_id: str | None = None, data_subject: str | None = None, dry_run: bool = False,
    request_id: str | None = None, reason: str | None = None, on_behalf_of: str | None = None,
) -> ForgetOut:
    g = access.group(group_id)
    report = await memory.forget(g, entity=entity, episode_id=episode_id, data_subject=data_subject,
                                 dry_run=dry_run, actor=access.actor, on_behalf_of=on_behalf_of,
                                 request_id=request_id, reason=reason)
    return ForgetOut(group_id=g, dry_run=report.dry_run, episodes=len(report.episodes), facts=len(report.facts),
                     entities=len(report.entities), verified=report.verified, leftovers=report.leftovers,
                     receipt=report.receipt)


async def get_erasures(
    memory: AsyncMemory, access: Access, group_id: str | None, *, request_id: str | None = None,
) -> ErasuresOut:
    g = access.group(group_id)
    return ErasuresOut(group_id=g, receipts=await memory.erasures(g, request_id=request_id),
                       chain=await memory.verify_erasure_log(g))
