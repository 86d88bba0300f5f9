"""GNN-CB's failure taxonomy, assigned by rules over tracebacks, checks and code.

Why rules: GNN-CB attributed its 20 severe failures by manual inspection to incorrect graph
construction (8), feature processing (7), indexing or data reading (3) and unsuitable model
selection (2). Rules make that attribution repeatable for every failed attempt of every
campaign. They are heuristics and say so: every label carries the evidence it was derived from
(the exception line, the failing source line, or the data file the code never opened), so a
reader can check and overrule it.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

MODES = {
    "graph_construction": "graph construction (edges, adjacency, edge_index, node indexing "
                          "of the graph)",
    "feature_processing": "feature processing or utilization (shapes, dtypes, NaN, scaling)",
    "indexing_data_reading": "indexing or data reading (files, columns, ids, alignment)",
    "model_selection": "unsuitable model selection (valid file, severe under-performance)",
    "malformed_submission": "malformed submission (predictions.csv missing or invalid)",
    "timeout": "time limit (wall clock or CPU time)",
    "memory": "memory limit",
    "response_format": "no runnable code in the answer (missing <code>, truncated)",
    "dependency": "library not installed or import error",
    "network": "network use (downloads) in a sandbox without network",
    "other_code_error": "other coding error (syntax, names, types)",
}
# GNN-CB's definition of severe under-performance: 30 points below the best LLM on the task.
SEVERE_GAP = 0.30

_EXC_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*(?:Error|error|Exception|Exit|Interrupt|Warning)"
                       r"|KeyError|StopIteration)(?::\s*(?P<msg>.*))?$")
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line \d+')
_NETWORK = re.compile(r"Network is unreachable|Temporary failure in name resolution|Name or "
                      r"service not known|urlopen error|gaierror|Max retries exceeded|"
                      r"HTTPSConnectionPool|HTTPConnectionPool|ConnectionRefusedError|"
                      r"No address associated with hostname|socket\.connect|create_connection")
_READING = ("FileNotFoundError", "EmptyDataError", "ParserError", "UnicodeDecodeError",
            "IsADirectoryError", "NotADirectoryError")
_GRAPH = re.compile(r"edge_index|edge_attr|\bscatter|\bedges?\b|adjacen|\badj\w*|networkx|\bnx\.|"
                    r"num_nodes|\bgraph|to_undirected|coalesce|add_self_loops|from_scipy|"
                    r"csr_matrix|coo_matrix|sparse|\bneighbou?r", re.IGNORECASE)
_FEATURE = re.compile(r"mat1 and mat2|cannot be multiplied|shapes? .*(?:mismatch|not aligned)|"
                      r"could not convert|Input (?:X )?contains (?:NaN|infinity)|"
                      r"expected scalar type|\bdtype|\bfeatures?\b|\bfeat\w*|StandardScaler|"
                      r"normali[sz]|one.?hot|embedding|found array with \d+ feature",
                      re.IGNORECASE)
_INDEXING = ("KeyError", "IndexError")
_INDEX_MSG = re.compile(r"not in index|out of bounds|index \d+ is out|out of range|"
                        r"\.loc|\.iloc|merge|\bcolumns?\b|Length of values", re.IGNORECASE)
_DEPENDENCY = ("ModuleNotFoundError", "ImportError")
_SYNTAX = ("SyntaxError", "IndentationError", "TabError", "NameError")
_GRAPH_FILE = re.compile(r"edge|adj|graph|link|network|triple|relation", re.IGNORECASE)
_FEATURE_FILE = re.compile(r"node|feat|attr|\bx\b", re.IGNORECASE)


@dataclass(frozen=True)
class Classification:
    mode: str  # a key of MODES
    evidence: str

    def as_dict(self) -> dict[str, str]:
        return {"mode": self.mode, "evidence": self.evidence}


def exception_of(stderr: str) -> tuple[str, str]:
    """(type, message) of the last exception line of a Python traceback, or ("", "")."""
    for line in reversed(stderr.strip().splitlines()):
        match = _EXC_LINE.match(line.strip())
        if match:
            return match.group("type").rsplit(".", 1)[-1], (match.group("msg") or "").strip()
    return "", ""


def failing_source(stderr: str, solution: str = "solution.py") -> str:
    """The source line of the innermost traceback frame inside the solution file."""
    lines = stderr.splitlines()
    found = ""
    for i, line in enumerate(lines):
        match = _FRAME.match(line)
        if match and PurePosixPath(match.group("file")).name == solution and i + 1 < len(lines):
            following = lines[i + 1].strip()
            if not _FRAME.match(lines[i + 1]):
                found = following
    return found


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def classify_traceback(stderr: str) -> Classification:
    """A failed run's stderr -> the most specific mode the rules can justify."""
    exc, msg = exception_of(stderr)
    source = failing_source(stderr)
    evidence = _short(f"{exc}: {msg}" if exc else (stderr.strip().splitlines() or [""])[-1])
    if source:
        evidence += f" | at: {_short(source, 120)}"
    if exc in _DEPENDENCY:
        return Classification("dependency", evidence)
    if _NETWORK.search(stderr):
        return Classification("network", evidence)
    if exc in _READING or exc == "KeyError":  # a missing column or id, whatever its name
        return Classification("indexing_data_reading", evidence)
    if exc == "MemoryError":
        return Classification("memory", evidence)
    if exc in _SYNTAX:
        return Classification("other_code_error", evidence)
    # the exception's own message is stronger evidence than the line it surfaced on: a
    # dtype or shape error raised inside `model(x, edge_index)` is about the features
    for text in (msg, source):
        if _GRAPH.search(text):
            return Classification("graph_construction", evidence)
        if _FEATURE.search(text):
            return Classification("feature_processing", evidence)
    if exc in _INDEXING or _INDEX_MSG.search(msg):
        return Classification("indexing_data_reading", evidence)
    return Classification("other_code_error", evidence)


