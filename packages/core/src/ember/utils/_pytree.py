"""``torch.utils._pytree``: nested containers (tuples, lists, dicts, namedtuples, OrderedDict, defaultdict,
deque and registered classes) flattened to a list of leaves plus a ``TreeSpec`` that rebuilds them.

Private in PyTorch, but model libraries register their output classes here (``register_pytree_node``)
and use ``tree_map`` / ``tree_flatten`` directly, so ``import ember as torch`` needs it.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

Context = Any
FlattenFunc = Callable[[Any], tuple[list[Any], Context]]
UnflattenFunc = Callable[[Iterable[Any], Context], Any]
PyTree = Any


class NodeDef(NamedTuple):
    type: type
    flatten_fn: FlattenFunc
    unflatten_fn: UnflattenFunc
    flatten_with_keys_fn: Callable[[Any], tuple[list[tuple[Any, Any]], Context]] | None


SUPPORTED_NODES: dict[Any, NodeDef] = {}
SUPPORTED_SERIALIZED_TYPES: dict[Any, Any] = {}


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, seq: Any) -> Any:
        return seq[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping: Any) -> Any:
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj: Any) -> Any:
        return getattr(obj, self.name)


def keystr(kp: tuple[Any, ...]) -> str:
    """The path of key entries as one accessor string, e.g. ``['a'][1]``."""
    return "".join(str(k) for k in kp)


def register_pytree_node(cls: type, flatten_fn: FlattenFunc, unflatten_fn: UnflattenFunc, *,
                         serialized_type_name: str | None = None, to_dumpable_context: Any = None,
                         from_dumpable_context: Any = None, flatten_with_keys_fn: Any = None) -> None:
    """Teaches the pytree functions to see through ``cls``: ``flatten_fn(obj) -> (children, context)`` and
    ``unflatten_fn(children, context) -> obj``."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
    if serialized_type_name is not None:
        SUPPORTED_SERIALIZED_TYPES[cls] = serialized_type_name


_register_pytree_node = register_pytree_node  # the older private spelling libraries still call


def _namedtuple_marker(*args: Any, **kwargs: Any) -> Any:
    # stands for "every namedtuple class" in SUPPORTED_NODES and as a TreeSpec's type name
    return collections.namedtuple(*args, **kwargs)


_namedtuple_marker.__name__ = _namedtuple_marker.__qualname__ = "namedtuple"


def is_namedtuple_class(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)


def is_namedtuple(obj: Any) -> bool:
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj: Any) -> bool:
    return is_namedtuple_class(type(obj))


def is_structseq_class(cls: Any) -> bool:
    """``torch.return_types``-like classes: tuple subclasses that count their fields (``n_fields``)."""
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and all(isinstance(getattr(cls, a, None), int) for a in ("n_fields", "n_sequence_fields")))


def is_structseq(obj: Any) -> bool:
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_instance(obj: Any) -> bool:
    return is_structseq_class(type(obj))


def _seq_keys(children: list[Any]) -> list[Any]:
    return [SequenceKey(i) for i in range(len(children))]


def _register_builtins() -> None:
    def dict_flatten(d: dict) -> tuple[list[Any], Context]:
        return list(d.values()), list(d.keys())

    reg = register_pytree_node
    reg(tuple, lambda t: (list(t), None), lambda v, c: tuple(v))
    reg(list, lambda t: (list(t), None), lambda v, c: list(v))
    reg(dict, dict_flatten, lambda v, c: dict(zip(c, v)))
    reg(_namedtuple_marker, lambda t: (list(t), type(t)), lambda v, c: c(*v))  # type: ignore[arg-type]
    reg(collections.OrderedDict, dict_flatten, lambda v, c: collections.OrderedDict(zip(c, v)))
    reg(collections.defaultdict, lambda d: (list(d.values()), [d.default_factory, list(d.keys())]),
        lambda v, c: collections.defaultdict(c[0], zip(c[1], v)))
    reg(collections.deque, lambda d: (list(d), d.maxlen), lambda v, c: collections.deque(v, maxlen=c))


def _node_type(tree: Any) -> Any:
    """The SUPPORTED_NODES key for ``tree``, or None for a leaf (namedtuples share one entry)."""
    cls = type(tree)
    if cls in SUPPORTED_NODES:
        return cls
    if is_namedtuple_class(cls):
        return _namedtuple_marker
    if is_structseq_class(cls):  # each return type is its own node type, registered on first sight
        register_pytree_node(cls, lambda t: (list(t), None), lambda v, c: cls(list(v)))
        return cls
    return None


def _flatten_node(tree: Any) -> tuple[Any, list[Any], Context, list[Any]]:
    """(node type, children, context, key entries) of a non-leaf."""
    t = _node_type(tree)
    children, context = SUPPORTED_NODES[t].flatten_fn(tree)
    children = list(children)
    if t in (dict, collections.OrderedDict):
        keys: list[Any] = [MappingKey(k) for k in context]
    elif t is collections.defaultdict:
        keys = [MappingKey(k) for k in context[1]]
    elif t is _namedtuple_marker:
        keys = [GetAttrKey(f) for f in context._fields]
    elif SUPPORTED_NODES[t].flatten_with_keys_fn is not None:
        keys = [k for k, _ in SUPPORTED_NODES[t].flatten_with_keys_fn(tree)[0]]  # type: ignore[misc]
    else:
        keys = _seq_keys(children)
    return t, children, context, keys


def tree_is_leaf(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) is None


