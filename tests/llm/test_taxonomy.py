"""GNN-CB failure modes assigned by rules, with evidence."""

from __future__ import annotations

import pytest

from evaluator.llm import taxonomy
from evaluator.llm.report import low_scoring


def _tb(*frames: tuple[str, str], exc: str) -> str:
    lines = ["Traceback (most recent call last):"]
    for file, source in frames:
        lines += [f'  File "{file}", line 10, in <module>', f"    {source}"]
    return "\n".join(lines + [exc]) + "\n"


TORCH = "<python>/lib/python3.11/site-packages/torch/nn/functional.py"


@pytest.mark.parametrize(("stderr", "mode"), [
    (_tb(("./solution.py", "from dgl.nn import GraphConv"),
         exc="ModuleNotFoundError: No module named 'dgl'"), "dependency"),
    (_tb(("./solution.py", "out = model(data.x, edge_index)"), (TORCH, "return op(x)"),
         exc="IndexError: index 2708 is out of bounds for dimension 0 with size 2708"),
     "graph_construction"),
    (_tb(("./solution.py", "h = self.lin(x)"), (TORCH, "return F.linear(x, w)"),
         exc="RuntimeError: mat1 and mat2 shapes cannot be multiplied (2708x1433 and 1432x16)"),
     "feature_processing"),
    (_tb(("./solution.py", 'y = labels["node_id"]'), exc="KeyError: 'node_id'"),
     "indexing_data_reading"),
    (_tb(("./solution.py", 'g = df["graph_id"]'), exc="KeyError: 'graph_id'"),
     "indexing_data_reading"),
    (_tb(("./solution.py", "x = feats[rows]"),
         exc="IndexError: index 2708 is out of bounds for axis 0 with size 2708"),
     "feature_processing"),
    (_tb(("./solution.py", "y = labels[i]"), exc="IndexError: list index out of range"),
     "indexing_data_reading"),
    (_tb(("./solution.py", 'pd.read_csv("data/train.csv")'),
         exc="FileNotFoundError: [Errno 2] No such file or directory: 'data/train.csv'"),
     "indexing_data_reading"),
    (_tb(("./solution.py", "urlretrieve(URL, 'cora.zip')"),
         exc="urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name "
             "resolution>"), "network"),
    ('  File "./solution.py", line 3\n    def f(:\n          ^\n'
     "SyntaxError: invalid syntax\n", "other_code_error"),
    (_tb(("./solution.py", "blocks.append(bytearray(n))"), exc="MemoryError"), "memory"),
])
def test_tracebacks_are_classified(stderr, mode):
    found = taxonomy.classify_traceback(stderr)
    assert found.mode == mode
    assert found.evidence  # always says why


def test_evidence_names_the_exception_and_the_failing_line():
    stderr = _tb(("./solution.py", "out = model(data.x, edge_index)"), (TORCH, "return op(x)"),
                 exc="IndexError: index 5 is out of bounds")
    evidence = taxonomy.classify_traceback(stderr).evidence
    assert evidence == ("IndexError: index 5 is out of bounds | at: out = model(data.x, "
                        "edge_index)")


@pytest.mark.parametrize(("kwargs", "mode"), [
    ({"parse_status": "missing_code", "exit_reason": None}, "response_format"),
    ({"parse_status": "truncated", "exit_reason": None}, "response_format"),
    ({"exit_reason": "timeout"}, "timeout"),
    ({"exit_reason": "cpu"}, "timeout"),
    ({"exit_reason": "memory"}, "memory"),
    ({"exit_reason": "ok", "check_message": "predictions.csv was not written"},
     "malformed_submission"),
    ({"exit_reason": "killed"}, "other_code_error"),
])
def test_attempt_outcomes_are_classified(kwargs, mode):
    args = {"parse_status": "ok", "stderr": "", "check_message": "", "valid": False, **kwargs}
    assert taxonomy.classify_attempt(**args).mode == mode


def test_valid_attempt_has_no_failure():
    assert taxonomy.classify_attempt(parse_status="ok", exit_reason="ok", stderr="",
                                     check_message="", valid=True) is None


FILES = ["data/edges.csv", "data/nodes.csv", "data/train_labels.csv", "data/test_ids.csv"]


@pytest.mark.parametrize(("code", "mode"), [
    ('pd.read_csv("data/nodes.csv")', "graph_construction"),
    ('pd.read_csv("data/edges.csv"); labels = pd.read_csv("data/train_labels.csv")',
     "feature_processing"),
    ('read("data/edges.csv"); read("data/nodes.csv")', "model_selection"),
])
def test_low_scores_are_attributed_to_the_ignored_input(code, mode):
    assert taxonomy.classify_low_score(code, FILES).mode == mode


def test_severe_gap_is_thirty_points_below_the_best_llm(tmp_path):
    def run(name: str, score: float, higher: bool = True):
        folder = tmp_path / name
        (folder / "attempt-1").mkdir(parents=True)
        (folder / "attempt-1" / "solution.py").write_text('open("data/nodes.csv")')
        return folder, {"slug": "c", "primary_score": "f1", "scores": {"f1": score},
                        "higher_is_better": higher, "attempts": 1, "data_files": FILES}

    runs = [run("best", 0.90), run("close", 0.61), run("severe", 0.60)]
    flagged = low_scoring(runs)
    assert [p.name for p in flagged] == ["severe"]
    assert flagged[runs[2][0]].mode == "graph_construction"
    # MAE-like scores (lower is better) have no "points" to compare
    assert low_scoring([run("a", 0.1, False), run("b", 0.9, False)]) == {}