def classify_attempt(*, parse_status: str, exit_reason: str | None, stderr: str,
                     check_message: str, valid: bool) -> Classification | None:
    """None for a successful attempt; else the failure mode with its evidence."""
    if valid:
        return None
    if parse_status in ("missing_code", "truncated"):
        return Classification("response_format", f"parse status {parse_status}")
    if exit_reason in ("timeout", "cpu"):
        return Classification("timeout", f"exit reason {exit_reason}")
    if exit_reason == "memory":
        return Classification("memory", "exit reason memory")
    if exit_reason == "ok":
        first = check_message.strip().splitlines()[:2]
        return Classification("malformed_submission", _short(" ".join(first)))
    if exit_reason == "killed":
        return Classification("other_code_error", "killed by a signal")
    return classify_traceback(stderr)


_REVERSE = re.compile(
    r"to_undirected|ToUndirected|is_undirected|\.flip\(|\[\s*::\s*-1|\[\s*\[\s*1\s*,\s*0\s*\]|"
    r"symmetri|\.T\b\s*[+|]|\+\s*\w+\.T\b|nx\.Graph\(|from_pandas_edgelist|"
    r"(?:dst|target|col|v)\w*\s*,\s*(?:src|source|row|u)\w*\s*\]|"
    r"concat(?:enate)?\(\s*\[\s*(?:src|dst)\w*\s*,\s*(?:dst|src)\w*|"
    r"[(\[]\s*([\w.\[\]]+)\s*,\s*([\w.\[\]]+)\s*[)\]][\s\S]{0,200}?"
    r"[(\[]\s*\2\s*,\s*\1\s*[)\]]",  # (u, v) ... (v, u), also [s, d] ... [d, s]
    re.IGNORECASE)
