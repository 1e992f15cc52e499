"""Records: classes that behave as dataclasses for everything this package asks of them,
made without the :mod:`dataclasses` module.

Defining a dataclass writes its methods as source text and compiles them, some 3.7
million instructions a class, and importing :mod:`dataclasses` loads :mod:`inspect`
(another 43 million); a plain render defines a dozen such classes before it renders
anything. :func:`record` builds the same methods from shared functions instead:
``__init__`` (positional or keyword, defaults and ``default_factory``), ``__repr__``,
``__eq__``, ``__hash__``, ordering, ``__match_args__`` and, when frozen,
:class:`dataclasses.FrozenInstanceError` on assignment. :func:`replace` and
:func:`fields` take records and dataclasses alike.

A type checker sees :func:`dataclasses.dataclass` itself (the names are its aliases when
type-checking), so a record is checked exactly as the dataclass it stands for; the
tests hold the two to the same behaviour. One difference is left: a dataclass does not
inherit a record's fields, so a dataclass subclasses only a record without fields
(:class:`renderer.finding.Details`).

:class:`Frozen` is the older, hand-written form of a frozen record (its subclasses write
their own ``__init__``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

__all__ = ["MISSING", "Field", "Frozen", "field", "fields", "is_record", "record", "replace"]

TYPE_CHECKING = False


class _Missing:
    """No default given (``dataclasses.MISSING``'s part)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One field of a record: what :func:`field` was given, and its name."""

    __slots__ = ("compare", "default", "default_factory", "name", "repr")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Any = MISSING,
        compare: bool = True,
        repr: bool = True,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.repr = repr

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r})"


def _field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    compare: bool = True,
    repr: bool = True,
) -> Any:
    """:func:`dataclasses.field` with the options records support (any other is a
    TypeError when the class is defined, never ignored)."""
    return Field(default, default_factory, compare, repr)


def _is_class_var(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))


def _spec(cls: type) -> tuple[Field, ...] | None:
    """The fields of the nearest record class of ``cls``; None when that is a
    dataclass (or neither is)."""
    for klass in cls.__mro__:
        found = klass.__dict__.get("__record_fields__")
        if found is not None:
            return found  # type: ignore[no-any-return]
        if "__dataclass_fields__" in klass.__dict__:
            return None
    return None


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    def get(obj: Any) -> tuple[Any, ...]:
        return tuple([getattr(obj, n) for n in names])

    return get


def _record(
    cls: type | None = None,
    /,
    *,
    frozen: bool = False,
    eq: bool = True,
    order: bool = False,
) -> Any:
    """``@record`` or ``@record(frozen=True, order=True)``: see the module doc."""

    def wrap(klass: type) -> type:
        return _build(klass, frozen=frozen, eq=eq, order=order)

    return wrap if cls is None else wrap(cls)


