"""One registry of explicit commands: the reducer, the HTTP API and the CLI offer exactly its commands."""

from __future__ import annotations

import typing

import pytest
from typer.testing import CliRunner

from engine.reducer import Reducer
from epistream.api.commands import ROUTES, router
from epistream.cli import app
from schemas.commands import COMMAND_SPECS, COMMANDS, Command, CommandBase, EraseCommand

# Erasure travels as a command (in order with the owner's other inputs) but is no claim command: it is
# admin-only and has its own entry points (`epistream erase`, POST /v1/erasures), outside the registry.
ALL_COMMAND_MODELS = set(typing.get_args(typing.get_args(Command)[0])) - {EraseCommand}


def test_every_command_model_is_registered_once() -> None:
    assert {spec.model for spec in COMMANDS} == ALL_COMMAND_MODELS
    assert len({spec.name for spec in COMMANDS}) == len(COMMANDS) == len(ALL_COMMAND_MODELS)


def test_the_reducer_has_a_handler_for_each_registered_command() -> None:
    handlers = Reducer()._handlers
    assert set(handlers) == ALL_COMMAND_MODELS | {EraseCommand}
    assert handlers[EraseCommand].__name__ == "_erase"
    for spec in COMMANDS:
        assert handlers[spec.model].__name__ == f"_{spec.command}"


def test_the_api_has_one_route_per_command() -> None:
    paths = {(next(iter(r.methods)), r.path) for r in router.routes}  # type: ignore[attr-defined]
    assert paths == {(method, path) for method, path, _, _ in ROUTES.values()}
    assert set(ROUTES) == set(COMMAND_SPECS)


@pytest.mark.parametrize("spec", COMMANDS, ids=lambda s: s.name)
def test_the_cli_offers_each_command_with_its_own_options(spec: typing.Any) -> None:
    result = CliRunner().invoke(app, [spec.name, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for field in spec.own_fields():
        assert spec.option_name(field) in result.output
    for shared in ("--tenant", "--request-id", "--actor", "--reason", "--evidence", "--json"):
        assert shared in result.output


def test_own_fields_exclude_targets_and_common_fields() -> None:
    assert COMMAND_SPECS["transition"].own_fields() == ["to_type", "trigger_type"]
    assert COMMAND_SPECS["contradict"].own_fields() == ["description"]
    assert COMMAND_SPECS["resolve"].own_fields() == []
    for spec in COMMANDS:
        assert not set(spec.own_fields()) & set(CommandBase.model_fields)
        assert set(spec.targets) <= set(spec.model.model_fields)


def test_cli_option_names_follow_the_documented_spelling() -> None:
    assert COMMAND_SPECS["transition"].option_name("to_type") == "--to"
    assert COMMAND_SPECS["transition"].option_name("trigger_type") == "--trigger"
    assert COMMAND_SPECS["reinforce"].option_name("signal_source") == "--signal-source"
