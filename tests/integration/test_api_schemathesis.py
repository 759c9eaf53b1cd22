"""Schema fuzzing of /openapi.json in-process: no 5xx, and every response matches the published schema."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from test_api_support import Keys, event, make_client, open_runner, reference_clock, settings_for

from epistream.api import create_app

pytestmark = pytest.mark.integration
STATE: dict[str, Any] = {}


@pytest.fixture(scope="module")
def api_schema(chdb_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    data = tmp_path_factory.mktemp("api-fuzz")
    cfg = settings_for(data, api_max_body_bytes=256 * 1024)
    keys = Keys()
    keys.add("fuzz", "t1")
    with open_runner(chdb_path, data, cfg) as runner:
        with make_client(runner, keys, cfg) as client:
            r = client.post("/v1/events", json=[event("f1", "I live in Berlin.", owner="u1"),
                                                event("f2", "I love tea.", owner="u1", minutes=1)],
                            headers=keys.auth("fuzz"))
            assert r.status_code == 200
        STATE["auth"] = keys.auth("fuzz")
        app = create_app(runner, api_keys=keys.ring(), settings=cfg, clock=reference_clock)
        yield schemathesis.openapi.from_asgi("/openapi.json", app)


def test_openapi_fuzz_no_5xx_no_schema_violation(api_schema: Any) -> None:
    """Every operation, positive and negative data, a dozen examples each (bounded for CI)."""
    checks = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 17
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def fuzz(case: Any) -> None:
            case.call_and_validate(headers=STATE["auth"], checks=checks)

        fuzz()
