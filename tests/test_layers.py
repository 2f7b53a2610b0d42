"""The package's import direction: layers from top to bottom, no import running back up, no circle.

    agent (facade, CLI)  ->  graph (state, nodes, builder, policies)  ->  services  ->  memory, ontology  ->  core
    prompts sit on memory and ontology; eval sits above agent; nodes never import other nodes;
    policies never import nodes. The library (``Memory``, ``CaimAgent``) reaches the graph only
    through its builder, state types and services: the operations it shares with the graph's steps
    (search, bounds, profile, records) are the service layer's, below both.

Every ``import caim.…`` in the source (function-level ones included) is checked, so a lazy import
cannot hide a circle. The memory store is the only door to storage: no module outside ``memory``
reaches for a store's database or vector index (an attribute ``.db`` or ``.vectors``).

Inside ``memory`` the rooms are by job: ``storage`` (the store, the record database, SQL, vectors,
migrations, jobs, locks), ``text`` (text analysis, one module per language), ``reading`` (the
reader), ``search`` (ranked retrieval), and the memory domain beside them (records, capture,
maintenance, profile, intents, ...). Storage reads no language: the words of a record are read for
its indexes by the indexer the store is given (``caim.memory.indexing``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "testing", "memory", "ontology", "prompts", "services", "graph", "agent", "eval")

#: What each top-level package may import besides itself.
ALLOWED = {
    "core": set(),  # the bottom: the scripted provider's model and the fault points live here
    "testing": {"core"},  # test doubles (the simulated endpoint) on top of core; no source package imports them
    "ontology": {"core"},
    "memory": {"core"},
    "prompts": {"core", "memory", "ontology"},
    "services": {"core", "memory", "ontology"},  # what the graph's steps and the library share
    "graph": {"core", "memory", "ontology", "prompts", "services"},
    "agent": {"core", "memory", "ontology", "prompts", "services", "graph"},  # the library: no surface
    "surfaces": {"core", "memory", "ontology", "prompts", "services", "graph", "agent"},  # the CLI, the servers, the UI
    "eval": {"core", "memory", "ontology", "prompts", "services", "graph", "agent"},
}
#: Rooms inside a package, checked as packages of their own: module prefix -> room.
ROOMS = {"caim.agent.surfaces": "surfaces"}

#: The rooms of ``memory`` (``caim.memory.<room>``); its other modules are the memory domain.
MEMORY_ROOMS = ("storage", "text", "reading", "search")
#: What each room of ``memory`` may import of the others: rooms, or single domain modules by name.
MEMORY_ALLOWED = {
    "storage": {"records", "profile"},  # the types it stores; never text analysis, search or the rest of the domain
    "text": {"records"},  # the record's time helpers
    "reading": {"text"},
    "search": {"storage", "text", "domain"},
    "domain": {"storage", "text", "reading", "search"},
}

NODES = {"intake", "controller", "retrieval", "respond", "post_thinking"}
#: The library's modules, and the only graph modules they may import (no step: the graphs are built
#: by the builder, and what the library shares with the steps is the service layer's).
LIBRARY = ("caim.agent.memory", "caim.agent.facade")
GRAPH_DOORS = {"caim.graph.builder", "caim.graph.state", "caim.graph.services"}
#: What the search engine never imports: it reads storage through ``SearchStore`` alone.
SEARCH_BANS = ("caim.memory.storage", "caim.memory.search.retrieval")
#: Where code uses the memory store only through its methods.
STORE_USERS = ("services", "graph", "agent", "eval", "benchmarks", "examples")
#: The store's parts behind its door.
STORAGE = {"db", "vectors"}


def _module(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return "caim." + ".".join(parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("caim."))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("caim."):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the caim modules it imports ("from caim.x import y" counts caim.x and, if it is a
    module, caim.x.y)."""
    modules = {_module(root, p): p for pkg in PACKAGES for p in (root / pkg).rglob("*.py")}
    return {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}


