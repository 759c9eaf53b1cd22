"""Register this folder's factories under a unique module name.

Test folders here are not packages, so a plain ``import factories`` could pick up
another area's module of the same name; a unique alias avoids that.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if "engine_factories" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("engine_factories", Path(__file__).with_name("factories.py"))
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["engine_factories"] = _module
    _spec.loader.exec_module(_module)
