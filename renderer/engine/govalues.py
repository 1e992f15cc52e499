"""Go's typed values in a render context, beside the JSON-like ones (which Go holds as
``interface {}``): BKE's controller passes a ``nodeSelector`` param as a
``map[string]string`` and a control-plane endpoint's port as an ``int32``, and Go's
``text/template`` tells them apart (``index`` of a missing key, ``%T``, error texts).

A module of its own, importing nothing: BKE's context rules build these values without
loading the template engine. Each ``repr`` names its type, so a render cached by the
``repr`` of its context never answers for the untyped value.
"""

from __future__ import annotations


class StringMap(dict[str, str]):
    """A Go ``map[string]string``: ``index`` of a missing key is ``""`` (the element's
    zero value), where a ``map[string]interface {}`` gives nil (``<no value>``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"StringMap({dict.__repr__(self)})"

    __str__ = dict.__repr__


class Int32(int):
    """A Go ``int32``: prints as any integer, compares with ``int`` in ``eq``, but
    ``%T`` says ``int32`` and a function taking a string names it so."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Int32({int.__repr__(self)})"

    __str__ = int.__repr__
