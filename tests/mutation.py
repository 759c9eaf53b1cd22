"""Mutation testing of the rule modules (``./dev mutate [module ...]``), with mutmut.

Why: a suite can be large and still miss the bugs that matter; a mutant (one small change the tool
makes to the code) that no test notices is a rule nobody checks. Each module here is run in its own
copy of the repository under ``build/mutate/<module>/`` (mutmut works in ``mutants/`` of its current
directory and needs its own ``[tool.mutmut]`` section), against the unit tests only: the tests a
developer runs should be the ones that catch a broken rule.

A surviving mutant is either killed by a new test or listed, with the reason it cannot change
behaviour, in the "Equivalent mutants" table of ``docs/quality.md``; this script reads that table, so
the list and the figures cannot drift apart. It prints mutants, killed, survived (unexplained),
equivalent, and the score over non-equivalent mutants per module, and exits 1 when a survivor is
unexplained. Slow (minutes per module on two cores), so not part of ``./dev test``.

mutmut mutates code inside functions and methods only: tables and constants at module level (the
transition tables of ``engine/rules.py``, the DEFAULT-excluded types of ``retrieval/policy.py``) are
not mutated, and are held by tests that write their expected values out literally.

    python tests/mutation.py                 # every module
    python tests/mutation.py policy rules    # some of them
    python tests/mutation.py --list          # the module names
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "mutate"
QUALITY_DOC = ROOT / "docs" / "quality.md"
PACKAGES = ("schemas", "engine", "extractors", "sinks", "retrieval", "streams", "epistream")


@dataclass(frozen=True)
class Target:
    #: Files mutated (globs relative to the repository root).
    files: tuple[str, ...]
    #: Unit-test paths mutmut may pick from (it runs only the tests that call the mutated function).
    tests: tuple[str, ...]
    #: mutmut function keys to keep (fnmatch patterns on the mutant name); empty = every function.
    functions: tuple[str, ...] = ()


TARGETS: dict[str, Target] = {
    "confidence": Target(("engine/confidence.py",), ("tests/unit/engine",)),
    "rules": Target(("engine/rules.py",), ("tests/unit/engine",)),
    # Only the supersede/contradict parts of the reducer: claim creation (which claims a new one
    # retires or contests), the explicit update targets, and the contradiction commands.
    "reducer": Target(
        ("engine/reducer.py",),
        ("tests/unit/engine",),
        (
            "engine.reducer.xǁReducerǁ_create__mutmut_*",
            "engine.reducer.xǁReducerǁ_supersede_targets__mutmut_*",
            "engine.reducer.xǁReducerǁ_active_contradiction__mutmut_*",
            "engine.reducer.xǁReducerǁ_contradict__mutmut_*",
            "engine.reducer.xǁReducerǁ_resolve_contradiction__mutmut_*",
        ),
    ),
    "policy": Target(("retrieval/policy.py",), ("tests/unit/retrieval",)),
    "presentation": Target(("retrieval/presentation.py",), ("tests/unit/retrieval",)),
    # The validation layer and the text rules it applies (whole-word mentions, quote location,
    # conditions, hedges, speech acts).
    "validation": Target(("extractors/validation.py", "extractors/text.py"), ("tests/unit/extractors",)),
    "secrets": Target(("extractors/secrets.py", "extractors/secrets/*.py"), ("tests/unit/extractors",)),
    # The attribute registry (being built elsewhere): mutated once it exists.
    "registry": Target(("extractors/registry.py", "extractors/registry/*.py"), ("tests/unit",)),
}


def existing_files(target: Target) -> list[str]:
    found: set[str] = set()
    for pattern in target.files:
        found.update(str(p.relative_to(ROOT)) for p in ROOT.glob(pattern) if p.is_file())
    return sorted(found)


def equivalent_mutants() -> dict[str, str]:
    """Mutant name -> reason, from the "Equivalent mutants" table of docs/quality.md."""
    out: dict[str, str] = {}
    if not QUALITY_DOC.exists():
        return out
    section = QUALITY_DOC.read_text(encoding="utf-8").split("## Equivalent mutants", 1)
    if len(section) < 2:
        return out
    for line in section[1].split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[1].startswith("`") and "__mutmut_" in cells[1]:
            out[cells[1].strip("`")] = cells[2]
    return out


def _ignore(directory: str, names: list[str]) -> set[str]:
    return {n for n in names if n in {"__pycache__", ".hypothesis", ".pytest_cache", "realistic"}}


#: mutmut 3.7 reads ``item._nodeid``, which pytest 9 no longer has (mutmut 3.8 fixes it but needs a
#: click that faust-streaming refuses); appended to the work copy's conftest only.
_COMPAT = """