class TreeSpec:
    """The shape of a pytree: a node's type, its context (dict keys, namedtuple class, ...) and children."""

    def __init__(self, type: Any, context: Context, children_specs: list[TreeSpec]) -> None:
        self.type = type
        self.context = context
        self.children_specs = children_specs
        self.num_children = len(children_specs)
        self.num_leaves: int = 1 if type is None else sum(c.num_leaves for c in children_specs)
        self.num_nodes: int = 1 + sum(c.num_nodes for c in children_specs)

    def is_leaf(self) -> bool:
        return self.type is None

    def children(self) -> list[TreeSpec]:
        return list(self.children_specs)

    def child(self, index: int) -> TreeSpec:
        return self.children_specs[index]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type == other.type and self.context == other.context
                and self.children_specs == other.children_specs)

    def __hash__(self) -> int:
        return hash((id(self.type), self.num_leaves, self.num_nodes))

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf():
            return "*"
        parts = [c.__repr__(indent + 2) for c in self.children_specs]
        body = f",\n{' ' * (indent + 2)}".join(parts)
        return f"TreeSpec({self.type.__name__}, {self.context!r}, [{body}])"

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                             f"to a pytree that holds {self.num_leaves} items ({self}).")
        it = iter(leaves)

        def build(spec: TreeSpec) -> Any:
            if spec.is_leaf():
                return next(it)
            return SUPPORTED_NODES[spec.type].unflatten_fn([build(c) for c in spec.children_specs], spec.context)

        return build(self)

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """``tree``'s subtrees at this spec's leaf positions (they may be containers themselves)."""
        out: list[Any] = []

        def walk(spec: TreeSpec, sub: Any) -> None:
            if spec.is_leaf():
                out.append(sub)
                return
            t = _node_type(sub)
            if t != spec.type or (t is _namedtuple_marker and type(sub) is not spec.context):
                raise ValueError(f"Node type mismatch; expected {spec.type}, but got {type(sub)}.")
            _, children, context, _ = _flatten_node(sub)
            if len(children) != spec.num_children:
                raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got {len(children)}.")
            if t in (dict, collections.OrderedDict, collections.defaultdict):
                keys = context[1] if t is collections.defaultdict else context
                want_keys = spec.context[1] if t is collections.defaultdict else spec.context
                if set(keys) != set(want_keys):
                    raise ValueError(f"Node keys mismatch; missing key(s): {set(want_keys) - set(keys)}; "
                                     f"extra key(s): {set(keys) - set(want_keys)}.")
                by_key = dict(zip(keys, children))
                children = [by_key[k] for k in want_keys]
            elif context != spec.context:
                raise ValueError(f"Node context mismatch for custom node type {spec.type}.")
            for c, s in zip(children, spec.children_specs):
                walk(s, c)

        walk(self, tree)
        return out


class LeafSpec(TreeSpec):
    def __init__(self) -> None:
        super().__init__(None, None, [])


def treespec_leaf() -> TreeSpec:
    return LeafSpec()


def _flatten(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None, path: tuple[Any, ...],
             leaves: list[Any], paths: list[tuple[Any, ...]] | None) -> TreeSpec:
    if tree_is_leaf(tree, is_leaf):
        leaves.append(tree)
        if paths is not None:
            paths.append(path)
        return LeafSpec()
    t, children, context, keys = _flatten_node(tree)
    specs = [_flatten(c, is_leaf, path + (k,), leaves, paths) for c, k in zip(children, keys)]
    return TreeSpec(t, context, specs)


def tree_flatten(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> tuple[list[Any], TreeSpec]:
    """The leaves of ``tree`` in order, and the spec that rebuilds it (``tree_unflatten``)."""
    leaves: list[Any] = []
    spec = _flatten(tree, is_leaf, (), leaves, None)
    return leaves, spec


def tree_flatten_with_path(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
                           ) -> tuple[list[tuple[tuple[Any, ...], Any]], TreeSpec]:
    leaves: list[Any] = []
    paths: list[tuple[Any, ...]] = []
    spec = _flatten(tree, is_leaf, (), leaves, paths)
    return list(zip(paths, leaves)), spec


def tree_leaves_with_path(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
                          ) -> list[tuple[tuple[Any, ...], Any]]:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but got "
                        f"item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_leaves(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> list[Any]:
    return tree_flatten(tree, is_leaf)[0]


def tree_iter(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> Iterator[Any]:
    return iter(tree_leaves(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
             is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """``func`` applied to every leaf (and the matching subtrees of ``rests``), in the same structure."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat))


def tree_map_(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
              is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """``func`` called on every leaf for its side effects; returns ``tree`` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for args in zip(*flat):
        func(*args)
    return tree


def tree_map_with_path(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
                       is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    flat = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(p, x, *xs) for (p, x), *xs in zip(pairs, *flat))


def _only(types: Any, func: Callable[[Any], Any]) -> Callable[[Any], Any]:
    if isinstance(types, (list, tuple)):
        types = tuple(types)
    return lambda x: func(x) if isinstance(x, types) else x


def tree_map_only(type_or_types: Any, func: Callable[[Any], Any], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    return tree_map(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types: Any, func: Callable[[Any], Any], tree: PyTree,
                   is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    return tree_map_(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return any(map(pred, tree_leaves(tree, is_leaf)))


def tree_all_only(type_or_types: Any, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    types = tuple(type_or_types) if isinstance(type_or_types, (list, tuple)) else type_or_types
    return all(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, types))


def tree_any_only(type_or_types: Any, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    types = tuple(type_or_types) if isinstance(type_or_types, (list, tuple)) else type_or_types
    return any(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, types))


_register_builtins()
