"""What a module of MCP tools needs to add its tools to the server: the server, the service, the
caller's tenant and the server's error handling, handed over as one :class:`ToolHost` by
:mod:`clausewise.service.mcp_server` (which cannot be imported back: it imports the tool modules)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import MCPServer

from clausewise.service.state import Service


@dataclass(frozen=True)
class ToolHost:
    """The MCP server a tool is added to, with what its tools share (``tenant_of``: the caller's
    tenant; ``clear_errors``: refusals turned into the tool's error message)."""

    mcp: MCPServer
    service: Service
    tenant_of: Callable[[], str]
    clear_errors: Callable[[Callable[..., Awaitable[Any]]], Callable[..., Awaitable[Any]]]

    def tool(self, function: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        """Register ``function`` as a tool of the server, its refusals cleared as the server's own
        tools' are (a decorator: ``@mcp.tool()`` over ``@clear_errors``)."""
        return self.mcp.tool()(self.clear_errors(function))