def pytest_collection_modifyitems(items):  # added by tests/mutation.py for mutmut
    for item in items:
        if not hasattr(item, "_nodeid"):
            item._nodeid = item.nodeid
"""


def prepare(name: str, target: Target, files: list[str]) -> Path:
    """A fresh copy of the packages, tests and bench, with a pyproject that configures mutmut."""
    work = WORK / name
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for folder in (*PACKAGES, "tests", "bench"):
        shutil.copytree(ROOT / folder, work / folder, ignore=_ignore)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    markers = pyproject["tool"]["pytest"]["ini_options"]["markers"]
    config = [
        "[tool.pytest.ini_options]",
        # mutmut puts mutants/ first on sys.path; pytest's own pythonpath must point there too,
        # or the unmutated copies next to it would be imported.
        'pythonpath = ["mutants"]',
        f"markers = {json.dumps(markers)}",
        'addopts = "-p no:cacheprovider"',
        "",
        "[tool.mutmut]",
        f"source_paths = {json.dumps(list(PACKAGES))}",
        f"only_mutate = {json.dumps(files)}",
        'also_copy = ["bench"]',
        f"pytest_add_cli_args_test_selection = {json.dumps(list(target.tests))}",
        "timeout_multiplier = 10.0",
        "",
    ]
    (work / "pyproject.toml").write_text("\n".join(config), encoding="utf-8")
    with (work / "tests" / "conftest.py").open("a", encoding="utf-8") as conftest:
        conftest.write(_COMPAT)
    return work


def results(work: Path, files: list[str]) -> dict[str, int | None]:
    """Mutant name -> mutmut's exit code (1 killed, 0 survived, 33 no tests, 36 timeout, ...)."""
    codes: dict[str, int | None] = {}
    for path in files:
        meta = work / "mutants" / (path + ".meta")
        if meta.exists():
            codes.update(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])
    return codes


def status(code: int | None) -> str:
    if code in (1, 3, -24, 24, 152, 255, 36, -11, -9):
        # A timeout or a crash is the mutant noticed (an infinite loop, a recursion).
        return "killed"
    if code == 0:
        return "survived"
    if code in (5, 33):
        return "no tests"
    return "not checked"


def refresh_tests(work: Path) -> None:
    """Bring the work copy's tests up to date (for ``--survivors``), keeping the mutmut shim."""
    for dest in (work / "tests", work / "mutants" / "tests"):
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(ROOT / "tests", dest, ignore=_ignore)
        with (dest / "conftest.py").open("a", encoding="utf-8") as conftest:
            conftest.write(_COMPAT)


