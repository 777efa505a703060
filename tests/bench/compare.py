"""conv against llm and shell-gpt on the same work, in one run: one table, one plot.

    tests/bench/compare [--runs 20] [--sizes 10,1000,10000] [--png docs/benchmarks.png]

What it sets up (made once under tests/bench/out/, then reused):
  * ``llm`` (https://llm.datasette.io) in tests/bench/out/llm-venv (the venv
    bench_manage.py uses), ``shell-gpt`` (``sgpt``) in tests/bench/out/sgpt-venv
    (with ``click``, which shell-gpt 1.5.1 imports but no longer gets through
    typer >= 0.26), matplotlib in tests/bench/out/plot-venv: all from PyPI,
    none in conv's .venv.
  * for each store size N (10, 1,000 and 10,000 conversations of 5 turns):
    a conv store made by genstore.py with one commit per turn, the way
    ``conv ask`` makes them (tests/bench/out/compare/conv-Nx5-per-turn; after
    ``git gc``, as ``conv gc`` leaves it); an llm logs.db holding the same
    conversations, written through llm's own LogStore by genllm.py and read
    back with conv's llm importer to check it holds the same texts; and a
    shell-gpt chat cache holding them too: a file per conversation, named by
    its id, in sgpt's own format (a JSON list of messages opening with sgpt's
    default system role), its mtime at the conversation's last turn.
  * one loopback OpenAI-compatible server for all three: tests/fakeserver.py
    as its own process, answering at once. conv finds it through
    OPENAI_BASE_URL; llm through an extra-openai-models.yaml in LLM_USER_PATH
    that registers ``gpt-4o-mini`` (the model of the stored conversations, so
    ``llm -c`` keeps it) with that api_base; sgpt through its
    ~/.config/shell_gpt/.sgptrc under a HOME of its own (API_BASE_URL,
    OPENAI_API_KEY, DEFAULT_MODEL, CHAT_CACHE_PATH, functions off, no shell
    interaction, so it never prompts).

What it measures. Every command is a whole new process (a cold start: stdin
empty, stdout a pipe, a session of its own so no tool finds a terminal),
run once unmeasured first (bytecode written, files in the page cache); then
the commands of a row take turns, one run each per round, so a change in the
machine's load falls on all of them alike. Medians (and p90) of wall time,
and of the CPU time (user + system) each process used, which other work on a
shared machine moves much less:
  * cold start of ``--help``;
  * follow-up overhead at each store size: ``conv ask -c Q``, ``llm -c Q``,
    ``sgpt --no-cache --chat ID Q`` (``--no-cache`` so sgpt always asks the
    server), each continuing a stored 5-turn conversation; the overhead is
    the wall time minus the server's time for one streamed answer (the
    median round trip of a warm client, measured just before);
  * listing at 10,000: ``conv list -n 50``, ``llm logs list -n 50``,
    ``sgpt --list-chats`` (it has no limit: every chat);
  * searching at 10,000: ``conv search WORD`` (20 conversations by default)
    and ``llm logs -q WORD`` (3 exchanges by default), for a word in nearly
    every answer (``rebase``) and a rare one (``zeppelin``, about one turn in
    500); sgpt has no search;
  * the same 10,000 conversations on disk (``du -sb``): conv's store.git
    and its index (cache/index.sqlite, a cache conv rebuilds when missing),
    llm's logs.db, sgpt's chat files; what store.git's pack holds, by
    object type (``git verify-pack``); and, as an extra row, a copy of
    store.git after ``git gc --aggressive`` (``--no-aggressive`` skips it).
The ratio in each row is conv / peer (below 1: conv is faster or smaller).
Goals (issue 7): follow-up overhead <= 1/4 of llm's and of sgpt's; listing
and search faster than llm's; the store no larger than llm's logs.db.

Output: the table (Markdown, ready for docs/benchmarks.md), the machine
(cores, load average at start and end, versions), tests/bench/out/compare/
results.json and table.md, and the plot of follow-up overhead against store
size (PNG, default docs/benchmarks.png). About 6 minutes on two cores once
the venvs and stores exist; the first run makes them (about 5 minutes more).
"""

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

