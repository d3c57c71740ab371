"""A pickle interpreter for ``weights_only=True``: it can build tensors and plain data, nothing else.

Written from the pickle opcode specification rather than by subclassing
``pickle.Unpickler``, so there is no path to ``find_class``/``__import__``:

* GLOBAL / STACK_GLOBAL / INST resolve names only through the allow-list
  (``_allowlist.lookup``); anything else is refused with UnpicklingError.
* REDUCE / NEWOBJ / OBJ / INST call only objects the allow-list handed out.
* BUILD sets state only on tensors, OrderedDicts and user-allowed types.
* persistent ids must be ``('storage', ...)`` tuples.
* Every read is bounds-checked; a truncated pickle is an error, not a crash.
"""

from __future__ import annotations

import _compat_pickle
import struct
from collections import Counter, OrderedDict
from collections.abc import Callable
from pickle import UnpicklingError
from typing import Any

from ember.serialization import _allowlist
from ember.serialization._rebuild import make_parameter, set_state

_MISSING = _allowlist._MISSING


def _tensor_class() -> Any:
    from ember._tensor import Tensor

    return Tensor
_unpack_from = struct.unpack_from


def _display_name(full: str) -> str:
    # PyTorch's spelling: builtins.slice -> "slice".
    return full[len("builtins."):] if full.startswith("builtins.") else full


