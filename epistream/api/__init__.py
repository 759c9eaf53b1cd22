"""The HTTP API (FastAPI): ingestion, retrieval and commands behind per-tenant API keys."""

from epistream.api.app import create_app, serve
from epistream.api.auth import ApiKey, ApiKeyRing, Permission, generate_key, hash_key_scrypt, hash_key_sha256

__all__ = [
    "ApiKey",
    "ApiKeyRing",
    "Permission",
    "create_app",
    "generate_key",
    "hash_key_scrypt",
    "hash_key_sha256",
    "serve",
]