_ID_MAP = re.compile(
    r"\.map\(|get_indexer|factorize|LabelEncoder|searchsorted|\.index\(|reindex|"
    r"\{\s*\w+\s*:\s*\w+\s+for\s+\w+\s*,\s*\w+\s+in\s+enumerate|"
    r"dict\(\s*zip\(|id_?2_?idx|id_to|idx_of|index_of|node_index|relabel|merge\(|"
    r"\.loc\[|groupby|convert_node_labels", re.IGNORECASE)
_CONSTANT_X = re.compile(
    r"\bx\s*=\s*(?:torch|np)\.(?:ones|zeros|eye|rand|randn|full|arange)\b|"
    r"\bx\s*=\s*torch\.nn\.Embedding|\bx\s*=\s*F\.one_hot\(\s*torch\.arange",
    re.IGNORECASE)
_VALIDATION = re.compile(r"\b(?:val(?:idation)?[\w ]*?)(?:f1|acc(?:uracy)?|auc|score)\w*"
                         r"\s*[:=]\s*(?P<value>[01](?:\.\d+)?)", re.IGNORECASE)
_BUILDS_GRAPH = re.compile(r"edge_index|\badj\w*\s*=|add_edges_from|from_\w*edgelist|"
                           r"(?:coo|csr)_(?:matrix|array)|sparse_coo_tensor|Graph\(",
                           re.IGNORECASE)
_ONCE = re.compile(r"listed once|each once|\bonce\b.*undirected|undirected.*\bonce\b|"
                   r"add the reverse", re.IGNORECASE)


def _names_loading(tree: ast.AST, filename: str) -> dict[str, int]:
    """Variables assigned from an expression that mentions `filename` -> their line."""
    stem = PurePosixPath(filename).stem
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        value, targets = None, []
        if isinstance(node, ast.Assign):
            value, targets = node.value, node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            value, targets = node.value, [node.target]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            value, targets = node.context_expr, [node.optional_vars]
        if value is None:
            continue
        literal = " ".join(n.value for n in ast.walk(value)
                           if isinstance(n, ast.Constant) and isinstance(n.value, str))
        if filename in literal or (stem and re.search(rf"\b{re.escape(stem)}\b", literal)):
            for t in targets:
                for name in ast.walk(t):
                    if isinstance(name, ast.Name):
                        found[name.id] = getattr(node, "lineno", 0)
    return found


