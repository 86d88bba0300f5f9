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
_GRAPH = re.compile(r"edge_index|edge_attr|\bedges?\b|adjacen|\badj\w*|networkx|\bnx\.|"
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
    if _GRAPH.search(msg) or _GRAPH.search(source):
        return Classification("graph_construction", evidence)
    if _FEATURE.search(msg) or _FEATURE.search(source):
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
    r"\(\s*([\w.\[\]]+)\s*,\s*([\w.\[\]]+)\s*\)[\s\S]{0,200}?"
    r"\(\s*\2\s*,\s*\1\s*\)",  # (u, v) ... (v, u)
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


def classify_low_score(code: str, data_files: list[str], *, stdout: str = "",
                       file_notes: Mapping[str, str] | None = None,
                       score: float | None = None) -> Classification:
    """A valid but severely under-performing solution: what in its use of the inputs explains
    it? Evidence, in order: graph files never opened or read and never used; undirected edges
    listed once and never reversed; edge ids used as row positions with no id-to-index
    mapping; feature files never opened or replaced by constants; a validation score far above
    the test score (over-fitting, model selection); else the model itself."""
    notes = {PurePosixPath(k).name: v for k, v in (file_notes or {}).items()}
    names = [PurePosixPath(f).name for f in data_files]
    graph_files = [n for n in names if _GRAPH_FILE.search(n)]
    feature_files = [n for n in names if _FEATURE_FILE.search(n) and n not in graph_files]
    used_graph = [n for n in graph_files if n in code or PurePosixPath(n).stem in code]
    if graph_files and not used_graph:
        return Classification("graph_construction",
                              f"never opens the graph file(s) {', '.join(graph_files)}")
    try:
        tree: ast.AST | None = ast.parse(code)
    except SyntaxError:
        tree = None
    if tree is not None:
        for name in used_graph:
            loaded = _names_loading(tree, name)
            unused = _unused(tree, loaded)
            if loaded and len(unused) == len(loaded):
                return Classification(
                    "graph_construction",
                    f"reads {name} into {', '.join(sorted(unused))} but never uses it: the "
                    "model sees no edges")
    once = [n for n in used_graph if _ONCE.search(notes.get(n, ""))]
    if once and not _REVERSE.search(code):
        return Classification(
            "graph_construction",
            f"{once[0]} lists each undirected edge once and the code never adds the reverse "
            "direction: messages flow one way only")
    if used_graph and _BUILDS_GRAPH.search(code) and not _ID_MAP.search(code):
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
    best_val = _best_validation(stdout)
    if best_val is not None and score is not None and best_val - score >= SEVERE_GAP:
        return Classification("model_selection",
                              f"validation score {best_val:g} printed, test score {score:.3f}: "
                              "the chosen model does not generalise")
    return Classification("model_selection", "reads the graph and features; the model itself "
                          "under-performs")
