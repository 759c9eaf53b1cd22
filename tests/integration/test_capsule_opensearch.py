"""A capsule read back from OpenSearch gives the same continuation as the embedded store (issue #29).

A distributed deployment builds its world view from the index's copies of the nodes
(``EmbeddedRunner.world`` with ``reads_shared``): the capsule's payload must survive the index
document, or a distributed reader would see the claim but no resumable work.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from opensearchpy import OpenSearch
from test_api_support import Keys, make_client, open_runner, reference_clock, settings_for
from test_opensearch_support import drop_alias, load_services
from test_task_capsule_e2e import _capsule, _event

from retrieval.continuation import with_continuation
from retrieval.world import world_context
from sinks.opensearch_index import OpenSearchIndex

pytestmark = pytest.mark.integration


def test_the_index_copy_of_a_capsule_gives_the_same_continuation(chdb_path: Path, tmp_path: Path) -> None:
    url = str(load_services().ensure_up()["opensearch"])
    alias = f"it-capsule-{uuid.uuid4().hex[:10]}"
    settings = settings_for(tmp_path, opensearch_url=url, opensearch_index=alias)
    keys = Keys()
    keys.add("platform", "acme")
    try:
        with open_runner(chdb_path, tmp_path, settings) as runner, make_client(runner, keys, settings) as client:
            posted = client.post("/v1/events", headers=keys.auth("platform"), json={"events": [
                _event("c1", "Status of the migration.", 4, task_state=_capsule()),
                _event("s1", "Paused, I think.", 3, role="assistant", task_state=_capsule(task_id="T-2")),
            ]})  # fmt: skip
            assert posted.status_code == 200, posted.text
            index = runner.index
            assert isinstance(index, OpenSearchIndex)
            index.refresh()
            ref = reference_clock()
            embedded = runner.world(tenant_id="acme", owner_id="alice", at=ref, task_id="T-1")
            copies = index.owner_nodes(tenant_id="acme", owner_id="alice")
            view = world_context(copies, runner.edges_of_owner(tenant_id="acme", owner_id="alice"),
                                 tenant_id="acme", owner_id="alice", reference_time=ref)  # fmt: skip
            from_index = with_continuation(view, copies, task_id="T-1")
            assert embedded.continuation is not None and [c.task_id for c in embedded.continuation.resumable] == ["T-1"]
            assert from_index.continuation == embedded.continuation
            assert from_index.task_context == embedded.task_context
    finally:
        os_client = OpenSearch(hosts=[url], timeout=30)
        drop_alias(os_client, alias)
        os_client.close()