OUT = common.OUT / "compare"
LLM_VENV = common.OUT / "llm-venv"
SGPT_VENV = common.OUT / "sgpt-venv"
PLOT_VENV = common.OUT / "plot-venv"
GENLLM = common.BENCH / "genllm.py"
TURNS = 5
COMMITS = "per-turn"  # the history conv ask makes: a commit per turn
COMMON_WORD, RARE_WORD = "rebase", "zeppelin"
QUESTION = "and what about the interactive mode?"
GOAL_FOLLOW_UP = 0.25  # conv's overhead at most a quarter of each peer's


# -- small helpers ----------------------------------------------------------------------


def say(*args) -> None:
    print("compare:", *args, flush=True)


def sh(cmd: list, **kw) -> str:
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if done.returncode:
        sys.exit(f"compare: {' '.join(map(str, cmd))} failed ({done.returncode}):\n"
                 f"{done.stdout[-2000:]}{done.stderr[-3000:]}")
    return done.stdout


def du(path: Path) -> int:
    """Bytes, as ``du -sb`` counts them."""
    return int(sh(["du", "-sb", path]).split()[0])


def pack_by_type(repo: Path) -> dict:
    """Bytes in the packs of ``repo`` by object type (commit, tree, blob)."""
    sizes: dict = {}
    for idx in sorted((repo / "objects" / "pack").glob("*.idx")):
        for line in sh(["git", "--git-dir", repo, "verify-pack", "-v", idx]).splitlines():
            parts = line.split()
            if len(parts) >= 5 and parts[1] in ("commit", "tree", "blob", "tag"):
                sizes[parts[1]] = sizes.get(parts[1], 0) + int(parts[3])
    return sizes


def timed(cmd: list[str], env: dict) -> tuple[float, float]:
    """Wall time and CPU time (user + system, the process and what it waited
    for) of one cold process: stdin empty, stdout a pipe, a new session (no
    controlling terminal: sgpt would open /dev/tty otherwise)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, start_new_session=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode and not common.found_nothing(cmd, done.returncode):
        sys.exit(f"compare: {' '.join(cmd)} failed ({done.returncode}):\n"
                 f"{done.stdout.decode(errors='replace')[-1500:]}{done.stderr.decode(errors='replace')[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def round_robin(commands: dict[str, tuple[list[str], dict]], runs: int) -> dict[str, dict]:
    """name -> {"wall": [...], "cpu": [...]} (seconds). A warm-up run each,
    then the commands take turns, one run each per round."""
    for cmd, env in commands.values():
        timed(cmd, env)
    got = {name: {"wall": [], "cpu": []} for name in commands}
    for _ in range(runs):
        for name, (cmd, env) in commands.items():
            wall, cpu = timed(cmd, env)
            got[name]["wall"].append(wall)
            got[name]["cpu"].append(cpu)
    return got


def median_ms(samples: list[float]) -> float:
    return common.stats(samples)["median"]


# -- the three tools --------------------------------------------------------------------


def scratch_env() -> dict:
    """For the installers, the probes and the plot: a HOME of their own, so
    nothing (matplotlib's config, llm's or sgpt's) lands in the user's."""
    home = OUT / "scratch-home"
    home.mkdir(parents=True, exist_ok=True)
    return {**clean_env(), "HOME": str(home), "MPLCONFIGDIR": str(home / "matplotlib"),
            "LLM_USER_PATH": str(home / "llm")}


def venv(where: Path, packages: list[str], probe: str, what: str) -> None:
    """A venv at ``where`` holding ``packages`` (common.venv), said as it is made."""
    t = time.perf_counter()
    if not common.venv(where, packages, probe, scratch_env()):
        sys.exit(f"compare: installing {what} into {where} failed")
    say(f"{what} ready in {where} ({time.perf_counter() - t:.0f} s)")


def version_in(where: Path, dist: str) -> str:
    return sh([where / "bin" / "python", "-c",
               f"from importlib.metadata import version; print(version({dist!r}))"], env=scratch_env()).strip()


def clean_env(extra_drop: tuple = ()) -> dict:
    """The benchmark's environment minus what could point a tool elsewhere."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("OPENAI_", "CONV_", "LLM_", *extra_drop))
            and k not in ("PYTHONDONTWRITEBYTECODE", "NO_COLOR")}


