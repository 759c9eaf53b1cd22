"""The distributed pipeline: faust-streaming agents on Kafka.

Agents (see ARCHITECTURE.md "Flow"); each calls the shared steps in
``streams.agents`` so behaviour tested in-process holds here:

* ``extract``      conversation.events -> admit -> raw events + extraction journals to ClickHouse
                   -> memory.extractions, one record per partition of a batch (up to
                   ``streams.record_size`` limits), or the DLQ (:mod:`streams.worker.extract`)
* ``materialize``  memory.extractions + memory.commands (co-partitioned) -> reducer
                   -> operations + node snapshots to ClickHouse, latest snapshots to
                   memory.nodes (compacted), and last memory.operations (records of whole
                   inputs: the :class:`~streams.kafka_store.OpBatch` of each input)
                   (:mod:`streams.worker.materialize`)
* ``oplog_dead_letters`` dead-letter topics -> ClickHouse (:mod:`streams.worker.dead_letters`)
* ``index_sink``   memory.nodes -> OpenSearch (``_id`` = node id, external version = node version)
                   (:mod:`streams.worker.index_sink`)

The modules: :mod:`~streams.worker.app` builds the faust app and registers the agents of the
worker's role; :mod:`~streams.worker.context` is what the stages share;
:mod:`~streams.worker.clickhouse_log` the ClickHouse log and its write-behind;
:mod:`~streams.worker.partitions` what a rebalance does; :mod:`~streams.worker.acks` when a consumed
record becomes committable; :mod:`~streams.worker.fail_stop` how an agent failure ends the worker;
:mod:`~streams.worker.lifecycle` start-up and shutdown; :mod:`~streams.worker.run` and
:mod:`~streams.worker.operations` what operators call. ``streams.faust_app`` re-exports the public
names and is the ``python -m`` entry point.

Each record is consumed by as few agents as possible (every consumption costs
faust/aiokafka machinery and a parse): the stage that already holds the parsed
value writes it to ClickHouse, instead of a separate sink agent re-reading the
topic. Those writes go *behind* the stream (:mod:`streams.write_behind`): the rows
of the takes of up to ``clickhouse_within_s`` (0.5 s) go in one insert per table,
because a chDB insert costs ~30 ms of CPU whatever its size, and the takes' input
records stay unacknowledged (so uncommitted) until that insert returned, so the
guarantees below hold unchanged. Extraction records and node snapshots do not
wait for it: the path to the index holds no ClickHouse insert. ``memory.operations``
is the changelog of materialize's state (and what the API follows for command
outcomes); materialize writes it *after* ClickHouse and memory.nodes, so an input
the log calls done has everything derived from it durable (see
``MaterializeStage._publish_outputs``).

Processing guarantee shipped: **at-least-once, made exact by idempotency.**
faust-streaming 0.15's ``exactly_once`` runs one transactional producer per
assigned partition and a transaction manager that is known to stall on
rebalances and leaves changelog reads and our state loader needing
``read_committed`` everywhere; it was not needed, because every stage is
idempotent on its own:

* an input record is acknowledged (so committable) only after its ClickHouse rows
  are written and the broker has acknowledged every record produced from it
  (``streams.delivery``; faust's own flush before a commit gives up after 0.1 s
  and is not relied on), so nothing is committed before what it produced is
  durable (no loss);
* the reducer ignores input ids it has seen; its state is the fold of
  ``memory.operations`` and one input's operations are always in a single Kafka
  record, written after their ClickHouse rows and node snapshots, so a crash
  leaves an input either fully applied (redelivery -> duplicate, nothing
  emitted) or not at all (redelivery -> the same bytes again, the reducer is
  deterministic, the second copies are deduplicated);
* ClickHouse writes carry insert-dedup tokens over derived ids and the tables
  are ReplacingMergeTree on those ids; dead letters are keyed by source
  topic/partition/offset;
* OpenSearch refuses a node version it already has (external versioning).

Time: a Kafka-received event without ``received_at`` gets the record's
timestamp (set once by the producer), never the worker's clock, so a
redelivery of the same record yields identical state (:mod:`streams.worker.timestamps`).
"""
