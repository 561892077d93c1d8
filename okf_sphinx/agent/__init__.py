"""The agent tools (AGENT_TOOLS.md), one per module, with what they share; ``read_batch`` and
many sites behind one server.
"""