def run(name: str, target: Target, equivalent: dict[str, str], children: int,
        survivors_only: bool = False) -> dict[str, object] | None:  # fmt: skip
    files = existing_files(target)
    if not files:
        print(f"{name}: no files match {', '.join(target.files)} (not on this branch yet)")
        return None
    env = dict(os.environ, PYTHONPATH="", EPISTREAM_MUTATION="1")
    mutmut = Path(sys.executable).with_name("mutmut")
    work = WORK / name
    if survivors_only and (work / "mutants").exists():
        # Re-check only the mutants that survived last time, against the current tests (the source
        # must not have changed since that run).
        previous = results(work, files)
        names = [k for k, v in previous.items() if status(v) != "killed"
                 and (not target.functions or any(fnmatch.fnmatch(k, p) for p in target.functions))]  # fmt: skip
        refresh_tests(work)
        (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
        cmd = [str(mutmut), "run", "--max-children", str(children), *names]
    else:
        work = prepare(name, target, files)
        cmd = [str(mutmut), "run", "--max-children", str(children), *target.functions]
    print(f"== {name}: mutating {', '.join(files)} (work dir {work.relative_to(ROOT)})", flush=True)
    proc = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    (work / "mutmut.log").write_text(proc.stdout, encoding="utf-8")
    codes = results(work, files)
    if target.functions:
        codes = {k: v for k, v in codes.items() if any(fnmatch.fnmatch(k, p) for p in target.functions)}
    if proc.returncode != 0 and not codes:
        print(proc.stdout[-4000:])
        raise SystemExit(f"{name}: mutmut failed (exit {proc.returncode}); log in {work / 'mutmut.log'}")
    by_status: dict[str, list[str]] = {}
    for key, code in sorted(codes.items()):
        by_status.setdefault(status(code), []).append(key)
    survived = by_status.get("survived", [])
    def listed(key: str) -> bool:  # a row may name one mutant or a pattern (``x__form__mutmut_*``)
        return key in equivalent or any("*" in pat and fnmatch.fnmatch(key, pat) for pat in equivalent)

    equiv = [k for k in survived if listed(k)]
    unexplained = [k for k in survived if not listed(k)]
    untested = by_status.get("no tests", [])
    killed = len(by_status.get("killed", []))
    non_equivalent = len(codes) - len(equiv)
    score = killed / non_equivalent if non_equivalent else 1.0
    return {
        "module": name,
        "files": files,
        "mutants": len(codes),
        "killed": killed,
        "survived": len(unexplained) + len(untested),
        "equivalent": len(equiv),
        "not_checked": len(by_status.get("not checked", [])),
        "score": score,
        "unexplained": unexplained + untested,
        "work": str(work),
    }


def show_diff(work: Path, key: str) -> str:
    mutmut = Path(sys.executable).with_name("mutmut")
    proc = subprocess.run([str(mutmut), "show", key], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=dict(os.environ, PYTHONPATH=""))  # fmt: skip
    return proc.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", help=f"any of: {', '.join(TARGETS)} (default: all)")
    parser.add_argument("--list", action="store_true", help="print the module names and their files")
    parser.add_argument("--children", type=int, default=os.cpu_count() or 2, help="parallel mutants")
    parser.add_argument("--diffs", action="store_true", help="print the diff of every unexplained survivor")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--survivors", action="store_true",
                        help="re-check only last run's survivors against the current tests (same source)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.list:
        for name, target in TARGETS.items():
            print(f"{name:14} {' '.join(existing_files(target)) or '(no files yet: ' + ' '.join(target.files) + ')'}")
        return 0
    unknown = [m for m in args.modules if m not in TARGETS]
    if unknown:
        parser.error(f"unknown module(s) {', '.join(unknown)}; choose from {', '.join(TARGETS)}")
    equivalent = equivalent_mutants()
    chosen = args.modules or list(TARGETS)
    rows = [r for m in chosen if (r := run(m, TARGETS[m], equivalent, args.children, args.survivors))]
    today, machine = date.today().isoformat(), f"{platform.machine()}, {os.cpu_count()} cores"
    if args.json:
        print(json.dumps(rows, indent=2))
    print()
    print("| module | mutants | killed | survived | equivalent | score | date | machine |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['module']} | {r['mutants']} | {r['killed']} | {r['survived']} | {r['equivalent']} | "
              f"{r['score']:.1%} | {today} | {machine} |")  # fmt: skip
    failed = False
    for r in rows:
        unexplained = r["unexplained"]
        assert isinstance(unexplained, list)
        if unexplained:
            failed = True
            print(f"\n{r['module']}: {len(unexplained)} surviving mutant(s) neither killed nor listed as equivalent:")
            for key in unexplained:
                print(f"  {key}")
                if args.diffs:
                    print(re.sub(r"^", "    ", show_diff(Path(str(r["work"])), key), flags=re.M))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
