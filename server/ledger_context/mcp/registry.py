"""A tool is one registration: :meth:`ToolRegistry.tool` puts a tool body on the server
with what every tool does alike, done here once. An error the body raises becomes a tool
error (:func:`~ledger_context.mcp.error_map.tool_error`); an :class:`Answer` goes into the
audit log (:class:`~ledger_context.mcp.record.Recorder`), then to the client. A body
builds, answers and says what to record; it calls neither the recorder nor the error map.
Its schemas are shaped for the catalogue budget (:mod:`~ledger_context.mcp.catalogue`).

A new tool is a body in its own module, registered from :func:`~ledger_context.mcp.server.create_server`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations

from ..model.document import Document
from ..pack.context import ContextBuild
from .catalogue import input_schema, output_schema
from .error_map import tool_error
from .record import Recorder

RECEIPT_KEY = "ledger-context/receipt"
"""``_meta`` key of a tool's receipt; the registry adds ``audit_head``, its audit row's hash."""

READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
"""Every tool reads the ledger and nothing else: read-only, idempotent, closed-world."""


@dataclass(frozen=True)
class Answer:
    """What a tool body gives back: the ``result`` for the client, and what the audit log
    records of the call (the ``build`` it was answered from, the ``arguments`` as the
    tool understood them, the document it served)."""

    result: CallToolResult
    build: ContextBuild
    arguments: dict[str, Any]
    served: Document | None = None


Body = Callable[..., Awaitable[Answer]]


def _text_of(result: CallToolResult) -> str:
    """The text a client's model reads of ``result``: its text blocks, in order."""
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


class ToolRegistry:
    """Registers tool bodies on ``server``; each call is recorded by ``recorder``. A body
    reaches its build itself (:mod:`~ledger_context.mcp.ledgers`): the registry knows the
    answer, not where it came from."""

    def __init__(self, server: MCPServer, recorder: Recorder) -> None:
        self.server = server
        self.recorder = recorder

    def tool(
        self,
        *,
        name: str,
        title: str,
        description: str,
        output: type | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Callable[[Body], Body]:
        """Register the decorated body as the read-only tool ``name``. Its arguments (and
        the SDK's ``Context`` and ``Resolve`` parameters) are the body's; ``output`` is the
        model of its structured output (``None``: plain text, no ``outputSchema``)."""

        def register(body: Body) -> Body:
            signature = inspect.signature(body, eval_str=True)
            context = next((p.name for p in signature.parameters.values() if p.annotation is Context), None)
            if context is None:  # the audit log names the client: a body must see the request
                raise TypeError(f"tool {name}: the body needs a parameter annotated Context")

            @functools.wraps(body)
            async def call(*args: Any, **kwargs: Any) -> CallToolResult:
                try:
                    answer = await body(*args, **kwargs)
                except Exception as exc:
                    refusal = tool_error(exc, doing=name)
                    asked = {k: v for k, v in kwargs.items() if k != context and k != "roots"}
                    reason = refusal.content[0].text if isinstance(refusal.content[0], TextContent) else name
                    self.recorder.record(
                        call=name, arguments=asked, build=None, ctx=kwargs.get(context), refused=reason
                    )
                    return refusal
                head = self.recorder.record(
                    call=name,
                    arguments=answer.arguments,
                    build=answer.build,
                    ctx=kwargs.get(context),
                    served=answer.served,
                    answer=_text_of(answer.result),
                )
                receipt = (answer.result.meta or {}).get(RECEIPT_KEY)
                if isinstance(receipt, dict):  # the client holds the row's hash: proof of the record
                    receipt["audit_head"] = head
                return answer.result

            # The SDK reads the schema off the signature: the body's, returning the result.
            returns: Any = CallToolResult if output is None else Annotated[CallToolResult, output]
            call.__signature__ = signature.replace(return_annotation=returns)  # type: ignore[attr-defined]
            call.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
            call.__annotations__["return"] = returns
            self.server.tool(
                name=name,
                title=title,
                description=description,
                annotations=READ_ONLY,
                meta=meta,
                structured_output=None if output is not None else False,
            )(call)
            self._shape_schemas(name)
            return body

        return register

    def _shape_schemas(self, name: str) -> None:
        """Put the catalogue's shaped schemas (:mod:`~ledger_context.mcp.catalogue`) in
        place of the SDK's, before anything lists them. The arguments are still checked
        by the SDK's model and the structured output by the tool's own."""
        registered = self.server._tool_manager.get_tool(name)  # the SDK offers no public setter
        assert registered is not None
        registered.parameters = input_schema(registered.parameters)
        metadata = registered.fn_metadata
        if metadata.output_schema is not None:
            metadata.output_schema = output_schema(metadata.output_schema)