def _build(cls: type, *, frozen: bool, eq: bool, order: bool) -> type:
    fields: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        inherited = base.__dict__.get("__record_fields__")
        if inherited is not None:
            if base.__dict__["__record_frozen__"] != frozen:
                raise TypeError(f"{cls.__name__}: a record and its record base differ in frozen")
            fields.update((f.name, f) for f in inherited)
    own_annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (inspect is what this avoids)
    for name, annotation in own_annotations.items():
        if _is_class_var(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        f.name = name
        if f.default is MISSING:
            if name in cls.__dict__:
                delattr(cls, name)  # a field(default_factory=...): no class attribute
        else:
            setattr(cls, name, f.default)
        fields.pop(name, None)
        fields[name] = f
    spec = tuple(fields.values())
    seen_default = False
    for f in spec:
        has_default = f.default is not MISSING or f.default_factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        seen_default = seen_default or has_default
    names = tuple(f.name for f in spec)
    shown = tuple(f.name for f in spec if f.repr)
    compared = _getter(tuple(f.name for f in spec if f.compare))
    own = cls.__dict__

    def set_(name: str, value: Any) -> None:
        if name not in own:
            value.__qualname__ = f"{cls.__qualname__}.{name}"
            setattr(cls, name, value)

    cls.__record_fields__ = spec  # type: ignore[attr-defined]
    cls.__record_frozen__ = frozen  # type: ignore[attr-defined]
    set_("__init__", _init(spec))
    set_("__repr__", _repr(shown))
    if "__match_args__" not in own:
        cls.__match_args__ = names  # type: ignore[attr-defined,misc]
    if eq:
        set_("__eq__", _compare(compared, lambda a, b: a == b))
    if order:
        for name, op in (
            ("__lt__", lambda a, b: a < b),
            ("__le__", lambda a, b: a <= b),
            ("__gt__", lambda a, b: a > b),
            ("__ge__", lambda a, b: a >= b),
        ):
            set_(name, _compare(compared, op))
    if eq and "__hash__" not in own:  # as dataclasses: hashable by its fields when frozen
        cls.__hash__ = _hash(compared) if frozen else None  # type: ignore[assignment,method-assign]
        if frozen:
            cls.__hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
    if frozen:
        set_("__setattr__", _frozen_setattr(cls, frozenset(names)))
        set_("__delattr__", _frozen_delattr(cls, frozenset(names)))
    return cls


def _init(spec: tuple[Field, ...]) -> Callable[..., None]:
    names = tuple(f.name for f in spec)
    defaults = {f.name: f.default for f in spec if f.default is not MISSING}
    factories = {f.name: f.default_factory for f in spec if f.default_factory is not MISSING}
    count = len(names)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > count:
            raise TypeError(
                f"{type(self).__qualname__}.__init__() takes {count + 1} positional "
                f"arguments but {len(args) + 1} were given"
            )
        values = dict(zip(names, args, strict=False))  # the rest come by keyword
        for name in names[len(args) :]:
            if name in kwargs:
                values[name] = kwargs.pop(name)
            elif name in defaults:
                values[name] = defaults[name]
            elif name in factories:
                values[name] = factories[name]()
            else:
                raise TypeError(
                    f"{type(self).__qualname__}.__init__() missing required argument: {name!r}"
                )
        for name in kwargs:
            what = "multiple values for" if name in values else "an unexpected keyword"
            raise TypeError(f"{type(self).__qualname__}.__init__() got {what} argument {name!r}")
        self.__dict__.update(values)  # as a frozen dataclass's __init__: past __setattr__

    return __init__


def _repr(shown: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        parts = ", ".join(f"{n}={getattr(self, n)!r}" for n in shown)
        return f"{type(self).__qualname__}({parts})"

    return __repr__


def _compare(
    key: Callable[[Any], tuple[Any, ...]], op: Callable[[Any, Any], bool]
) -> Callable[[Any, Any], Any]:
    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return op(key(self), key(other))
        return NotImplemented

    return method


def _hash(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


def _frozen_error(name: str, verb: str) -> Exception:
    from dataclasses import FrozenInstanceError  # only when something tries

    return FrozenInstanceError(f"cannot {verb} field {name!r}")


def _frozen_setattr(owner: type, names: frozenset[str]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        parent = super(owner, self)  # before the test, which narrows owner's type
        if type(self) is owner or name in names:
            raise _frozen_error(name, "assign to")
        parent.__setattr__(name, value)

    return __setattr__


def _frozen_delattr(owner: type, names: frozenset[str]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        parent = super(owner, self)  # before the test, which narrows owner's type
        if type(self) is owner or name in names:
            raise _frozen_error(name, "delete")
        parent.__delattr__(name)

    return __delattr__


def _replace(obj: Any, /, **changes: Any) -> Any:
    """:func:`dataclasses.replace` for a record or a dataclass."""
    spec = _spec(type(obj))
    if spec is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)
    for f in spec:
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)


def _fields(obj: Any) -> tuple[Any, ...]:
    """:func:`dataclasses.fields` of a record or a dataclass (or its class): each has a
    ``name``."""
    spec = _spec(obj if isinstance(obj, type) else type(obj))
    if spec is None:
        import dataclasses

        return dataclasses.fields(obj)
    return spec


def is_record(value: object) -> bool:
    """``value`` is an instance (not a class) of a record or of a dataclass."""
    cls = type(value)
    return not isinstance(value, type) and (
        hasattr(cls, "__record_fields__") or hasattr(cls, "__dataclass_fields__")
    )


if TYPE_CHECKING:
    from dataclasses import dataclass as record
    from dataclasses import field, fields, replace
else:
    record, field, fields, replace = _record, _field, _fields, _replace


class Frozen:
    """The base of a hand-written frozen record (see the module doc)."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    #: The fields ``repr``, equality and hash use (None: all of ``__match_args__``),
    #: as ``field(repr=False, compare=False)`` leaves the others out.
    _compared: ClassVar[tuple[str, ...] | None] = None

    def _fields(self) -> tuple[str, ...]:
        return self.__match_args__ if self._compared is None else self._compared

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields())
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            assert isinstance(other, Frozen)
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name: str, value: Any) -> None:
        raise _frozen_error(name, "assign to")

    def __delattr__(self, name: str) -> None:
        raise _frozen_error(name, "delete")