# ----------------------------------------------------------------------------- valid, low-score
# Hand-labelled solutions for a Cora-like competition (what GNN-CB's error analysis found by
# reading code): the label is what a reviewer reading the code would write.
CORA_FILES = ["data/nodes.csv", "data/features.npz", "data/edges.csv", "data/train_labels.csv",
              "data/test_ids.csv"]
CORA_NOTES = {"data/edges.csv": "`src,dst`: 5,278 undirected citation links between paper ids, "
                                "each once.",
              "data/features.npz": "binary CSR matrix, row i = the paper in row i of nodes.csv"}
_READ = '''
import numpy as np, pandas as pd, scipy.sparse as sp, torch
nodes = pd.read_csv("data/nodes.csv")
X = sp.load_npz("data/features.npz").toarray()
train = pd.read_csv("data/train_labels.csv")
test = pd.read_csv("data/test_ids.csv")
idx = {nid: i for i, nid in enumerate(nodes["id"])}
'''
_GOOD_EDGES = '''
edges = pd.read_csv("data/edges.csv")
src = edges["src"].map(idx).to_numpy(); dst = edges["dst"].map(idx).to_numpy()
edge_index = torch.tensor(np.stack([np.r_[src, dst], np.r_[dst, src]]))
'''
_GCN = '''
from torch_geometric.nn import GCNConv
x = torch.tensor(X, dtype=torch.float)
model = GCNConv(x.shape[1], 7)
out = model(x, edge_index)
'''
LABELLED = [
    ("mlp_no_graph", _READ + "from sklearn.neural_network import MLPClassifier\n"
     "clf = MLPClassifier().fit(X[train.index], train.label)\n", "", "graph_construction"),
    ("edges_loaded_unused", _READ + 'edges = pd.read_csv("data/edges.csv")\n'
     "edge_index = torch.empty((2, 0), dtype=torch.long)\n" + _GCN, "", "graph_construction"),
    ("one_direction", _READ + 'edges = pd.read_csv("data/edges.csv")\n'
     "src = edges['src'].map(idx).values; dst = edges['dst'].map(idx).values\n"
     "edge_index = torch.tensor(np.stack([src, dst]))\n" + _GCN, "", "graph_construction"),
    ("raw_ids_as_rows", _READ.replace("idx = {nid: i for i, nid in enumerate(nodes[\"id\"])}\n",
                                      "") +
     'edges = pd.read_csv("data/edges.csv")\n'
     "edge_index = torch.tensor(edges[['src', 'dst']].values.T) % len(nodes)\n"
     "from torch_geometric.utils import to_undirected\nedge_index = to_undirected(edge_index)\n"
     + _GCN, "", "graph_construction"),
    ("tuples_reversed_ok", _READ + "pairs = []\nwith open('data/edges.csv') as fh:\n"
     "    next(fh)\n    for line in fh:\n        a, b = map(int, line.split(','))\n"
     "        pairs.append((idx[a], idx[b])); pairs.append((idx[b], idx[a]))\n"
     "edge_index = torch.tensor(pairs).T\n" + _GCN, "", "model_selection"),
    ("features_never_read", _READ.replace('X = sp.load_npz("data/features.npz").toarray()\n',
                                          "X = np.eye(len(nodes))\n") + _GOOD_EDGES
     + _GCN.replace("x = torch.tensor(X, dtype=torch.float)", "x = torch.tensor(X)"), "",
     "feature_processing"),
    ("constant_features", _READ + _GOOD_EDGES + "x = torch.ones(len(nodes), 16)\n"
     "from torch_geometric.nn import GCNConv\nout = GCNConv(16, 7)(x, edge_index)\n", "",
     "feature_processing"),
    ("overfit_validation", _READ + _GOOD_EDGES + _GCN, "epoch 200 train_loss 0.01 "
     "val_acc: 0.93\n", "model_selection"),
    ("networkx_graph_ok", _READ + "import networkx as nx\n"
     'edges = pd.read_csv("data/edges.csv")\nG = nx.Graph()\n'
     "G.add_edges_from(zip(edges.src.map(idx), edges.dst.map(idx)))\n"
     "edge_index = torch.tensor(list(G.to_directed().edges)).T\n" + _GCN, "",
     "model_selection"),
    ("pyg_undirected_ok", _READ + 'edges = pd.read_csv("data/edges.csv")\n'
     "ei = torch.tensor(np.stack([edges.src.map(idx), edges.dst.map(idx)]))\n"
     "from torch_geometric.utils import to_undirected\nedge_index = to_undirected(ei)\n" + _GCN,
     "val_acc: 0.52\n", "model_selection"),
]


def test_low_score_taxonomy_confusion_on_hand_labelled_solutions():
    confusion: dict[tuple[str, str], list[str]] = {}
    for name, code, stdout, truth in LABELLED:
        found = taxonomy.classify_low_score(code, CORA_FILES, stdout=stdout,
                                            file_notes=CORA_NOTES, score=0.45)
        assert found.evidence
        confusion.setdefault((truth, found.mode), []).append(name)
    wrong = {k: v for k, v in confusion.items() if k[0] != k[1]}
    assert wrong == {}, wrong
    # GNN-CB's main failure mode is reachable from code that reads both graph and features
    assert len(confusion[("graph_construction", "graph_construction")]) == 4


def test_low_score_evidence_names_the_file_and_the_variable():
    _, code, _, _ = LABELLED[1]
    found = taxonomy.classify_low_score(code, CORA_FILES, file_notes=CORA_NOTES)
    assert found.evidence.startswith("reads edges.csv into edges but never uses it")
    _, code, stdout, _ = LABELLED[7]
    found = taxonomy.classify_low_score(code, CORA_FILES, stdout=stdout, file_notes=CORA_NOTES,
                                        score=0.45)
    assert "validation score 0.93" in found.evidence and "0.450" in found.evidence
