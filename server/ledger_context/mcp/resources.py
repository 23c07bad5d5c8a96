"""The resources ``ledger://pack`` and ``ledger://document/{+path}``, and the prompt
``start-task`` (the pack, then the top search hits for the task). Core errors become JSON-RPC errors in
:func:`~ledger_context.mcp.error_map.mcp_error`."""

from __future__ import annotations

import re
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from ..model.errors import DocumentChangedError, LedgerContextError
from ..model.fields import clean_text
from ..model.kinds import pack_contents
from ..search.result import recorded_hits, search_text, task_search
from .error_map import mcp_error
from .ledgers import Ledgers, build_for, serve_document
from .record import REQUEST, Recorder

PACK_URI = "ledger://pack"
DOCUMENT_TEMPLATE = "ledger://document/{+path}"


def register_resources(server: MCPServer, ledgers: Ledgers, recorder: Recorder) -> None:
    """Register the pack resource and the document template on ``server``."""

    @server.resource(
        PACK_URI,
        name="pack",
        title="Context pack",
        description="The context pack, exactly what get_context returns",
        mime_type="text/markdown",
    )
    async def pack_resource() -> str:
        try:
            build = await build_for(ledgers, None)
        except LedgerContextError as exc:
            recorder.record(
                call=f"resource {PACK_URI}", arguments={}, build=None, ctx=REQUEST.get(), refused=str(exc)
            )
            raise mcp_error(exc) from None
        recorder.record(call=f"resource {PACK_URI}", arguments={}, build=build, ctx=REQUEST.get())
        ledgers.served(build.ledger.space).remember(build.budgeted)
        return build.pack

    @server.resource(
        DOCUMENT_TEMPLATE,
        name="document",
        title="Ledger document",
        description=(
            "The full text of one ledger document the reader accepted. <path> is the path in "
            "a pack title line, relative to the space, e.g. .ledger/decisions/0007-use-jwt.md."
        ),
        mime_type="text/markdown",
    )
    async def document_resource(path: str, ctx: Context) -> str:
        call = f"resource {DOCUMENT_TEMPLATE}"
        build = None
        try:
            build = await build_for(ledgers, None)
            accepted, text = await serve_document(build, path)
        except LedgerContextError as exc:
            recorder.record(call=call, arguments={"path": path}, build=build, ctx=ctx, refused=str(exc))
            raise mcp_error(exc) from None
        recorder.record(call=call, arguments={"path": path}, build=build, ctx=ctx, served=accepted)
        return text


def register_prompt(server: MCPServer, ledgers: Ledgers, recorder: Recorder) -> None:
    """Register ``start-task``: the pack, and how to use it, ahead of the task."""

    @server.prompt(
        name="start-task",
        title="Start a task with the ledger's context",
        description="Hands the model the context pack and asks it to use it for the task.",
    )
    async def start_task(
        task: Annotated[str, Field(description="The task, in one line")],
        ctx: Context,
    ) -> str:
        hits = ""
        recorded: dict[str, Any] | None = None
        try:
            build = await build_for(ledgers, None)
        except LedgerContextError as exc:
            pack = f"(no context pack: {exc})"
        else:
            index = ledgers.search_index(build.ledger.space)
            try:
                try:
                    found = await anyio.to_thread.run_sync(lambda: task_search(build, task, index))
                except DocumentChangedError:  # as search_ledger does: one fresh build reads the change
                    build = await build_for(ledgers, None)
                    found = await anyio.to_thread.run_sync(lambda: task_search(build, task, index))
            except DocumentChangedError as exc:  # changed again: the pack still stands, without hits
                found, hits = None, f"\n\n(no search hits this time: {exc})"
            except LedgerContextError as exc:
                recorder.record(
                    call="prompt start-task", arguments={"task": task}, build=build, ctx=ctx, refused=str(exc)
                )
                raise mcp_error(exc) from None
            recorded = {"task": task, "hits": recorded_hits(build, found) if found is not None else []}
            pack = build.pack
            if found is not None and found.hits:
                hits = (
                    "\n\nThe ledger documents that best match the task (search_ledger; those not "
                    "in the pack can be read with read_document):\n\n"
                    + fenced("search-hits", search_text(found))
                )
        text = (
            f"Task: {clean_text(task)}\n\n"
            "Below is the context pack of this repository's experiment ledger: "
            f"{pack_contents()}. Follow agents.md, respect its decisions, build on its findings, "
            "and read a document in full with the tool "
            "read_document (the path in its title line) when its frontmatter is not enough.\n\n"
            f"{fenced('context-pack', pack)}{hits}"
        )
        if recorded is not None:  # with the digest of the text, recorded once it is made
            recorder.record(call="prompt start-task", arguments=recorded, build=build, ctx=ctx, answer=text)
        return text


def fenced(tag: str, text: str) -> str:
    """``text`` between ``<tag>`` and ``</tag>``, the tag numbered (``tag-1``, ``tag-2``…)
    when the text holds its closing form: no document can end the wrapper early and make
    what follows read as if it came from outside. One pass over the text: linear."""
    used = {number for number in re.findall(rf"</{tag}(?:-(\d{{1,9}}))?>", text)}
    name = tag
    if "" in used:
        taken = {int(number) for number in used if number}
        name = f"{tag}-{next(n for n in range(1, len(taken) + 2) if n not in taken)}"
    return f"<{name}>\n{text}</{name}>"
