"""The layering docs/architecture.md describes, checked on the
code itself (imports read with ast, function-level ones included; those under
``if TYPE_CHECKING:`` are annotations only and do not count):

- only store/ touches git: dulwich is imported there alone, and the git CLI
  is run there alone;
- each layer imports only the layers below it (cli never store, index or
  providers; store and index never services; terminal never services, and
  services never terminal: what they say goes through the notice they are given);
- services use the store through its one face, ``conv.store.Store``: no
  store submodule, no ``.store.path`` or ``.store._…``;
- no import cycles; no module over 300 lines;
- cli/run/, the commands run without Typer, never load Typer.
"""

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from conftest import conv_env, ok

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "conv"
MAX_LINES = 300

# layer -> the layers it may import at run time (itself always)
ALLOWED = {
    "errors": set(),
    "records": set(),
    "signals": {"errors"},
    "inert": set(),
    "pool": set(),
    "format": {"errors", "records"},
    "home": {"errors", "records", "inert", "format"},
    "terminal": {"errors", "records", "signals", "inert", "format", "home"},
    "store": {"errors", "records", "signals", "format", "home"},
    "index": {"errors", "records", "inert", "pool", "format", "home", "store"},
    "providers": {"errors", "records", "format", "home"},
    "importers": {"errors", "records", "pool", "format", "home"},
    "connect": {"errors", "records", "home"},
    "sources": {"errors", "records", "pool", "format", "home", "importers", "connect"},
    "services": {"errors", "records", "signals", "inert", "format", "home", "store", "index", "providers", "importers",
                 "connect", "sources"},
    "web": {"errors", "records", "inert", "format", "home", "terminal", "services"},
    "cli": {"errors", "records", "format", "home", "terminal", "services", "web"},
    "__main__": {"errors", "terminal", "cli"},
    "__init__": set(),
}


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = modules()


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, child.end_lineno + 1))
    return lines


@cache
def parsed(module: str) -> ast.Module:
    """``module``'s syntax tree, parsed once for every check (each parse of the 240 modules took a second)."""
    return ast.parse(MODULES[module].read_text())


