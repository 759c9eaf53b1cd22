"""Request-size, rate and idempotency limits at the edge."""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from schemas.errors import PayloadTooLarge, RateLimited, RequestIdConflict


class TokenBucketLimiter:
    """One bucket per key: ``rate`` tokens a second up to ``burst``."""

    def __init__(self, rate_per_s: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate_per_s
        self.burst = float(burst)
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str, cost: float = 1.0, *, raise_when_empty: bool = True) -> None:
        """Spend ``cost`` tokens of ``key``'s bucket, or raise :class:`RateLimited` when there are not enough
        (``raise_when_empty=False``: spend what there is, for counting failures)."""
        if self.rate <= 0:
            return
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens >= cost or not raise_when_empty:
                self._buckets[key] = (max(0.0, tokens - cost), now)
                self._prune(now)
                return
            self._buckets[key] = (tokens, now)
        retry = max(1, math.ceil((cost - tokens) / self.rate))
        raise RateLimited("rate limit exceeded", retry_after_s=retry)

    def peek(self, key: str, cost: float = 1.0) -> None:
        """Raise :class:`RateLimited` when ``key`` has fewer than ``cost`` tokens, spending none."""
        if self.rate <= 0:
            return
        now = self._clock()
        with self._lock:
            held = self._buckets.get(key)
        if held is None:
            return
        tokens = min(self.burst, held[0] + (now - held[1]) * self.rate)
        if tokens < cost:
            raise RateLimited("too many failed authentications", retry_after_s=max(1, math.ceil((cost - tokens)
                                                                                                / self.rate)))

    def _prune(self, now: float) -> None:
        """Forget buckets that have refilled (bounded memory whatever the number of keys or addresses)."""
        if len(self._buckets) > 10_000:
            full = self.burst / self.rate
            self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < full}


class BodySizeLimit:
    """Reject bodies over ``max_bytes`` (declared or streamed) with 413 before any parsing."""

    def __init__(self, app: ASGIApp, max_bytes: int, on_reject: Callable[[PayloadTooLarge], ASGIApp]) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.on_reject = on_reject

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        error = PayloadTooLarge("request body too large", limit_bytes=self.max_bytes)
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.max_bytes:
                    await self.on_reject(error)(scope, receive, send)
                    return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self.on_reject(error)(scope, receive, send)


class _TooLarge(Exception):
    pass


def body_fingerprint(body: Any) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


@dataclass(frozen=True)
class _Remembered:
    fingerprint: str
    status: int
    body: Any


class IdempotencyCache:
    """Responses of non-command writes (event ingestion) by ``(tenant, route, key)``, LRU-bounded.

    The route part names the batch's owners, so one UUID used by two owners stays two keys
    (PRME-FACTS §5.5 rule 6). Commands do not use it: the engine journals request ids, which
    survives restarts; this cache does not (a replay after a restart is answered as ``duplicate``).
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._items: OrderedDict[tuple[str, str, str], _Remembered] = OrderedDict()
        self._lock = threading.Lock()

    def lookup(self, key: tuple[str, str, str], fingerprint: str) -> tuple[int, Any] | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
        if item.fingerprint != fingerprint:
            raise RequestIdConflict("idempotency key was already used with a different body")
        return item.status, item.body

    def store(self, key: tuple[str, str, str], fingerprint: str, status: int, body: Any) -> None:
        if self.capacity <= 0:
            return
        with self._lock:
            self._items[key] = _Remembered(fingerprint, status, body)
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