def refused_global(module: str, name: str) -> UnpicklingError:
    full = f"{module}.{name}"
    if module in _allowlist.BLOCKED_MODULES:
        return UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked.")
    shown = _display_name(full)
    return UnpicklingError(
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{shown}])` or the "
        f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this global "
        "if you trust this class/function."
    )


class WeightsUnpickler:
    """Unpickle ``data`` allowing only the weights-only vocabulary."""

    def __init__(self, data: bytes, persistent_load: Callable[[Any], Any], encoding: str = "utf-8",
                 errors: str = "strict") -> None:
        self._data = data
        self._pos = 0
        self._persistent_load = persistent_load
        self._encoding = encoding
        self._errors = errors
        self._memo: dict[int, Any] = {}
        self._stack: list[Any] = []
        self._metastack: list[list[Any]] = []
        self._allowed = _allowlist.allowed_objects()
        self._result: Any = _MISSING

    # ---------------------------------------------------------------- driver
    def load(self) -> Any:
        data, dispatch = self._data, _DISPATCH
        n = len(data)
        try:
            while self._result is _MISSING:
                if self._pos >= n:
                    raise UnpicklingError("pickle data was truncated")
                op = data[self._pos]
                self._pos += 1
                handler = dispatch[op]
                if handler is None:
                    raise UnpicklingError(f"Unsupported operand {op} ({bytes([op])!r}) in a weights-only load")
                handler(self)
        except IndexError:
            raise UnpicklingError("malformed pickle: stack underflow") from None
        return self._result

    # ---------------------------------------------------------------- reading
    def _take(self, n: int) -> bytes:
        start = self._pos
        end = start + n
        if n < 0 or end > len(self._data):
            raise UnpicklingError("pickle data was truncated")
        self._pos = end
        return self._data[start:end]

    def _unpack(self, fmt: str, size: int) -> Any:
        if self._pos + size > len(self._data):
            raise UnpicklingError("pickle data was truncated")
        v = _unpack_from(fmt, self._data, self._pos)[0]
        self._pos += size
        return v

    def _line(self) -> str:
        end = self._data.find(b"\n", self._pos)
        if end < 0:
            raise UnpicklingError("pickle data was truncated")
        raw = self._data[self._pos:end]
        self._pos = end + 1
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise UnpicklingError(f"malformed GLOBAL name {raw!r}") from None

    def _pop_mark(self) -> list[Any]:
        items = self._stack
        if not self._metastack:
            raise UnpicklingError("malformed pickle: could not find MARK")
        self._stack = self._metastack.pop()
        return items

    # ---------------------------------------------------------------- names and calls
    def _find(self, module: Any, name: Any) -> Any:
        if type(module) is not str or type(name) is not str:
            raise UnpicklingError("STACK_GLOBAL requires str module and name")
        if (module, name) in _compat_pickle.NAME_MAPPING:  # Python 2 spellings (protocol < 3)
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        if module in _allowlist.BLOCKED_MODULES:
            raise refused_global(module, name)
        obj = _allowlist.lookup(module, name)
        if obj is _MISSING:
            raise refused_global(module, name)
        self._allowed[id(obj)] = obj
        return obj

    def _check_callable(self, func: Any) -> None:
        # ember.Tensor is allowed as a type name but never called: Tensor(n) would allocate n elements.
        if self._allowed.get(id(func)) is not func or func is _tensor_class():
            raise UnpicklingError(f"Trying to call reduce for unrecognized function {func!r}")

    def _instantiate(self, cls: Any, args: Any, kwargs: Any = None) -> Any:
        self._check_callable(cls)
        if type(args) is not tuple or (kwargs is not None and type(kwargs) is not dict):
            raise UnpicklingError("NEWOBJ arguments must be a tuple (and a dict)")
        if cls is make_parameter:
            return make_parameter(*args, **(kwargs or {}))
        if not isinstance(cls, type):
            raise UnpicklingError(f"Can only create new objects of classes, got {cls!r}")
        return cls.__new__(cls, *args, **(kwargs or {}))

    # ---------------------------------------------------------------- opcodes
    def _proto(self) -> None:
        proto = self._take(1)[0]
        if proto > 5:
            raise UnpicklingError(f"unsupported pickle protocol: {proto}")

    def _frame(self) -> None:
        self._take(8)  # the whole pickle is in memory: frames need no bookkeeping

    def _stop(self) -> None:
        self._result = self._stack.pop()

    def _mark(self) -> None:
        self._metastack.append(self._stack)
        self._stack = []

    def _pop(self) -> None:
        if self._stack:
            self._stack.pop()
        else:
            self._pop_mark()

    def _pop_mark_op(self) -> None:
        self._pop_mark()

    def _dup(self) -> None:
        self._stack.append(self._stack[-1])

    def _none(self) -> None:
        self._stack.append(None)

    def _true(self) -> None:
        self._stack.append(True)

    def _false(self) -> None:
        self._stack.append(False)

    def _binint(self) -> None:
        self._stack.append(self._unpack("<i", 4))

    def _binint1(self) -> None:
        self._stack.append(self._take(1)[0])

    def _binint2(self) -> None:
        self._stack.append(self._unpack("<H", 2))

    def _long1(self) -> None:
        n = self._take(1)[0]
        self._stack.append(int.from_bytes(self._take(n), "little", signed=True))

    def _long4(self) -> None:
        n = self._unpack("<i", 4)
        self._stack.append(int.from_bytes(self._take(n), "little", signed=True))

    def _text_int(self) -> None:
        # INT / LONG (protocols 0-1; "I01"/"I00" are True/False there).
        line = self._line().rstrip("L")
        if line in ("00", "01"):
            self._stack.append(line == "01")
            return
        try:
            self._stack.append(int(line))
        except ValueError:
            raise UnpicklingError(f"malformed INT {line[:40]!r}") from None

    def _binfloat(self) -> None:
        self._stack.append(self._unpack(">d", 8))

    def _str(self, n: int) -> None:
        raw = self._take(n)
        try:
            self._stack.append(raw.decode("utf-8", "surrogatepass"))
        except UnicodeDecodeError:
            raise UnpicklingError("malformed pickle: invalid UTF-8 string") from None

    def _binunicode(self) -> None:
        self._str(self._unpack("<I", 4))

    def _short_binunicode(self) -> None:
        self._str(self._take(1)[0])

    def _binunicode8(self) -> None:
        self._str(self._unpack("<Q", 8))

    def _py2_str(self, n: int) -> None:
        raw = self._take(n)
        self._stack.append(raw if self._encoding == "bytes" else raw.decode(self._encoding, self._errors))

    def _binstring(self) -> None:
        self._py2_str(self._unpack("<i", 4))

    def _short_binstring(self) -> None:
        self._py2_str(self._take(1)[0])

    def _binbytes(self) -> None:
        self._stack.append(self._take(self._unpack("<I", 4)))

    def _short_binbytes(self) -> None:
        self._stack.append(self._take(self._take(1)[0]))

    def _binbytes8(self) -> None:
        self._stack.append(self._take(self._unpack("<Q", 8)))

    def _bytearray8(self) -> None:
        self._stack.append(bytearray(self._take(self._unpack("<Q", 8))))

    def _empty_tuple(self) -> None:
        self._stack.append(())

    def _tuple(self) -> None:
        items = tuple(self._pop_mark())  # before touching self._stack: pop_mark replaces it
        self._stack.append(items)

    def _tuple1(self) -> None:
        self._stack[-1] = (self._stack[-1],)

    def _tuple2(self) -> None:
        s = self._stack
        if len(s) < 2:
            raise IndexError
        s[-2:] = [(s[-2], s[-1])]

    def _tuple3(self) -> None:
        s = self._stack
        if len(s) < 3:
            raise IndexError
        s[-3:] = [(s[-3], s[-2], s[-1])]

    def _empty_list(self) -> None:
        self._stack.append([])

    def _list(self) -> None:
        items = self._pop_mark()
        self._stack.append(items)

    def _append(self) -> None:
        item = self._stack.pop()
        target = self._stack[-1]
        if type(target) is not list:
            raise UnpicklingError(f"Can only append to lists, but got {type(target).__name__}")
        target.append(item)

    def _appends(self) -> None:
        items = self._pop_mark()
        target = self._stack[-1]
        if type(target) is not list:
            raise UnpicklingError(f"Can only extend lists, but got {type(target).__name__}")
        target.extend(items)

    def _empty_dict(self) -> None:
        self._stack.append({})

    def _dict_target(self, op: str) -> Any:
        target = self._stack[-1]
        if type(target) not in (dict, OrderedDict, Counter):
            raise UnpicklingError(
                f"Can only {op} for dict, collections.OrderedDict, collections.Counter, but got "
                f"{type(target).__name__}"
            )
        return target

    def _dict(self) -> None:
        items = self._pop_mark()
        if len(items) % 2:
            raise UnpicklingError("malformed pickle: odd number of items for DICT")
        self._stack.append({items[i]: items[i + 1] for i in range(0, len(items), 2)})

    def _setitem(self) -> None:
        value = self._stack.pop()
        key = self._stack.pop()
        self._dict_target("SETITEM")[key] = value

    def _setitems(self) -> None:
        items = self._pop_mark()
        if len(items) % 2:
            raise UnpicklingError("malformed pickle: odd number of items for SETITEMS")
        target = self._dict_target("SETITEMS")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def _empty_set(self) -> None:
        self._stack.append(set())

    def _additems(self) -> None:
        items = self._pop_mark()
        target = self._stack[-1]
        if type(target) is not set:
            raise UnpicklingError(f"Can only add items to sets, but got {type(target).__name__}")
        target.update(items)

    def _frozenset(self) -> None:
        items = frozenset(self._pop_mark())
        self._stack.append(items)

    def _get(self, index: int) -> None:
        try:
            self._stack.append(self._memo[index])
        except KeyError:
            raise UnpicklingError(f"Memo value not found at index {index}") from None

    def _binget(self) -> None:
        self._get(self._take(1)[0])

    def _long_binget(self) -> None:
        self._get(self._unpack("<I", 4))

    def _binput(self) -> None:
        self._memo[self._take(1)[0]] = self._stack[-1]

    def _long_binput(self) -> None:
        self._memo[self._unpack("<I", 4)] = self._stack[-1]

    def _memoize(self) -> None:
        self._memo[len(self._memo)] = self._stack[-1]

    def _global(self) -> None:
        module = self._line()
        name = self._line()
        self._stack.append(self._find(module, name))

    def _stack_global(self) -> None:
        name = self._stack.pop()
        module = self._stack.pop()
        self._stack.append(self._find(module, name))

    def _inst(self) -> None:
        cls = self._find(self._line(), self._line())
        args = tuple(self._pop_mark())
        self._check_callable(cls)
        self._stack.append(cls(*args))

    def _obj(self) -> None:
        args = self._pop_mark()
        if not args:
            raise UnpicklingError("malformed pickle: OBJ without a class")
        cls = args.pop(0)
        self._check_callable(cls)
        self._stack.append(cls(*args))

    def _reduce(self) -> None:
        args = self._stack.pop()
        func = self._stack[-1]
        self._check_callable(func)
        if type(args) is not tuple:
            raise UnpicklingError(f"REDUCE arguments must be a tuple, got {type(args).__name__}")
        self._stack[-1] = func(*args)

    def _newobj(self) -> None:
        args = self._stack.pop()
        cls = self._stack.pop()
        self._stack.append(self._instantiate(cls, args))

    def _newobj_ex(self) -> None:
        kwargs = self._stack.pop()
        args = self._stack.pop()
        cls = self._stack.pop()
        self._stack.append(self._instantiate(cls, args, kwargs))

    def _build(self) -> None:
        from ember._lib import _C

        state = self._stack.pop()
        inst = self._stack[-1]
        cls = type(inst)
        if isinstance(inst, _C.TensorBase):
            set_state(inst, state)
        elif cls is OrderedDict:
            if not isinstance(state, dict) or not all(type(k) is str and not k.startswith("__") for k in state):
                raise UnpicklingError("OrderedDict state must be a dict of plain attribute names")
            inst.__dict__.update(state)
        elif self._allowed.get(id(cls)) is cls and cls not in (set, frozenset, Counter, complex):
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
            else:
                set_state(inst, state)
        else:
            raise UnpicklingError(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                f"`add_safe_globals`, but got {cls}"
            )

    def _binpersid(self) -> None:
        pid = self._stack.pop()
        if type(pid) is not tuple or not pid or pid[0] not in ("storage", b"storage"):
            raise UnpicklingError(f"Only persistent_load of storage is allowed, but got {pid!r:.80}")
        self._stack.append(self._persistent_load(pid))


_DISPATCH: list[Callable[[WeightsUnpickler], None] | None] = [None] * 256
for _op, _fn in {
    b"\x80": WeightsUnpickler._proto, b"\x95": WeightsUnpickler._frame, b".": WeightsUnpickler._stop,
    b"(": WeightsUnpickler._mark, b"0": WeightsUnpickler._pop, b"1": WeightsUnpickler._pop_mark_op,
    b"2": WeightsUnpickler._dup, b"N": WeightsUnpickler._none, b"\x88": WeightsUnpickler._true,
    b"\x89": WeightsUnpickler._false, b"J": WeightsUnpickler._binint, b"K": WeightsUnpickler._binint1,
    b"M": WeightsUnpickler._binint2, b"\x8a": WeightsUnpickler._long1, b"\x8b": WeightsUnpickler._long4,
    b"G": WeightsUnpickler._binfloat,
    b"I": WeightsUnpickler._text_int, b"L": WeightsUnpickler._text_int, b"X": WeightsUnpickler._binunicode,
    b"\x8c": WeightsUnpickler._short_binunicode, b"\x8d": WeightsUnpickler._binunicode8,
    b"T": WeightsUnpickler._binstring, b"U": WeightsUnpickler._short_binstring,
    b"B": WeightsUnpickler._binbytes, b"C": WeightsUnpickler._short_binbytes,
    b"\x8e": WeightsUnpickler._binbytes8, b"\x96": WeightsUnpickler._bytearray8,
    b")": WeightsUnpickler._empty_tuple, b"t": WeightsUnpickler._tuple, b"\x85": WeightsUnpickler._tuple1,
    b"\x86": WeightsUnpickler._tuple2, b"\x87": WeightsUnpickler._tuple3, b"]": WeightsUnpickler._empty_list,
    b"l": WeightsUnpickler._list, b"a": WeightsUnpickler._append, b"e": WeightsUnpickler._appends,
    b"}": WeightsUnpickler._empty_dict, b"d": WeightsUnpickler._dict, b"s": WeightsUnpickler._setitem,
    b"u": WeightsUnpickler._setitems, b"\x8f": WeightsUnpickler._empty_set,
    b"\x90": WeightsUnpickler._additems, b"\x91": WeightsUnpickler._frozenset,
    b"h": WeightsUnpickler._binget, b"j": WeightsUnpickler._long_binget, b"q": WeightsUnpickler._binput,
    b"r": WeightsUnpickler._long_binput, b"\x94": WeightsUnpickler._memoize, b"c": WeightsUnpickler._global,
    b"\x93": WeightsUnpickler._stack_global, b"i": WeightsUnpickler._inst, b"o": WeightsUnpickler._obj,
    b"R": WeightsUnpickler._reduce, b"\x81": WeightsUnpickler._newobj, b"\x92": WeightsUnpickler._newobj_ex,
    b"b": WeightsUnpickler._build, b"Q": WeightsUnpickler._binpersid,
}.items():
    _DISPATCH[_op[0]] = _fn
