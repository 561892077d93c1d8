"""The ``okf`` command line and the MCP server: both run the tools through
``okf_sphinx.agent.dispatch.call_tool``.
"""
