"""Reading the project's Markdown the way its readers do, for the tests that hold it to the code.

README.md (the front door) and the pages of docs/ name commands, options, files, routes and
settings; these helpers pull those names out (code spans, fenced blocks, shell commands, table
cells, links) and resolve an ``epistream …`` usage against the real typer app, so each page's
test states only its facts.
"""

from __future__ import annotations

import functools
import re
import shlex
import typing
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from typer.main import get_command
from typer.testing import CliRunner

from epistream.cli import app as cli_app

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
# "``" (an empty span, as in the README's configuration table) is consumed whole so it cannot pair with a later
# backtick.
SPAN = re.compile(r"``|`([^`]+)`")


def doc_names() -> list[str]:
    """README.md and every page of docs/, as paths relative to the repository root."""
    return ["README.md", *(f"docs/{p.name}" for p in sorted(DOCS.glob("*.md")))]


@functools.cache
def read(name: str) -> str:
    """The text of ``README.md`` or ``docs/<page>.md``."""
    return (ROOT / name).read_text("utf-8")


def all_docs() -> dict[str, str]:
    return {name: read(name) for name in doc_names()}


LINK = re.compile(r"\]\(([^)\s]+)\)")


def links(text: str) -> list[str]:
    """Targets of Markdown links outside fenced blocks."""
    return LINK.findall(FENCE.sub("", text))


def anchor(heading: str) -> str:
    """GitHub's id of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    return {anchor(h) for h in re.findall(r"^#{1,6} (.+)$", FENCE.sub("", text), flags=re.M)}


def tables(text: str) -> list[list[list[str]]]:
    """Each Markdown table of ``text`` (outside fenced blocks) as its rows of cells, header row first."""
    found: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*FENCE.sub("", text).splitlines(), ""]:
        if line.startswith("|"):
            if not re.fullmatch(r"\|[-| :]+\|", line.strip()):
                current.append(table_cells(line))
        elif current:
            found.append(current)
            current = []
    return found


def table_rows(text: str) -> list[list[str]]:
    """Body rows of every table in ``text`` (header rows left out)."""
    return [row for table in tables(text) for row in table[1:]]


def section(text: str, title: str, doc: str = "README") -> str:
    """The body of the ``## <title>…`` section (up to the next ``## `` heading)."""
    match = re.search(rf"^## {re.escape(title)}.*?\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert match, f"{doc} has no section starting with {title!r}"
    return match.group(1)


def fenced(text: str, lang: str | None = None) -> list[str]:
    return [body for tag, body in FENCE.findall(text) if lang is None or tag == lang]


def spans(text: str) -> list[str]:
    """Inline code spans outside fenced blocks."""
    return [m.group(1) for m in SPAN.finditer(FENCE.sub("", text)) if m.group(1)]


def table_cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def shell_commands(block: str, doc: str = "README") -> list[list[str]]:
    """Each command of a shell block as argv (quoted statements may span lines; comments dropped)."""
    commands: list[list[str]] = []
    pending = ""
    for line in block.splitlines():
        if not pending and not line.strip():
            continue
        pending = f"{pending}\n{line}" if pending else line
        try:
            argv = shlex.split(pending, comments=True)
        except ValueError:  # an unclosed quote: the statement goes on
            continue
        pending = ""
        if argv:
            commands.append(argv)
    assert not pending, f"unterminated shell command in {doc}: {pending!r}"
    return commands


def epistream_argv(argv: list[str]) -> list[str] | None:
    """``VAR=value epistream cmd …  &`` -> ``[cmd, …]``; None for other programs."""
    words = [w for w in argv if w != "&"]
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        words = words[1:]
    return words[1:] if words and words[0] == "epistream" else None


@dataclass
class Usage:
    """One way a guide says to call a command: which command and which options (value or None)."""

    text: str
    command: tuple[str, ...]
    options: list[tuple[str, str | None]] = field(default_factory=list)


def options(words: list[str]) -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []
    for i, word in enumerate(words):
        if re.fullmatch(r"--[a-z][a-z0-9-]*", word):
            value = words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("-") else None
            found.append((word, value))
    return found


@functools.cache
def _commands() -> Any:
    return get_command(cli_app)


def resolve(path: tuple[str, ...], doc: str = "README") -> tuple[tuple[str, ...], Any]:
    """``("dlq", "list", …)`` -> the command path actually named and its click command."""
    group = _commands()
    command = group.commands.get(path[0])
    assert command is not None, f"{doc} names `epistream {path[0]}`, which does not exist"
    if hasattr(command, "commands"):  # a sub-app such as `epistream dlq list`
        assert len(path) > 1 and path[1] in command.commands, f"{doc}: `epistream {' '.join(path)}` does not exist"
        return path[:2], command.commands[path[1]]
    return path[:1], command


def command_options(command: Any) -> set[str]:
    return {opt for p in command.params for opt in p.opts}


def enum_of(command: Any, param_name: str) -> type[Enum] | None:
    hints = typing.get_type_hints(command.callback)
    hint: Any = hints.get(param_name)
    for candidate in (hint, *typing.get_args(hint)):
        if isinstance(candidate, type) and issubclass(candidate, Enum):
            return candidate
    return None


def check_usages(usages: typing.Iterable[Usage], doc: str = "README") -> set[tuple[str, ...]]:
    """Every command and option exists (an enum value, when given, is a real one); ``--help`` of each works."""
    seen: set[tuple[str, ...]] = set()
    for usage in usages:
        path, command = resolve(usage.command, doc)
        seen.add(path)
        params = {opt: p for p in command.params for opt in p.opts}
        for option, value in usage.options:
            if option == "--help":  # every command has it (click adds it; it is no parameter)
                continue
            assert option in params, f"`epistream {' '.join(path)}` has no {option} ({doc}: {usage.text!r})"
            enum = enum_of(command, params[option].name)
            # "--to ASSERTED" names a real value; "--signal S" is a placeholder.
            if enum is not None and value is not None and len(value) > 1:
                allowed = {str(m.value).lower() for m in enum} | {m.name.lower() for m in enum}
                assert value.lower() in allowed, f"{option} {value}: not one of {sorted(allowed)} ({doc})"
    runner = CliRunner()
    for path in sorted(seen):
        shown = runner.invoke(cli_app, [*path, "--help"])
        assert shown.exit_code == 0, f"epistream {' '.join(path)} --help: {shown.output[-500:]}"
    return seen
