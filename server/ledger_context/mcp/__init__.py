"""The MCP adapter: the only wing that imports the ``mcp`` SDK. Tools, resources, the
prompt, change notifications and the stdio channel, over the core below."""
