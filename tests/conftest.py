"""Shared test setup.

pytest puts this folder on `sys.path` (it holds a conftest.py and is not a package), which is what
lets test modules in any subfolder `from helpers import ScriptedAgent, versus_test`.
"""