def _package(module: str) -> str:
    for prefix, room in ROOMS.items():
        if module == prefix or module.startswith(prefix + "."):
            return room
    return module.split(".")[1]


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    return [
        f"{src} imports {dst}"
        for src, dsts in edges.items()
        for dst in sorted(dsts)
        if _package(dst) != _package(src) and _package(dst) not in ALLOWED[_package(src)]
    ]


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if n.startswith(m + "."):  # a package's __init__ re-exporting its own modules
                continue
            if state.get(n) == 1:
                return [*stack[stack.index(n) :], n]
            if not state.get(n) and (found := visit(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if not state.get(m) and (found := visit(m)):
            return found
    return None


def test_no_import_runs_up_a_layer():
    wrong = upward_imports(import_graph())
    assert not wrong, "\n".join(wrong)


def _room(module: str) -> tuple[str, str] | None:
    """(room, module name inside ``memory``) of a ``caim.memory`` module; None outside ``memory``."""
    parts = module.split(".")
    if parts[1] != "memory":
        return None
    name = parts[2] if len(parts) > 2 else "__init__"
    return (name if name in MEMORY_ROOMS else "domain"), name


def crossed_rooms(edges: dict[str, set[str]]) -> list[str]:
    """Imports between ``memory``'s rooms that ``MEMORY_ALLOWED`` does not allow."""
    wrong = []
    for src, dsts in edges.items():
        here = _room(src)
        for dst in sorted(dsts):
            there = _room(dst)
            if here is None or there is None or there[0] == here[0]:
                continue
            if there[0] not in MEMORY_ALLOWED[here[0]] and there[1] not in MEMORY_ALLOWED[here[0]]:
                wrong.append(f"{src} imports {dst}")
    return wrong


def test_memory_rooms_import_only_what_they_may():
    """Storage imports no text analysis, search or domain logic; text analysis imports no storage."""
    wrong = crossed_rooms(import_graph())
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_storage_reading_text(tmp_path):
    for pkg in PACKAGES:
        (tmp_path / pkg).mkdir()
    for room in ("storage", "text", "search"):
        (tmp_path / "memory" / room).mkdir()
    (tmp_path / "memory" / "records.py").write_text("x = 1\n")
    (tmp_path / "memory" / "text" / "lang.py").write_text("from caim.memory.records import x\n")
    (tmp_path / "memory" / "storage" / "db.py").write_text(
        "from caim.memory.records import x\ndef f():\n    from caim.memory.text.lang import detect\n"
    )
    (tmp_path / "memory" / "search" / "engine.py").write_text("import caim.memory.storage.db\n")
    assert crossed_rooms(import_graph(tmp_path)) == ["caim.memory.storage.db imports caim.memory.text.lang"]


def test_no_import_circle():
    cycle = find_cycle(import_graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_nodes_never_import_nodes_and_policies_never_import_nodes():
    nodes = {f"caim.graph.{n}" for n in NODES}
    for src, dsts in import_graph().items():
        if src in nodes or src.startswith("caim.graph.policies"):
            assert not (dsts & nodes), f"{src} imports a node module: {sorted(dsts & nodes)}"


def test_the_checks_see_a_planted_upward_import_and_circle(tmp_path):
    for pkg in PACKAGES:
        (tmp_path / pkg).mkdir()
    (tmp_path / "core" / "x.py").write_text("def f():\n    from caim.graph.y import z\n")  # lazy, still seen
    (tmp_path / "graph" / "y.py").write_text("from caim.core.x import f\nz = 1\n")
    edges = import_graph(tmp_path)
    assert upward_imports(edges) == ["caim.core.x imports caim.graph.y"]
    assert find_cycle(edges) == ["caim.core.x", "caim.graph.y", "caim.core.x"]


def graph_steps_reached(edges: dict[str, set[str]]) -> list[str]:
    """Each import of a graph module other than the builder, state and services by a library module."""
    return [
        f"{src} imports {dst}"
        for src in LIBRARY
        for dst in sorted(edges.get(src, ()))
        if _package(dst) == "graph" and dst not in GRAPH_DOORS
    ]


def test_the_library_imports_no_graph_step():
    reached = graph_steps_reached(import_graph())
    assert not reached, "call the service layer (caim.services) instead:\n" + "\n".join(reached)


def test_the_check_sees_a_planted_graph_step_in_the_library(tmp_path):
    for pkg in PACKAGES:
        (tmp_path / pkg).mkdir()
    (tmp_path / "agent" / "memory.py").write_text(
        "from caim.graph.builder import build\nfrom caim.graph.retrieval import ranked_search\n"
    )
    (tmp_path / "agent" / "facade.py").write_text("def f():\n    from caim.graph.env import Env\n")
    for name in ("builder", "retrieval", "env"):
        (tmp_path / "graph" / f"{name}.py").write_text("build = ranked_search = Env = 1\n")
    assert graph_steps_reached(import_graph(tmp_path)) == [
        "caim.agent.memory imports caim.graph.retrieval",
        "caim.agent.facade imports caim.graph.env",
    ]


def search_reaches(root: Path = ROOT) -> list[str]:
    """Where the search engine (``memory/search``) reads past ``SearchStore``: a store's ``.db`` or
    ``.vectors`` anywhere in it, or - outside the ``Retriever`` (``retrieval.py``, which prepares a
    user's search from its caches) - an import of storage or of the retriever (no call back into it)."""
    found = []
    for path in sorted((root / "memory" / "search").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in STORAGE and ast.unparse(node.value).endswith("store"):
                found.append(f"{path.relative_to(root)}:{node.lineno} {ast.unparse(node)}")
        if path.name != "retrieval.py":
            banned = {m for m in _imports(path) if m.startswith(SEARCH_BANS)}
            banned = {m for m in banned if m.rsplit(".", 1)[0] not in banned}  # the module, not each name
            found += [f"{path.relative_to(root)} imports {m}" for m in sorted(banned)]
    return found


def test_the_search_reads_through_one_interface():
    reached = search_reaches()
    assert not reached, "read through SearchStore (MemoryStore implements it):\n" + "\n".join(reached)


def test_the_check_sees_a_planted_reach_past_the_search_interface(tmp_path):
    (tmp_path / "memory" / "search").mkdir(parents=True)
    (tmp_path / "memory" / "search" / "e.py").write_text(
        "from caim.memory.search.retrieval import Retriever\ndef f(s):\n    return s.store.db.stats()\n"
    )
    (tmp_path / "memory" / "search" / "retrieval.py").write_text("from caim.memory.storage.store import Store\n")
    assert search_reaches(tmp_path) == [
        "memory/search/e.py:3 s.store.db",
        "memory/search/e.py imports caim.memory.search.retrieval",
    ]


def test_the_library_imports_no_surface(tmp_path):
    """The library (``caim.agent``) is below its surfaces (``caim.agent.surfaces``): a surface imports the
    library, never the other way."""
    for pkg in PACKAGES:
        (tmp_path / pkg).mkdir()
    (tmp_path / "agent" / "surfaces").mkdir()
    (tmp_path / "agent" / "lib.py").write_text("def f():\n    from caim.agent.surfaces.srv import g\n")
    (tmp_path / "agent" / "surfaces" / "srv.py").write_text("from caim.agent.lib import f\ng = 1\n")
    (tmp_path / "eval" / "run.py").write_text("import caim.agent.surfaces.srv\nfrom caim.agent.lib import f\n")
    assert upward_imports(import_graph(tmp_path)) == [
        "caim.agent.lib imports caim.agent.surfaces.srv",
        "caim.eval.run imports caim.agent.surfaces.srv",
    ]
    assert {
        m: _package(m) for m in ("caim.agent", "caim.agent.memory", "caim.agent.surfaces", "caim.agent.surfaces.ui.app")
    } == {
        "caim.agent": "agent",
        "caim.agent.memory": "agent",
        "caim.agent.surfaces": "surfaces",
        "caim.agent.surfaces.ui.app": "surfaces",
    }


def storage_reached(root: Path = ROOT) -> list[str]:
    """Every attribute access ``X.db`` / ``X.vectors`` (a store's database or vector index) outside ``memory``."""
    found = []
    for pkg in STORE_USERS:
        for path in sorted((root / pkg).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Attribute) and node.attr in STORAGE:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {ast.unparse(node)}")
    return found


def test_only_the_store_reaches_storage():
    reached = storage_reached()
    assert not reached, "use MemoryStore's methods instead:\n" + "\n".join(reached)


def test_the_check_sees_a_planted_reach_into_storage(tmp_path):
    for pkg in STORE_USERS:
        (tmp_path / pkg).mkdir()
    (tmp_path / "graph" / "n.py").write_text("def f(env):\n    return env.svc.store.db.jobs(), env.store.vectors\n")
    (tmp_path / "agent" / "ok.py").write_text("def g(store):\n    return store.queue.pending(), 'chat.db'\n")
    assert sorted(storage_reached(tmp_path)) == ["graph/n.py:2 env.store.vectors", "graph/n.py:2 env.svc.store.db"]


def test_importing_the_graphs_state_types_builds_no_graph():
    """Only the module langgraph.json names (caim.graph.studio) builds a graph on import."""
    import subprocess
    import sys

    code = (
        "from langgraph.graph import StateGraph\n"
        "def refuse(*a, **k):\n"
        "    raise SystemExit('a graph was built on import')\n"
        "StateGraph.compile = refuse\n"
        "import caim.graph.state, caim.graph, caim.graph.builder, caim.agent.memory, caim.agent.facade\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