@cache
def imports(module: str) -> tuple[tuple[str, int], ...]:
    """(module imported, line) for every run-time import in ``module``, resolved
    to the most specific conv module (or the outside package's top name)."""
    path = MODULES[module]
    tree = parsed(module)
    skip = _type_checking_lines(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for alias in node.names:
                full = f"{target}.{alias.name}"
                out.append((full if full in MODULES else target, node.lineno))
    return tuple(out)


def conv_imports(module: str) -> set[str]:
    return {name for name, _ in imports(module) if name.startswith("conv.") and name in MODULES and name != module}


def test_only_the_store_touches_git():
    bad = []
    for module, path in MODULES.items():
        if layer(module) == "store":
            continue
        bad += [f"{module}:{line} imports {name}" for name, line in imports(module) if name.split(".")[0] == "dulwich"]
        for node in ast.walk(parsed(module)):
            if isinstance(node, (ast.List, ast.Tuple)) and node.elts and isinstance(node.elts[0], ast.Constant) \
                    and node.elts[0].value == "git":
                bad.append(f"{module}:{node.lineno} runs the git CLI")
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("which") and node.args \
                    and isinstance(node.args[0], ast.Constant) and node.args[0].value == "git":
                bad.append(f"{module}:{node.lineno} looks for the git CLI")
    assert not bad, "\n".join(bad)


def test_the_git_plumbing_is_apart_from_the_conversation_store():
    """Issue 24: store/repo/ is git's plumbing (objects, trees, refs, locks,
    hooks, remotes and transfers): it imports nothing of the store above it
    and knows no conversation format; the rest of the store reaches git only
    through it (no dulwich, no git CLI of its own)."""
    bad = []
    for module in MODULES:
        if layer(module) != "store":
            continue
        plumbing = module.startswith("conv.store.repo")
        for name, line in imports(module):
            if plumbing and (name.startswith("conv.format") or
                             name.startswith("conv.store") and not name.startswith("conv.store.repo")):
                bad.append(f"{module}:{line} (plumbing) imports {name}")
            if not plumbing and name.split(".")[0] == "dulwich":
                bad.append(f"{module}:{line} imports dulwich outside store/repo/")
    assert not bad, "\n".join(bad)


def test_each_layer_imports_only_the_layers_below_it():
    bad = []
    for module in MODULES:
        mine = layer(module)
        for name, line in imports(module):
            if name.startswith("conv.") and name in MODULES:
                theirs = layer(name)
                if theirs != mine and theirs not in ALLOWED[mine]:
                    bad.append(f"{module}:{line} ({mine}) imports {name} ({theirs})")
    assert not bad, "\n".join(bad)


def test_services_use_the_store_through_its_one_face():
    bad = []
    for module, path in MODULES.items():
        if layer(module) != "services":
            continue
        bad += [f"{module}:{line} imports {name}" for name, line in imports(module)
                if name.startswith("conv.store.")]
        for node in ast.walk(parsed(module)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                    and node.value.attr == "store" and (node.attr in ("path", "git") or node.attr.startswith("_")):
                bad.append(f"{module}:{node.lineno} reaches through the store: {ast.unparse(node)}")
    assert not bad, "\n".join(bad)


def test_a_commands_result_becomes_json_or_text_in_terminal_views():
    """cli/ hands results to terminal/views.py (``views.emit``); the only JSON
    printed elsewhere is an answer after it streamed and conv export's formats."""
    allowed = {("conv.cli.run.ask", "result"), ("conv.cli.exchange", "out")}
    found = set()
    for module, path in MODULES.items():
        if layer(module) != "cli":
            continue
        for node in ast.walk(parsed(module)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "emit_json":
                found.add((module, ast.unparse(node.args[0]).split(".")[0]))
    assert found == allowed


def test_no_import_cycles():
    graph = {module: conv_imports(module) for module in MODULES}
    # a package's __init__ importing its own submodules is how a package is
    # built; a cycle is a module reaching back to one that reaches it
    cycles, index, low, stack, on_stack, counter = [], {}, {}, [], set(), [0]

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10000)
    try:
        for module in graph:
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)  # the worker goes on with other tests: what they parse must nest as deep as ever
    assert not cycles, cycles


def test_no_module_is_over_300_lines():
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("conv.cli.run")))
def test_the_runners_never_load_typer(module):
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'click')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=conv_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"{module} loads {done.stdout.strip()}"