class Conv:
    name = "conv"

    def __init__(self, size: int):
        import genstore

        self.home = genstore.ensure(OUT / f"conv-{size}x{TURNS}-{COMMITS}", size, TURNS, commits=COMMITS)
        self.size = size

    def env(self, url: str | None = None) -> dict:
        env = clean_env()
        env["CONV_HOME"] = str(self.home)
        if url:
            env["OPENAI_BASE_URL"], env["OPENAI_API_KEY"] = url, "sk-bench"
        return env

    def follow_up(self) -> list[str]:
        return [str(common.CONV), "ask", "-c", QUESTION]

    def sizes(self) -> dict:
        return {"store.git": du(self.home / "store.git"), "index": du(self.home / "cache" / "index.sqlite")}


class Llm:
    name = "llm"

    def __init__(self, conv: Conv, version: str):
        """logs.db with conv's conversations (genllm.py, made once per store
        commit and llm version; then checked with conv's llm importer); a
        working copy of it is what the commands see."""
        self.folder = OUT / f"llm-{conv.size}"
        self.pristine = self.folder / "logs.db"
        store = json.loads((conv.home / "genstore.json").read_text())
        marker = self.folder / "genllm.json"
        made = json.loads(marker.read_text()) if marker.exists() else {}
        if (made.get("source_commit"), made.get("llm")) != (store["commit"], version) or not self.pristine.exists():
            self.folder.mkdir(parents=True, exist_ok=True)
            marker.unlink(missing_ok=True)
            say(f"filling {self.pristine} with {conv.size} conversations through llm {version}'s LogStore")
            out = sh([LLM_VENV / "bin" / "python", GENLLM, "--source", conv.home / "conversations.jsonl",
                      "--db", self.pristine])
            info = {**json.loads(out.strip().splitlines()[-1]), "source_commit": store["commit"]}
            same_texts(self.pristine, conv.home / "conversations.jsonl")
            marker.write_text(json.dumps(info, indent=2) + "\n")
        self.user = self.folder / "user"  # LLM_USER_PATH: a copy of logs.db, the models file
        self.bin = str(LLM_VENV / "bin" / "llm")

    def reset(self, url: str) -> None:
        self.user.mkdir(exist_ok=True)
        shutil.copyfile(self.pristine, self.user / "logs.db")
        (self.user / "extra-openai-models.yaml").write_text(
            f"- model_id: gpt-4o-mini\n  model_name: gpt-4o-mini\n  api_base: {url}\n")

    def env(self) -> dict:
        env = clean_env()
        env["LLM_USER_PATH"] = str(self.user)
        return env

    def follow_up(self) -> list[str]:
        return [self.bin, "-c", QUESTION]


SGPT_KEYS = ("CHAT_CACHE_PATH", "CACHE_PATH", "CHAT_CACHE_LENGTH", "CACHE_LENGTH", "REQUEST_TIMEOUT",
             "DEFAULT_MODEL", "DEFAULT_COLOR", "ROLE_STORAGE_PATH", "DEFAULT_EXECUTE_SHELL_CMD",
             "DISABLE_STREAMING", "CODE_THEME", "OPENAI_FUNCTIONS_PATH", "OPENAI_USE_FUNCTIONS",
             "SHOW_FUNCTIONS_OUTPUT", "API_BASE_URL", "PRETTIFY_MARKDOWN", "USE_LITELLM", "SHELL_INTERACTION",
             "OS_NAME", "SHELL_NAME", "OPENAI_API_KEY")


