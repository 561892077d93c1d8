"""The agent tools (docs/agents.md, "Tool contracts"), one per module, with what they share; ``read_batch`` and
many sites behind one server.
"""
