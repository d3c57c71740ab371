"""cuda_support.yaml (issue 24): every op of ops.yaml declares a CUDA kernel or why it has none,
codegen refuses a missing or unknown entry, and only an unsupported op's binding carries the CUDA
guard (the supported ones pay nothing). The guard itself runs on a GPU: test_cuda_unsupported.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
CORE = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def codegen():  # noqa: ANN201
    sys.path.insert(0, str(CORE / "codegen"))
    try:
        import cuda_support
        import gen
        from schema import load_ops

        doc = yaml.safe_load((CORE / "ops.yaml").read_text())
        for extra in sorted((CORE / "ops").glob("*.yaml")):
            more = yaml.safe_load(extra.read_text()) or {}
            doc["ops"].extend(more.get("ops") or [])
        yield gen, cuda_support, load_ops(doc), load_ops
    finally:
        sys.path.remove(str(CORE / "codegen"))


def _support() -> dict:
    return yaml.safe_load((CORE / "cuda_support.yaml").read_text())


def test_every_op_has_a_status(codegen) -> None:  # noqa: ANN001
    _, cs, ops, _ = codegen
    status = cs.load_cuda_support(_support(), ops)
    assert set(status) == {op.schema.full_name for op in ops}
    unsupported = {k for k, v in status.items() if not v.kernel}
    # the LAPACK ops run through the host (no kernel, no meta), a few others on their kernels
    assert {"eigvals", "svd", "inv", "lu_perm"} <= {k for k, v in status.items() if v.host} <= unsupported
    runs = {"mm", "add", "sum", "sum.dim_IntList", "softmax", "conv2d", "multinomial", "poisson", "_unique2",
            "angle", "polar", "complex", "reflection_pad2d", "replication_pad3d_backward",
            "repeat_interleave.self_int", "repeat_interleave.self_Tensor", "upsample_bilinear2d", "grid_sampler_2d"}
    assert not runs & unsupported
    assert {"mm", "add", "sum.dim_IntList", "softmax", "conv2d"} <= set(status)
    assert all(v.reason for v in status.values() if not v.kernel)


def test_entries_are_well_formed() -> None:
    for key, value in _support().items():
        assert value == "kernel" or (isinstance(value, dict) and len(value) == 1), key
        if isinstance(value, dict) and "kernel" in value:
            assert isinstance(value["kernel"], list), key


def _tiny(load_ops):  # noqa: ANN001, ANN202
    return load_ops({"ops": [
        {"func": "frob(Tensor self) -> Tensor", "family": "custom"},
        {"func": "frob.other(Tensor self, Tensor other) -> Tensor", "family": "custom"},
        {"func": "glorp(Tensor[] tensors) -> Tensor", "family": "custom",
         "variants": ["function", "out"]},
    ]})


def test_a_missing_op_fails_the_build(codegen) -> None:  # noqa: ANN001
    _, cs, _, load_ops = codegen
    with pytest.raises(SystemExit, match=r"no CUDA status for glorp \(add"):
        cs.load_cuda_support({"frob": {"kernel": ["reduce"]}}, _tiny(load_ops))


def test_an_unknown_entry_fails_the_build(codegen) -> None:  # noqa: ANN001
    _, cs, _, load_ops = codegen
    doc = {"frob": "kernel", "glorp": "kernel", "frobnicate": {"unsupported": "x"}, "frob.nope": "kernel"}
    with pytest.raises(SystemExit, match=r"entries for ops that do not exist: frob\.nope, frobnicate"):
        cs.load_cuda_support(doc, _tiny(load_ops))


@pytest.mark.parametrize("value", ["yes", {"unsupported": ""}, {"kernel": "reduce"}, {"kernel": [], "x": 1}, None,
                                   {"host": ""}])
def test_a_malformed_entry_fails_the_build(codegen, value) -> None:  # noqa: ANN001
    _, cs, _, load_ops = codegen
    with pytest.raises(SystemExit, match="cuda_support.yaml: frob: expected"):
        cs.load_cuda_support({"frob": value, "glorp": "kernel"}, _tiny(load_ops))


def test_an_overload_entry_wins_over_the_name(codegen) -> None:  # noqa: ANN001
    _, cs, _, load_ops = codegen
    doc = {"frob": "kernel", "frob.other": {"unsupported": "reads other on the host"}, "glorp": "kernel"}
    status = cs.load_cuda_support(doc, _tiny(load_ops))
    assert status["frob"].kernel and not status["frob.other"].kernel
    assert status["frob.other"].reason == "reads other on the host"


def test_aten_names(codegen) -> None:  # noqa: ANN001
    _, cs, ops, _ = codegen
    by = {op.schema.full_name: op for op in ops}
    assert cs.aten_name(by["eigvals"]) == "aten::linalg_eigvals"
    assert cs.aten_name(by["add"], "inplace") == "aten::add_"
    assert cs.aten_name(by["sum.dim_IntList"]) == "aten::sum.dim_IntList"
    assert cs.aten_name(by["multinomial"]) == "aten::multinomial"


def test_only_unsupported_bindings_carry_the_guard(codegen) -> None:  # noqa: ANN001
    gen, cs, _, load_ops = codegen
    tiny = _tiny(load_ops)
    status = cs.load_cuda_support({"frob": "kernel", "frob.other": {"unsupported": 'say "no"'},
                                   "glorp": {"unsupported": "no"}}, tiny)
    frob = "\n".join(gen.gen_binding_fn("frob", tiny[:2], "function", status))
    body0, body1 = frob.split("case 1:")
    assert "check_no_cuda" not in body0  # the supported overload: nothing added
    guard = 'check_no_cuda(A, {0, 1, 2}, "aten::frob.other", "say \\"no\\"");'
    assert guard in body1 and body1.index(guard) < body1.index("ember::frob")  # out= (2) too
    # Tensor[] and out= are looked at too
    glorp = "\n".join(gen.gen_binding_fn("glorp", tiny[2:], "function", status))
    assert 'check_no_cuda(A, {0, 1}, "aten::glorp", "no");' in glorp
    # every binding renames the CUDA table's error after its op, in a handler only
    assert 'rethrow_naming_op(e_, "aten::frob");' in frob


def test_host_bindings_refuse_meta_only(codegen) -> None:  # noqa: ANN001
    gen, cs, _, load_ops = codegen
    tiny = _tiny(load_ops)
    status = cs.load_cuda_support({"frob": {"host": "via the CPU"}, "glorp": "kernel"}, tiny)
    assert status["frob"].host and status["frob"].reason == "via the CPU" and not status["frob"].kernel
    frob = "\n".join(gen.gen_binding_fn("frob", tiny[:2], "function", status))
    assert 'check_no_meta(A, {0, 1}, "aten::frob");' in frob and "check_no_cuda" not in frob  # out= (1) too


def test_the_op_list_says_which_ops_have_no_cuda_kernel() -> None:
    ops = pytest.importorskip("ember._op_list").OPS
    rows = {(r["name"], r["overload"]): r for r in ops}
    assert rows[("eigvals", "")]["cuda_unsupported"] is None
    assert rows[("eigvals", "")]["cuda_host"].startswith("LAPACK on the host")
    assert rows[("mm", "")]["cuda_unsupported"] is None and rows[("mm", "")]["cuda_host"] is None
