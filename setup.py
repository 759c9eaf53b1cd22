"""The one compiled part of epistream: the canonical JSON encoder that seals operations and
writes node snapshots, with UUIDv5 ids and model construction beside it (engine/_canonical.c).

Everything else is declared in pyproject.toml; setuptools reads this file only for
the extension module, which ``pip install -e .`` builds next to its sources.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "engine._canonical",
            sources=["engine/_canonical.c"],
            extra_compile_args=["-O2", "-std=c11"],
            libraries=["crypto"],  # SHA-256 of sealed operations (OpenSSL 3, as hashlib uses)
        ),
    ]
)