def imported_by(*args) -> set[str]:
    """The modules ``conv ARGS`` imports (it must succeed)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "conv", *args], env=conv_env(),
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def test_asking_and_following_up_never_import_dulwich_or_dataclasses(fake, store_path):
    """Issue 15: a follow-up reads a few trees and writes two commits in git's
    formats itself (store/repo/objects.py); importing dulwich cost it 15 ms, and
    the dataclasses module (with inspect) and building classes with it 12 ms
    more (conv.records makes them), typing 3 ms. After a gc the trees it reads
    are packed, deltas of each other."""
    fake.set(reply="ECHO")

    ok("ask", "a first question")  # creates the store (dulwich makes the repository)
    for n in range(3):
        ok("ask", "-c", f"turn {n}")
    subprocess.run(["git", "--git-dir", str(store_path), "gc", "--quiet"], check=True)
    heavy = lambda names: {m for m in names if m.startswith("dulwich") or m in ("dataclasses", "inspect")}  # noqa: E731
    follow_up = imported_by("ask", "-c", "a follow-up")
    assert not heavy(follow_up)
    assert "conv.home.project" not in follow_up  # the work tree is read for a new conversation only
    assert "typing" not in follow_up  # 3 ms: annotations are strings, typing's names imported for checkers only
    assert not heavy(imported_by("ask", "a new question"))
    assert "typing" not in imported_by("cmd", "ls -la")  # Alt-K (the fake echoes: a command)
    done = subprocess.run(["git", "--git-dir", str(store_path), "fsck", "--strict"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.fixture
def remote(fake, tmp_path) -> Path:
    """An empty remote named origin, and a store with two exchanges to push to it."""
    fake.set(reply="ECHO")
    ok("ask", "a question to push")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    ok("remote", "add", "origin", str(remote))
    ok("ask", "-c", "one more exchange")
    return remote


def assert_pushed(remote: Path, store_path: Path) -> None:
    head = subprocess.run(["git", "--git-dir", str(remote), "rev-parse", "main"], capture_output=True, text=True)
    assert head.stdout.strip() == (store_path / "refs/heads/main").read_text().strip()


def test_a_push_loads_no_conversation_code(remote, store_path):
    """Issue 15: conv push must keep up with git push, and Python's start
    with the console script is most of what 1.5x allows. It reads the config
    and the branch and runs git: the modules that read and write
    conversations (store/repo/git.py, layout, the format package), the index,
    typing, json, datetime, subprocess and shutil are not imported for it
    (git runs through store/repo/gitcli.py)."""
    loaded = imported_by("push")
    content = {m for m in loaded
               if m in ("conv.store.repo.git", "conv.store.layout", "conv.store.kept_answers", "conv.index")
               or m.startswith(("conv.format", "dulwich"))}
    assert not content, sorted(content)
    stdlib = loaded & {"typing", "json", "datetime", "subprocess", "shutil"}  # 13 ms of imports, together
    assert not stdlib, sorted(stdlib)
    assert_pushed(remote, store_path)


def test_a_push_starts_git_before_it_loads_what_prints_the_reply(remote, store_path):
    """Issue 15: git push takes ~50 ms and conv push may add half of that.
    git is started as soon as the remote and the branch are known, and what
    the reply needs (terminal/render, the secrets it masks, pathlib) loads
    while it runs: at git's start conv has loaded its entry point, the push
    service and the store's remotes, and nothing else of weight. (The
    modules are read by an audit hook at the moment git is spawned.)"""
    code = ("import re, sys\n"  # the console script imports re first
            "before = set(sys.modules)\n"
            "at_spawn = []\n"
            "def hook(event, args):\n"
            "    if event == 'os.posix_spawn' and 'push' in args[1] and not at_spawn:\n"
            "        at_spawn.append(sorted(set(sys.modules) - before))\n"
            "sys.addaudithook(hook)\n"
            "sys.argv = ['conv', 'push']\n"
            "from conv.__main__ import main\n"
            "try:\n"
            "    main()\n"
            "finally:\n"
            "    print(at_spawn, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], env=conv_env(), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    said, _, loaded = done.stderr.rstrip().rpartition("\n")
    assert said == "conv: pushed"
    loaded = ast.literal_eval(loaded)
    assert loaded, "conv push did not start git"
    heavy = {"pathlib", "contextlib", "threading", "subprocess", "conv.terminal.render", "conv.home.secrets",
             "conv.store.repo.lock"}
    assert not heavy & set(loaded[0]), sorted(heavy & set(loaded[0]))
    assert_pushed(remote, store_path)


@pytest.mark.parametrize("conv_runs", [True, False])
def test_nothing_is_collected_as_conv_ends(tmp_path, conv_runs):
    """Issue 15: as a process ends, Python makes one last full collection of
    every object left, 3 ms for what a command has imported (conv push may
    add 25 ms to git push). conv freezes them first (__main__.py): an object
    in a reference cycle, alive to the end, is not finalized by that pass.
    Without conv's entry point, the same object is. (Its ``__del__`` keeps
    ``open``: the builtins are gone by then.)"""
    mark = tmp_path / "finalized"
    code = (("import conv.__main__\n" if conv_runs else "")
            + f"class Cycle:\n    def __del__(self, open=open):\n        open({str(mark)!r}, 'w').close()\n"
            + "kept = Cycle()\nkept.itself = kept\n")
    done = subprocess.run([sys.executable, "-c", code], env=conv_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert mark.exists() is not conv_runs


def test_the_provider_names_home_reserves_are_the_registrys():
    """home/keys.py (below providers/) keeps the names an endpoint cannot take;
    providers/registry.py has one record a provider: the two name the same."""
    from conv.home.keys import RESERVED
    from conv.providers.registry import BY_NAME

    assert set(RESERVED) == set(BY_NAME)