class Sgpt:
    name = "sgpt"

    def __init__(self, conv: Conv):
        self.folder = OUT / f"sgpt-{conv.size}"
        self.home = self.folder / "home"
        self.chats = self.folder / "chats"
        self.bin = str(SGPT_VENV / "bin" / "sgpt")
        self.configure("http://127.0.0.1:9/v1")  # rewritten with the server's port before use
        store = json.loads((conv.home / "genstore.json").read_text())
        marker = self.folder / "chats.json"
        records = [json.loads(line) for line in open(conv.home / "conversations.jsonl")]
        self.records = {r["id"]: r for r in records}
        made = json.loads(marker.read_text()) if marker.exists() else {}
        if made.get("source_commit") != store["commit"] or not self.chats.is_dir():
            say(f"writing {len(records)} shell-gpt chat files into {self.chats}")
            shutil.rmtree(self.chats, ignore_errors=True)
            self.chats.mkdir(parents=True)
            self.system = sh([SGPT_VENV / "bin" / "python", "-c",
                              "from sgpt.role import DefaultRoles; "
                              "print(DefaultRoles.DEFAULT.get_role().role, end='')"],
                             env=self.env())
            for record in records:
                self.write_chat(record)
            marker.write_text(json.dumps({"source_commit": store["commit"], "chats": len(records),
                                          "system": self.system}, indent=2) + "\n")
        else:
            self.system = made["system"]
        # the chat followed up: the most recently updated conversation, as conv ask -c picks
        self.chat = max(records, key=lambda r: r["turns"][-1]["time"])["id"]

    def configure(self, url: str) -> None:
        """sgpt's config file: everything set, so it never asks for a key or writes defaults."""
        config = self.home / ".config" / "shell_gpt"
        config.mkdir(parents=True, exist_ok=True)
        values = {"CHAT_CACHE_PATH": self.chats, "CACHE_PATH": self.folder / "cache", "CHAT_CACHE_LENGTH": 100,
                  "CACHE_LENGTH": 100, "REQUEST_TIMEOUT": 60, "DEFAULT_MODEL": "gpt-4o-mini",
                  "DEFAULT_COLOR": "magenta", "ROLE_STORAGE_PATH": config / "roles",
                  "DEFAULT_EXECUTE_SHELL_CMD": "false", "DISABLE_STREAMING": "false", "CODE_THEME": "dracula",
                  "OPENAI_FUNCTIONS_PATH": config / "functions", "OPENAI_USE_FUNCTIONS": "false",
                  "SHOW_FUNCTIONS_OUTPUT": "false", "API_BASE_URL": url, "PRETTIFY_MARKDOWN": "true",
                  "USE_LITELLM": "false", "SHELL_INTERACTION": "false", "OS_NAME": "auto", "SHELL_NAME": "auto",
                  "OPENAI_API_KEY": "sk-bench"}
        assert set(values) == set(SGPT_KEYS)
        (config / ".sgptrc").write_text("".join(f"{k}={v}\n" for k, v in values.items()))

    def write_chat(self, record: dict) -> None:
        """One conversation as sgpt stores a chat: json.dump of the messages."""
        messages = [{"role": "system", "content": self.system}]
        messages += [{"role": t["role"], "content": t["content"]} for t in record["turns"]]
        path = self.chats / record["id"]
        with open(path, "w") as f:
            json.dump(messages, f)
        os.utime(path, (record["turns"][-1]["time"],) * 2)

    def reset(self, url: str) -> None:
        self.configure(url)
        self.write_chat(self.records[self.chat])  # drop what earlier follow-ups added

    def env(self) -> dict:
        env = clean_env(extra_drop=SGPT_KEYS)  # sgpt lets the environment override its config
        env["HOME"] = str(self.home)
        return env

    def follow_up(self) -> list[str]:
        return [self.bin, "--no-cache", "--chat", self.chat, QUESTION]


def same_texts(db: Path, source: Path) -> None:
    """The logs.db read back with conv's own llm importer (bench_manage's check)."""
    from bench_manage import same_as_store

    same_as_store(db, source)


# -- the run ------------------------------------------------------------------------------


