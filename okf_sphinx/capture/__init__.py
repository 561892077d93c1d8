"""Capture: documents -> section records with exact source line ranges (one subpackage per host).
"""