def _unused(tree: ast.AST, names: dict[str, int]) -> list[str]:
    loads = Counter(n.id for n in ast.walk(tree)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    return [name for name in names if loads[name] == 0]


def _best_validation(stdout: str) -> float | None:
    values = [float(m.group("value")) for m in _VALIDATION.finditer(stdout or "")]
    values = [v for v in values if 0.0 <= v <= 1.0]
    return max(values) if values else None


_EDGE_PARAM = re.compile(r"^(?:edge_index|edges?|adj\w*|a_hat|graph|g|ei)$", re.IGNORECASE)
_GRAPH_ARG = re.compile(r"edge|adj|graph|^ei$|^a_hat$|^a$|^g$", re.IGNORECASE)
_POSITIONAL = re.compile(r"\[\s*:\s*len\(\s*[\w.\[\]\"']+\s*\)\s*\]|"
                         r"arange\(\s*len\(\s*\w*(?:train|test|val|label)\w*\s*\)",
                         re.IGNORECASE)
_COLUMN_SELECT = re.compile(r"\.drop\(|\.iloc\[|\.loc\[|\[\s*\[|\[\s*\w*col\w*\s*\]|"
                            r"select_dtypes|filter\(", re.IGNORECASE)
_LABELS = "<labels>"


def _names_in(node: ast.AST | None) -> set[str]:
    return set() if node is None else {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _flow(tree: ast.AST, label_frames: set[str], id_like: re.Pattern[str]) -> dict[str, set[str]]:
    """name -> the names it is computed from, over every assignment in the program (flow- and
    order-insensitive: a name depends on everything it is ever assigned from). A subscript of a
    labels frame by a target column (`train["label"]`) counts as the pseudo-name <labels>;
    `a[i] = v` makes `a` depend on `i` and `v`; a bare method call `g.add_edges_from(v)` or
    `lst.append(v)` makes the object depend on its arguments."""
    deps: dict[str, set[str]] = {}

    def sources(value: ast.AST | None) -> set[str]:
        found = _names_in(value)
        for sub in ast.walk(value) if value is not None else ():
            if (isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name)
                    and sub.value.id in label_frames):
                keys = [c.value for c in ast.walk(sub.slice)
                        if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                if any(not id_like.search(k) for k in keys):
                    found.add(_LABELS)
        return found

    def bind(target: ast.AST, value_sources: set[str]) -> None:
        if isinstance(target, ast.Subscript | ast.Attribute):
            base = target.value
            while isinstance(base, ast.Subscript | ast.Attribute):
                base = base.value
            extra = sources(target.slice) if isinstance(target, ast.Subscript) else set()
            if isinstance(base, ast.Name):
                deps.setdefault(base.id, set()).update(value_sources | extra)
            return
        for name in _names_in(target):
            deps.setdefault(name, set()).update(value_sources)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                bind(t, sources(node.value))
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            bind(node.target, sources(node.value))
        elif isinstance(node, ast.For | ast.comprehension):
            bind(node.target, sources(node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bind(node.optional_vars, sources(node.context_expr))
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and isinstance(node.value.func, ast.Attribute)
              and isinstance(node.value.func.value, ast.Name)):
            # a call made for its effect on the object: lst.append(v), G.add_edges_from(...)
            call = node.value
            for arg in [*call.args, *(k.value for k in call.keywords)]:
                deps.setdefault(call.func.value.id, set()).update(sources(arg))
    return deps


def _closure(deps: dict[str, set[str]], seeds: set[str]) -> set[str]:
    """Every name computed, directly or not, from one of `seeds`."""
    tainted = set(seeds)
    changed = True
    while changed:
        changed = False
        for name, comes_from in deps.items():
            if name not in tainted and comes_from & tainted:
                tainted.add(name)
                changed = True
    return tainted


def _ancestors(deps: dict[str, set[str]], names: set[str]) -> set[str]:
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(deps.get(name, ()))
    return seen


def _graph_calls(tree: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """(node features, graph) argument pairs of message-passing calls: `f(x, edge_index)` with
    a graph-named second argument, and `Data(x=..., edge_index=...)`."""
    pairs = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if len(node.args) >= 2:
            second = node.args[1]
            name = (second.id if isinstance(second, ast.Name) else
                    second.attr if isinstance(second, ast.Attribute) else "")
            if name and _GRAPH_ARG.search(name):
                pairs.append((node.args[0], second))
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if "edge_index" in keywords:
            pairs.append((keywords.get("x"), keywords["edge_index"]))
    return pairs


def _ignored_graph_parameter(tree: ast.AST) -> str:
    """`def forward(self, x, edge_index)` whose body never reads edge_index: an MLP in
    disguise."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in ("forward", "__call__"):
            used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Load)}
            for arg in node.args.args[1:]:
                if _EDGE_PARAM.match(arg.arg) and arg.arg not in used:
                    return f"{node.name}() takes {arg.arg} but never uses it"
    return ""


def _columns_read(tree: ast.AST, frames: set[str]) -> set[str]:
    """String keys with which the program indexes any of `frames` (`edges["src"]`)."""
    found = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and node.value.id in frames):
            found.update(c.value for c in ast.walk(node.slice)
                         if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return found


def _segments(code: str, tree: ast.AST, names: set[str]) -> str:
    """The source of every assignment to one of `names` (the chain that builds them)."""
    parts = []
    for node in ast.walk(tree):
        targets = (node.targets if isinstance(node, ast.Assign) else
                   [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For)
                   else [])
        grows = (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                 and isinstance(node.func.value, ast.Name) and node.func.value.id in names)
        if grows or any(_names_in(t) & names for t in targets):
            parts.append(ast.get_source_segment(code, node) or "")
    return "\n".join(parts)


def classify_low_score(code: str, data_files: list[str], *, stdout: str = "",
                       file_notes: Mapping[str, str] | None = None,
                       score: float | None = None) -> Classification:
    """A valid but severely under-performing solution: what in its use of the inputs explains
    it? Evidence comes from the program text and the spec's description of the files, read
    statically (names followed through assignments), in this order:

    graph construction: graph files never opened, or read and never used; a `forward(x,
    edge_index)` that never reads edge_index; a graph passed to the model that is not computed
    from the graph file (e.g. a k-NN graph of the features); only one endpoint column of the
    edge file read (self loops); undirected edges listed once and never reversed; edge ids
    used as row positions with no id-to-row mapping on the way from the file to edge_index;
    feature processing: feature files never opened, node features replaced by constants, an
    `id` column fed in as a feature, training labels flowing into the input features
    (target leakage); indexing: labels or predictions placed on rows by position
    (`pred[:len(test)]`) instead of by id; model selection: a printed validation score far
    above the test score, or none of the above.

    What the program prints is evidence of what it *claims*, never a verdict: a line such as
    "val_acc: 0.99" only says the program computed that number on rows it chose (perhaps its
    training rows). It is used for one thing, the gap between that claim and the hidden-test
    `score`, and the evidence text quotes it as printed."""
    notes = {PurePosixPath(k).name: v for k, v in (file_notes or {}).items()}
    names = [PurePosixPath(f).name for f in data_files]
    graph_files = [n for n in names if _GRAPH_FILE.search(n)]
    feature_files = [n for n in names if _FEATURE_FILE.search(n) and n not in graph_files]
    label_files = [n for n in names if re.search(r"label|train", n, re.IGNORECASE)
                   and n not in graph_files and n not in feature_files]
    used_graph = [n for n in graph_files if n in code or PurePosixPath(n).stem in code]
    if graph_files and not used_graph:
        return Classification("graph_construction",
                              f"never opens the graph file(s) {', '.join(graph_files)}")
    try:
        tree: ast.AST | None = ast.parse(code)
    except SyntaxError:
        tree = None
    graph_frames: set[str] = set()
    deps: dict[str, set[str]] = {}
    if tree is not None:
        for name in used_graph:
            loaded = _names_loading(tree, name)
            graph_frames |= set(loaded)
            unused = _unused(tree, loaded)
            if loaded and len(unused) == len(loaded):
                return Classification(
                    "graph_construction",
                    f"reads {name} into {', '.join(sorted(unused))} but never uses it: the "
                    "model sees no edges")
        ignored = _ignored_graph_parameter(tree)
        if ignored:
            return Classification("graph_construction",
                                  f"{ignored}: the model is an MLP, the edges never reach it")
        label_frames = {v for n in label_files for v in _names_loading(tree, n)}
        deps = _flow(tree, label_frames, re.compile(r"\bid\b|_id$|^id", re.IGNORECASE))
        from_graph = _closure(deps, graph_frames)
        sinks = {a.id for _, a in _graph_calls(tree) if isinstance(a, ast.Name)
                 and a.id in deps}
        if graph_frames and sinks and not sinks & from_graph:
            return Classification(
                "graph_construction",
                f"the graph passed to the model ({', '.join(sorted(sinks))}) is not computed "
                f"from {used_graph[0]}: the file is read, but the edges the model sees come "
                "from elsewhere")
        columns = _columns_read(tree, graph_frames)
        for a, b in (("src", "dst"), ("source", "target")):
            note = notes.get(used_graph[0], "") if used_graph else ""
            if a in note and b in note and (a in columns) != (b in columns):
                only = a if a in columns else b
                return Classification(
                    "graph_construction",
                    f"reads only the `{only}` column of {used_graph[0]} (never "
                    f"`{b if only == a else a}`): the edges it builds are not the file's")
    once = [n for n in used_graph if _ONCE.search(notes.get(n, ""))]
    if once and not _REVERSE.search(code):
        return Classification(
            "graph_construction",
            f"{once[0]} lists each undirected edge once and the code never adds the reverse "
            "direction: messages flow one way only")
    if used_graph and _BUILDS_GRAPH.search(code):
        chain = code
        if tree is not None and graph_frames:
            sinks = {a.id for _, a in _graph_calls(tree) if isinstance(a, ast.Name)}
            path = _ancestors(deps, sinks) & _closure(deps, graph_frames)
            chain = _segments(code, tree, path) if path else code
        if not _ID_MAP.search(chain) and not _id_map_used(tree, chain):
            return Classification(
                "graph_construction",
                f"builds the graph from {used_graph[0]} with no id-to-row mapping: node ids are "
                "used as row positions")
    used_feat = [n for n in feature_files if n in code or PurePosixPath(n).stem in code]
    if feature_files and not used_feat:
        return Classification("feature_processing",
                              f"never opens the feature file(s) {', '.join(feature_files)}")
    constant = _CONSTANT_X.search(code)
    if constant:
        return Classification("feature_processing",
                              f"replaces the node features with constants ({constant.group(0)})")
    if tree is not None:
        for name in used_feat:
            if "`id`" not in notes.get(name, "") and "graph_id" not in notes.get(name, ""):
                continue
            for frame in _names_loading(tree, name):
                whole = re.search(rf"\b{re.escape(frame)}\s*\.\s*(?:values|to_numpy\(\))", code)
                reshaped = re.search(rf"\b{re.escape(frame)}\s*=\s*{re.escape(frame)}\b", code)
                if whole and not reshaped:
                    return Classification(
                        "feature_processing",
                        f"feeds every column of {name} ({whole.group(0)}) to the model, "
                        "including its id column")
        inputs = {x.id for x, _ in _graph_calls(tree) if isinstance(x, ast.Name)}
        leaked = sorted(inputs & _closure(deps, {_LABELS}))
        if leaked:
            return Classification(
                "feature_processing",
                f"the training labels flow into the model's input features ({leaked[0]}): "
                "target leakage, the label signal is absent for test nodes")
    positional = _POSITIONAL.search(code)
    if positional:
        return Classification(
            "indexing_data_reading",
            f"places labels or predictions by row position ({positional.group(0)}) instead "
            "of through the ids")
    best_val = _best_validation(stdout)
    if best_val is not None and score is not None and best_val - score >= SEVERE_GAP:
        return Classification("model_selection",
                              f"validation score {best_val:g} printed, test score {score:.3f}: "
                              "the chosen model does not generalise (the printed score is the "
                              "program's own claim, on rows it chose)")
    claim = f"; it prints a validation score of {best_val:g}" if best_val is not None else ""
    return Classification("model_selection", "reads the graph and features; the model itself "
                          f"under-performs{claim}")


def _id_map_used(tree: ast.AST | None, chain: str) -> bool:
    """Does the chain look nodes up in a dictionary built as an id -> row map (a dict
    comprehension over enumerate, or dict(zip(...)))?"""
    if tree is None:
        return False
    maps = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            value = node.value
            is_map = (isinstance(value, ast.DictComp) and any(
                isinstance(g.iter, ast.Call) and isinstance(g.iter.func, ast.Name)
                and g.iter.func.id == "enumerate" for g in value.generators)) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id == "dict")
            if is_map:
                maps |= {n.id for t in node.targets for n in ast.walk(t)
                         if isinstance(n, ast.Name)}
    return any(re.search(rf"\b{re.escape(m)}\s*[\[.(]|map\(\s*{re.escape(m)}\b", chain)
               for m in maps)