def machine(versions: dict) -> dict:
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    conv_rev = subprocess.run(["git", "-C", str(common.ROOT), "describe", "--always", "--dirty"],
                              capture_output=True, text=True).stdout.strip()
    return {"cores": os.cpu_count(), "cpu": cpu, "system": f"{platform.system()} {platform.release()}",
            "python": platform.python_version(), "conv": conv_rev, **versions,
            "load_start": os.getloadavg()}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20, help="measured runs of each command (after a warm-up)")
    p.add_argument("--sizes", default="10,1000,10000",
                   help="store sizes for the follow-up (the first and last are the table's; the largest is "
                        "used for listing, search and size)")
    p.add_argument("--png", type=Path, default=common.ROOT / "docs" / "benchmarks.png")
    p.add_argument("--no-plot", dest="plot", action="store_false", help="the table alone (no matplotlib)")
    p.add_argument("--no-aggressive", dest="aggressive", action="store_false",
                   help="skip the extra size row: a copy of store.git after git gc --aggressive (about a minute)")
    p.add_argument("--plot-only", type=Path, metavar="RESULTS_JSON", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.plot_only:  # runs in the plot venv, with matplotlib
        plot(json.loads(a.plot_only.read_text()), a.png)
        return {}
    sizes = sorted({int(s) for s in a.sizes.split(",")})
    big = sizes[-1]
    started = time.perf_counter()
    OUT.mkdir(parents=True, exist_ok=True)

    venv(LLM_VENV, ["llm"], "import llm", "llm")
    venv(SGPT_VENV, ["shell-gpt", "click>=8,<9"],  # importing sgpt reads (or asks for) its config: not here
         "import click, openai, typer, importlib.metadata as m; m.version('shell-gpt')", "shell-gpt")
    if a.plot:
        venv(PLOT_VENV, ["matplotlib"], "import matplotlib", "matplotlib")
    versions = {"llm": version_in(LLM_VENV, "llm"), "shell-gpt": version_in(SGPT_VENV, "shell-gpt")}
    info = machine(versions)
    say(f"{info['cores']} cores ({info['cpu']}), load average {info['load_start'][0]:.2f}; python {info['python']}, "
        f"llm {versions['llm']}, shell-gpt {versions['shell-gpt']}, conv {info['conv']}")

    t = time.perf_counter()
    tools = {}
    for size in sizes:
        conv = Conv(size)
        tools[size] = (conv, Llm(conv, versions["llm"]), Sgpt(conv))
    say(f"stores ready in {time.perf_counter() - t:.0f} s")
    conv, llm, sgpt = tools[big]
    disk = {"conv": conv.sizes(), "llm": {"logs.db": du(llm.pristine)}, "sgpt": {"chat files": du(sgpt.chats)}}
    disk["conv pack"] = pack_by_type(conv.home / "store.git")
    # what a deeper delta search makes of the same history (conv gc runs git gc with a delta window of 50)
    if a.aggressive:
        copy = OUT / "aggressive.git"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(conv.home / "store.git", copy, symlinks=True)
        t = time.perf_counter()
        sh(["git", "--git-dir", copy, "gc", "--aggressive", "--prune=now", "--quiet"])
        disk["conv"]["store.git, gc --aggressive"] = du(copy)
        shutil.rmtree(copy)
        say(f"git gc --aggressive on a copy of store.git: {time.perf_counter() - t:.0f} s")
    raw_text = sum(len(t["content"].encode()) for r in sgpt.records.values() for t in r["turns"])

    results = {"machine": info, "runs": a.runs, "sizes": sizes, "disk": disk, "raw_text": raw_text,
               "measures": {}, "server": {}}
    m = results["measures"]
    with common.fake_server() as url:
        for c, l, s in tools.values():
            l.reset(url)
            s.reset(url)
        say(f"fake server at {url}; measuring, {a.runs} runs of each command (load average "
            f"{os.getloadavg()[0]:.2f})")
        m["start"] = round_robin({
            "python": ([common.PYTHON, "-c", "pass"], clean_env()),
            "conv": ([str(common.CONV), "--help"], conv.env()),
            "llm": ([llm.bin, "--help"], llm.env()),
            "sgpt": ([sgpt.bin, "--help"], sgpt.env()),
        }, a.runs)
        say(f"--help done (load average {os.getloadavg()[0]:.2f})")
        for size in sizes:
            c, l, s = tools[size]
            server = common.server_round_trip(url)
            results["server"][str(size)] = server["median"]
            m[f"follow-up {size}"] = round_robin({
                "conv": (c.follow_up(), c.env(url)),
                "llm": (l.follow_up(), l.env()),
                "sgpt": (s.follow_up(), s.env()),
            }, a.runs)
            for got in m[f"follow-up {size}"].values():
                got["overhead"] = [w - server["median"] / 1000 for w in got["wall"]]
            say(f"follow-up at {size} done (server {server['median']:.1f} ms; load average "
                f"{os.getloadavg()[0]:.2f})")
    m["list"] = round_robin({
        "conv": ([str(common.CONV), "list", "-n", "50"], conv.env()),
        "llm": ([llm.bin, "logs", "list", "-n", "50"], llm.env()),
        "sgpt": ([sgpt.bin, "--list-chats"], sgpt.env()),
    }, a.runs)
    say(f"listing done (load average {os.getloadavg()[0]:.2f})")
    for label, word in (("search common", COMMON_WORD), ("search rare", RARE_WORD)):
        m[label] = round_robin({
            "conv": ([str(common.CONV), "search", word], conv.env()),
            "llm": ([llm.bin, "logs", "-q", word], llm.env()),
        }, a.runs)
    say(f"search done (load average {os.getloadavg()[0]:.2f})")
    results["hits"] = {word: len(json.loads(subprocess.run(  # exit 1: nothing found, [] printed
        [str(common.CONV), "search", word, "-n", str(big), "--json"], env=conv.env(), capture_output=True,
        text=True).stdout)) for word in (COMMON_WORD, RARE_WORD)}
    info["load_end"] = os.getloadavg()
    info["seconds"] = time.perf_counter() - started

    table = render(results)
    print("\n" + table, flush=True)
    (OUT / "table.md").write_text(table)
    (OUT / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    if a.plot:
        a.png.parent.mkdir(parents=True, exist_ok=True)
        sh([PLOT_VENV / "bin" / "python", __file__, "--plot-only", OUT / "results.json", "--png", a.png],
           env=scratch_env())
    say(f"plot: {a.png if a.plot else 'none'}; results: {OUT / 'results.json'}, {OUT / 'table.md'}; "
        f"{info['seconds']:.0f} s in all")
    return results


# -- the table and the plot -----------------------------------------------------------------------


def render(results: dict) -> str:
    m, info, sizes = results["measures"], results["machine"], results["sizes"]
    small, big = sizes[0], sizes[-1]
    lines = [
        f"Medians of {results['runs']} cold runs each (ms, wall time; CPU time in parentheses); "
        f"ratio = conv / peer, below 1 means conv is faster or smaller.",
        "",
        "| measure | conv | llm | sgpt | conv/llm | conv/sgpt | goal | met? |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]

    def cell(got: dict | None, key: str = "wall") -> str:
        if got is None:
            return "n/a"
        return f"{median_ms(got[key]):.0f} ({median_ms(got['cpu']):.0f})"

    def ratio(a: dict | None, b: dict | None, key: str = "wall") -> str:
        if a is None or b is None:
            return "n/a"
        return f"{median_ms(a[key]) / median_ms(b[key]):.2f}"

    def row(label: str, got: dict, key: str = "wall", goal: str = "", met: str = "") -> None:
        c, l, s = got.get("conv"), got.get("llm"), got.get("sgpt")
        lines.append(f"| {label} | {cell(c, key)} | {cell(l, key)} | {cell(s, key)} | {ratio(c, l, key)} | "
                     f"{ratio(c, s, key)} | {goal} | {met} |")

    row("cold start: `--help`", m["start"])
    for size in (small, big):
        got = m[f"follow-up {size}"]
        c = median_ms(got["conv"]["overhead"])
        ok = all(c <= GOAL_FOLLOW_UP * median_ms(got[peer]["overhead"]) for peer in ("llm", "sgpt"))
        row(f"follow-up overhead @{size:,}: `conv ask -c` · `llm -c` · `sgpt --chat ID`",
            got, "overhead", "≤ 0.25 of each", "yes" if ok else "**no**")
    got = m["list"]
    row(f"list @{big:,}: `conv list -n 50` · `llm logs list -n 50` · `sgpt --list-chats`", got, "wall",
        "faster than llm", "yes" if median_ms(got["conv"]["wall"]) < median_ms(got["llm"]["wall"]) else "**no**")
    hits = results.get("hits", {})
    for label, word in (("search common", COMMON_WORD), ("search rare", RARE_WORD)):
        got = m[label]
        row(f"search @{big:,}: `conv search {word}` · `llm logs -q {word}` ({hits.get(word, '?')} conversations match)",
            got, "wall", "faster than llm",
            "yes" if median_ms(got["conv"]["wall"]) < median_ms(got["llm"]["wall"]) else "**no**")
    d = results["disk"]
    git_b, index_b = d["conv"]["store.git"], d["conv"]["index"]
    llm_b, sgpt_b = d["llm"]["logs.db"], d["sgpt"]["chat files"]

    def mb(n: int) -> str:
        return f"{n / 1e6:.1f} MB"

    sized = [(f"on disk @{big:,}: conv store.git (after git gc, as `conv gc` leaves it)", git_b, True),
             (f"on disk @{big:,}: conv store.git + index.sqlite ({mb(index_b)})", git_b + index_b, True)]
    if "store.git, gc --aggressive" in d["conv"]:
        sized.append((f"on disk @{big:,}: conv store.git after `git gc --aggressive` (a copy; for reference)",
                      d["conv"]["store.git, gc --aggressive"], False))
    for label, conv_b, judged in sized:
        goal, met = ("no larger than logs.db", "yes" if conv_b <= llm_b else "**no**") if judged else ("", "")
        lines.append(f"| {label} | {mb(conv_b)} | {mb(llm_b)} | {mb(sgpt_b)} | {conv_b / llm_b:.2f} | "
                     f"{conv_b / sgpt_b:.2f} | {goal} | {met} |")
    load_end = info.get("load_end", info["load_start"])
    lines += [
        "",
        f"Reference: a bare `python -c pass` {cell(m['start']['python'])} ms; the fake server's streamed answer "
        + ", ".join(f"{v:.1f} ms @{int(k):,}" for k, v in results["server"].items())
        + f" (median warm round trip, subtracted from the follow-ups' wall time). The texts of the "
        f"{big:,} conversations come to {mb(results['raw_text'])} of UTF-8; store.git's pack holds "
        + ", ".join(f"{kind}s {mb(n)}" for kind, n in sorted(d.get("conv pack", {}).items(), key=lambda x: -x[1]))
        + ".",
        "",
        f"Machine: {info['cores']} cores ({info['cpu'] or 'unknown CPU'}), {info['system']}; load average "
        f"{info['load_start'][0]:.2f} at the start, {load_end[0]:.2f} at the end; Python {info['python']}, "
        f"llm {info['llm']}, shell-gpt {info['shell-gpt']}, conv {info['conv']}; "
        f"{info.get('seconds', 0):.0f} s in all.",
    ]
    # follow-up at every size, for the plot's numbers
    lines += ["", "Follow-up overhead at every store size (median ms; p90 in parentheses):", "",
              "| conversations | conv | llm | sgpt |", "|---:|---:|---:|---:|"]
    for size in sizes:
        got = m[f"follow-up {size}"]
        lines.append(f"| {size:,} | " + " | ".join(
            f"{common.stats(got[t]['overhead'])['median']:.0f} ({common.stats(got[t]['overhead'])['p90']:.0f})"
            for t in ("conv", "llm", "sgpt")) + " |")
    return "\n".join(lines) + "\n"


def plot(results: dict, png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    sizes = results["sizes"]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    for tool, style in (("conv", "o-"), ("llm", "s-"), ("sgpt", "^-")):
        med, low, high = [], [], []
        for size in sizes:
            samples = sorted(results["measures"][f"follow-up {size}"][tool]["overhead"])
            st = common.stats(samples)
            med.append(st["median"])
            low.append(st["median"] - samples[0] * 1000)
            high.append(st["p90"] - st["median"])
        ax.errorbar(sizes, med, yerr=[low, high], fmt=style, capsize=3, label=tool)
        for x, y in zip(sizes, med):
            ax.annotate(f"{y:.0f}", (x, y), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xticks(sizes)
    ax.set_xticklabels([f"{s:,}" for s in sizes])
    ax.set_xlim(sizes[0] / 1.6, sizes[-1] * 2.2)  # room for the labels
    ax.set_ylim(bottom=0)
    ax.set_xlabel("stored conversations (5 turns each)")
    ax.set_ylabel("follow-up overhead, ms (wall − server)")
    info = results["machine"]
    ax.set_title(f"Follow-up overhead, cold process: median (bar: min to p90), n={results['runs']}\n"
                 f"{info['cores']} cores, load {info['load_start'][0]:.1f}; llm {info['llm']}, "
                 f"shell-gpt {info['shell-gpt']}", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(png)


if __name__ == "__main__":
    main()
