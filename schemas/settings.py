"""The type of all runtime configuration, read from ``EPISTREAM_*`` environment variables.

Only the application (``epistream/``) constructs it (:func:`epistream.config.load_settings`);
every lower layer takes the instance it is given, so one process has one configuration and a
test can hand any layer the settings it wants. Every field is documented in
``docs/configuration.md``; add a row there when you add a field (a test keeps them equal).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from schemas.common import UtcDatetime
from schemas.events import TimeBounds


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="EPISTREAM_", env_file=None, extra="ignore")

    # --- embedded pipeline -------------------------------------------------
    data_dir: Path = Field(default=Path(".epistream"), description="Data directory of the embedded runner.")
    max_content_bytes: int = Field(default=32 * 1024, ge=1, description="Largest accepted message content.")
    trust_received_at: bool = Field(
        default=False,
        description="Take an event's own received_at (knowledge time) from the API caller or the record; "
        "false: the receiving component's clock (the API's clock, the Kafka record's time) is used.",
    )
    occurred_at_max_future_s: float = Field(
        default=24 * 3600, ge=0, description="Seconds occurred_at may lie after the receive time (else rejected)."
    )
    occurred_at_floor: datetime = Field(
        default=datetime(2000, 1, 1, tzinfo=UTC), description="Events said to occur before this are rejected."
    )
    batch_size: int = Field(default=256, ge=1, description="Micro-batch size of the embedded runner.")
    log_batch_rows: int = Field(
        default=4096,
        ge=1,
        description="Rows (events + operations) the embedded runner gathers across micro-batches per log insert.",
    )

    # --- extraction --------------------------------------------------------
    extractor: Literal["rules", "llm"] = "rules"
    llm_base_url: str = "http://127.0.0.1:11434/v1"
    llm_model: str = "gpt-4o-mini"
    llm_api_key: SecretStr = SecretStr("")
    llm_temperature: float = 0.0
    llm_max_retries: int = Field(default=3, ge=0, le=10)
    llm_timeout_s: float = Field(default=30.0, gt=0)
    llm_concurrency: int = Field(default=4, ge=1)
    extract_processes: int = Field(
        default=1,
        ge=0,
        description="Processes running the rule extractor beside a worker's loop, or beside the embedded reducer "
        "when the embedder is light (hash, noop; a model keeps the cores busy itself) (0: none).",
    )

    excerpt_context_turns: int = Field(
        default=2,
        ge=0,
        le=8,
        description="Turns before a message (same session) its excerpt is found by: a reply is found by what it "
        "answers. Used for search only; never shown as said. Changing it applies to excerpts indexed afterwards.",
    )

    # --- embeddings --------------------------------------------------------
    embedder: Literal["minilm", "openai", "onnx", "sentence-transformers", "hash", "none"] = Field(
        default="minilm",
        description="minilm: the bundled all-MiniLM-L6-v2 (int8 ONNX); openai: an OpenAI-compatible /v1/embeddings "
        "endpoint; onnx: a local ONNX model folder (a sentence-transformers export, a fastembed cache); "
        "sentence-transformers: a local model (needs sentence-transformers); hash; none. Vectors of different "
        "embedders never mix in one index: switching needs `epistream rebuild-index`.",
    )
    embedding_model: str = Field(
        default="",
        max_length=1000,
        description="openai: the model name sent to the endpoint; onnx: the model folder; sentence-transformers: "
        "a local model folder or a name already in the Hugging Face cache (never downloaded).",
    )
    embedding_base_url: str = Field(
        default="http://127.0.0.1:11434/v1", description="Base URL of the OpenAI-compatible embeddings endpoint."
    )
    embedding_api_key: SecretStr = Field(default=SecretStr(""), description="API key of the embeddings endpoint.")
    embedding_dimension: int = Field(
        default=0,
        ge=0,
        le=16384,
        description="Vector size of the model: required for openai (every answer is checked against it); for onnx "
        "and sentence-transformers it is read from the model and, when set, checked.",
    )
    embedding_batch_size: int = Field(default=64, ge=1, le=4096, description="Texts per embedding call or request.")
    embedding_timeout_s: float = Field(default=30.0, gt=0, description="Timeout of one embeddings request.")
    embedding_max_retries: int = Field(
        default=3, ge=0, le=10, description="Retries of a request that timed out or got 429/5xx, with backoff."
    )
    embedding_pooling: Literal["auto", "mean", "cls"] = Field(
        default="auto",
        description="onnx: how token vectors become one (auto: the model's 1_Pooling/config.json, else mean).",
    )

    # --- distributed -------------------------------------------------------
    kafka_bootstrap: str = "127.0.0.1:9092"
    kafka_startup_wait_s: float = Field(
        default=120.0,
        ge=0.0,
        description="How long a starting worker waits for Kafka to answer (a broker still starting) before it "
        "exits with backend_unavailable.",
    )
    kafka_session_timeout_s: float = Field(
        default=30.0,
        ge=6.0,
        le=300.0,
        description="How long the group waits for a worker that stopped answering (SIGKILL, a lost host) before "
        "its partitions go to the others: the pause of those partitions after a crash.",
    )
    worker_data_dir: Path = Field(
        default=Path(".epistream-worker"),
        description="Data directory of a stream worker: faust's files, and its own chDB store when "
        "EPISTREAM_CLICKHOUSE_URL is unset (one worker per directory). Apart from EPISTREAM_DATA_DIR, so the "
        "API and the CLI beside a worker do not collide with it.",
    )
    metrics_port: int = Field(
        default=0,
        ge=0,
        le=65535,
        description="Port of a stream worker's Prometheus endpoint (GET /metrics, GET /healthz); 0: no endpoint.",
    )
    metrics_host: str = Field(
        default="127.0.0.1",
        description="Address the worker's metrics endpoint listens on (0.0.0.0 in containers).",
    )
    kafka_compression: Literal["zstd", "lz4", "gzip", "none"] = Field(
        default="zstd",
        description="Compression of the records a worker produces (extractions, operations, node snapshots): "
        "JSON records shrink 7-14x, which cuts the worker's socket writes and the broker's disk.",
    )
    partitions: int = Field(default=12, ge=1)
    publisher_principal_kind: Literal["platform", "human", "agent"] = Field(
        default="platform",
        description="Who the Kafka publisher (`epistream publish`, `Memory` in distributed mode) relays for: the "
        "channel of what it publishes (platform: the roles of its events are trusted; agent: everything is a "
        "model suggestion). An event's or command's own `channel` may only narrow it.",
    )
    clickhouse_url: str | None = Field(default=None, description="http(s)://user:pass@host:8123/db; unset = chDB.")
    opensearch_url: str | None = Field(default=None, description="Unset = embedded search index.")
    opensearch_index: str = "epistream-nodes"
    opensearch_refresh_interval: str = Field(
        default="250ms",  # = sinks.opensearch_mapping.DEFAULT_REFRESH_INTERVAL (a test keeps them equal)
        pattern=r"^(-1|\d+(ms|s|m|h))$",
        description="How soon a written node document becomes searchable (an OpenSearch time value).",
    )
    opensearch_vector_cache: int = Field(
        default=20_000,
        ge=0,
        description="Vectors an index writer keeps by node id, so a new version of a node it wrote is not read back.",
    )

    # --- API ----------------------------------------------------------------
    api_keys_file: Path | None = None
    api_rate_limit_per_s: float = 50.0
    api_rate_burst: int = Field(default=100, ge=1, description="Token-bucket capacity per API key.")
    api_auth_failure_delay_s: float = Field(
        default=1.0,
        ge=0.0,
        le=30.0,
        description="How long a client address over its failed-authentication budget waits for its 429.",
    )
    api_max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1024, description="Largest accepted request body.")
    api_max_batch: int = Field(default=256, ge=1, description="Most events accepted by one POST /v1/events.")
    api_max_page: int = Field(
        default=1000, ge=1, le=1000, description="Cap on provenance page size (the spec allows 1-1000)."
    )
    api_max_limit: int = Field(default=200, ge=1, le=1000, description="Cap on retrieval `limit`.")
    api_backend_timeout_s: float = Field(
        default=10.0, gt=0, description="How long a read may take and a write may wait to start."
    )
    api_index_save_interval_s: float = Field(
        default=5.0, ge=0, description="Embedded API: save the search indexes at most this often (0: every write)."
    )
    api_idempotency_cache: int = Field(default=10_000, ge=0, description="Remembered Idempotency-Key responses.")
    api_metrics_public: bool = Field(default=False, description="Serve /metrics without an admin key.")
    api_mode: Literal["embedded", "distributed"] = Field(
        default="embedded",
        description=(
            "embedded: writes go to the local runner. distributed: events and commands are published to Kafka "
            "(kafka_bootstrap, kafka_topic_prefix) for the workers, and reads come from what the workers write: "
            "nodes and retrieval from the index (opensearch_url), world context, assertion state and provenance "
            "from the operation log (clickhouse_url); no state is loaded at start."
        ),
    )
    kafka_topic_prefix: str = Field(default="", description="Topic name prefix of the deployment (distributed API).")
    api_command_wait_max_s: float = Field(
        default=30.0, gt=0, le=300, description="Cap on how long a command request with ?wait=true waits."
    )
    # --- MCP ------------------------------------------------------------------
    mcp_tenant_id: str = Field(
        default="default", min_length=1, max_length=128,
        description="`epistream mcp` over stdio: the tenant it acts in.",
    )
    mcp_owners: str = Field(
        default="",
        max_length=10_000,
        description="`epistream mcp` over stdio: the owners it may act for, comma-separated (empty: any in the "
        "tenant).",
    )
    mcp_groups: str = Field(
        default="",
        max_length=10_000,
        description="`epistream mcp` over stdio: the groups its principal belongs to, comma-separated: it reads "
        "other owners' records shared with them (docs/trust.md#privacy).",
    )
    mcp_permissions: str = Field(
        default="read,write",
        pattern=r"^\s*(read|write|assert|deprecate|admin)\s*(,\s*(read|write|assert|deprecate|admin)\s*)*$",
        description="`epistream mcp` over stdio: its permissions, comma-separated, as an API key's (read, write, "
        "assert, deprecate, admin).",
    )
    mcp_actor_id: str = Field(
        default="mcp", min_length=1, max_length=200, description="`epistream mcp` over stdio: the actor id its "
        "commands are journaled under.",
    )
    mcp_principal_kind: Literal["agent", "human", "platform"] = Field(
        default="agent",
        description="`epistream mcp` over stdio: who the principal is, recorded as the actor type of its commands "
        "(agent: AI_AGENT, human: HUMAN_USER, platform: EXTERNAL_CONNECTOR) and the channel of what it writes "
        "(an agent's events and commands are model suggestions).",
    )

    retrieval_receipts: bool = Field(
        default=True,
        description="Record a receipt of every retrieval (API and `epistream query`) in the retrieval_requests table.",
    )
    attributes_file: Path | None = Field(
        default=None,
        description="JSON file extending the attribute registry (how claims meet), for every tenant and per tenant.",
    )

    # --- time ----------------------------------------------------------------
    clock: UtcDatetime | None = Field(
        default=None,
        description=(
            "A fixed ISO time (with timezone) the application uses as now, for tests and demos; unset: the "
            "machine clock (epistream.clock)."
        ),
    )

    def time_bounds(self) -> TimeBounds:
        """The ``occurred_at`` bounds admission checks (:class:`schemas.events.TimeBounds`)."""
        return TimeBounds(timedelta(seconds=self.occurred_at_max_future_s), self.occurred_at_floor)
