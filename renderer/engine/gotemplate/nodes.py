"""The parse tree of a Go template, shaped like Go's ``text/template/parse`` nodes.

Keeping Go's node kinds (and their ``String()`` forms) lets execution errors quote the
failing construct the way Go does (``executing "x" at <.a.b>: ...``).

Plain classes with ``__slots__`` rather than dataclasses: the engine is imported by
every cold render, and making two dozen dataclasses cost more than the rest of the
module. Nodes compare by identity; ``repr`` prints the fields as a dataclass would.
"""

from __future__ import annotations

from typing import ClassVar

from renderer.engine.gotemplate.lexer import go_quote


class Node:
    """Base node: ``pos`` is the character offset of the node in the source."""

    __slots__ = ("pos",)

    def __init__(self, pos: int) -> None:
        self.pos = pos

    def __repr__(self) -> str:
        """As a dataclass prints it: every ``__init__`` parameter, in order."""
        code = type(self).__init__.__code__
        names = code.co_varnames[1 : code.co_argcount]
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({shown})"

    def __str__(self) -> str:  # pragma: no cover - overridden everywhere
        return type(self).__name__


# --- operands ---------------------------------------------------------------------


class DotNode(Node):
    __slots__ = ()

    def __str__(self) -> str:
        return "."


class NilNode(Node):
    __slots__ = ()

    def __str__(self) -> str:
        return "nil"


class BoolNode(Node):
    __slots__ = ("value",)

    def __init__(self, pos: int, value: bool) -> None:
        self.pos = pos
        self.value = value

    def __str__(self) -> str:
        return "true" if self.value else "false"


class NumberNode(Node):
    """A numeric constant; ``kind`` is the Go type it takes where no type is imposed.

    ``kind`` is "int", "float", "complex" or "error" (an untyped constant Go rejects at
    run time, like a uint that overflows int).
    """

    __slots__ = ("complex_value", "error", "float_value", "int_value", "kind", "text")

    def __init__(
        self,
        pos: int,
        text: str,
        kind: str,
        int_value: int | None,
        float_value: float | None,
        error: str = "",
        complex_value: complex = 0j,
    ) -> None:
        self.pos = pos
        self.text = text
        self.kind = kind
        self.int_value = int_value
        self.float_value = float_value
        self.error = error
        self.complex_value = complex_value

    def __str__(self) -> str:
        return self.text


class StringNode(Node):
    __slots__ = ("quoted", "value")

    def __init__(self, pos: int, quoted: str, value: str) -> None:
        self.pos = pos
        self.quoted = quoted
        self.value = value

    def __str__(self) -> str:
        return self.quoted


class FieldNode(Node):
    __slots__ = ("idents",)

    def __init__(self, pos: int, idents: tuple[str, ...]) -> None:
        self.pos = pos
        self.idents = idents

    def __str__(self) -> str:
        return "".join("." + i for i in self.idents)


class VariableNode(Node):
    """``$x`` or ``$x.a.b``: ``idents[0]`` is the variable name with its ``$``."""

    __slots__ = ("idents",)

    def __init__(self, pos: int, idents: tuple[str, ...]) -> None:
        self.pos = pos
        self.idents = idents

    def __str__(self) -> str:
        return ".".join(self.idents)


class IdentifierNode(Node):
    __slots__ = ("name",)

    def __init__(self, pos: int, name: str) -> None:
        self.pos = pos
        self.name = name

    def __str__(self) -> str:
        return self.name


class ChainNode(Node):
    """``(pipeline).a.b`` (or another term followed by fields)."""

    __slots__ = ("fields", "node")

    def __init__(self, pos: int, node: Node, fields: tuple[str, ...]) -> None:
        self.pos = pos
        self.node = node
        self.fields = fields

    def __str__(self) -> str:
        inner = str(self.node)
        if isinstance(self.node, PipeNode):
            inner = "(" + inner + ")"
        return inner + "".join("." + f for f in self.fields)


class CommandNode(Node):
    __slots__ = ("args",)

    def __init__(self, pos: int, args: list[Node] | None = None) -> None:
        self.pos = pos
        self.args: list[Node] = [] if args is None else args

    def __str__(self) -> str:
        parts = []
        for arg in self.args:
            text = str(arg)
            if isinstance(arg, PipeNode):
                text = "(" + text + ")"
            parts.append(text)
        return " ".join(parts)


class PipeNode(Node):
    __slots__ = ("cmds", "decl", "is_assign", "line")

    def __init__(
        self,
        pos: int,
        line: int,
        is_assign: bool = False,
        decl: list[VariableNode] | None = None,
        cmds: list[CommandNode] | None = None,
    ) -> None:
        self.pos = pos
        self.line = line
        self.is_assign = is_assign
        self.decl: list[VariableNode] = [] if decl is None else decl
        self.cmds: list[CommandNode] = [] if cmds is None else cmds

    def __str__(self) -> str:
        text = ""
        if self.decl:
            text = ", ".join(str(v) for v in self.decl) + (" = " if self.is_assign else " := ")
        return text + " | ".join(str(c) for c in self.cmds)


# --- statements -------------------------------------------------------------------


class TextNode(Node):
    __slots__ = ("text",)

    def __init__(self, pos: int, text: str) -> None:
        self.pos = pos
        self.text = text

    def __str__(self) -> str:
        return self.text


class CommentNode(Node):
    __slots__ = ("text",)

    def __init__(self, pos: int, text: str) -> None:
        self.pos = pos
        self.text = text

    def __str__(self) -> str:
        return "{{" + self.text + "}}"


class ActionNode(Node):
    __slots__ = ("line", "pipe")

    def __init__(self, pos: int, line: int, pipe: PipeNode) -> None:
        self.pos = pos
        self.line = line
        self.pipe = pipe

    def __str__(self) -> str:
        return "{{" + str(self.pipe) + "}}"


class ListNode(Node):
    __slots__ = ("nodes",)

    def __init__(self, pos: int, nodes: list[Node] | None = None) -> None:
        self.pos = pos
        self.nodes: list[Node] = [] if nodes is None else nodes

    def __str__(self) -> str:
        return "".join(str(n) for n in self.nodes)


class BranchNode(Node):
    """Shared shape of if, range and with."""

    __slots__ = ("body", "else_body", "line", "pipe")

    keyword: ClassVar[str] = "branch"

    def __init__(
        self, pos: int, line: int, pipe: PipeNode, body: ListNode, else_body: ListNode | None
    ) -> None:
        self.pos = pos
        self.line = line
        self.pipe = pipe
        self.body = body
        self.else_body = else_body

    def __str__(self) -> str:
        text = "{{" + self.keyword + " " + str(self.pipe) + "}}" + str(self.body)
        if self.else_body is not None:
            text += "{{else}}" + str(self.else_body)
        return text + "{{end}}"


class IfNode(BranchNode):
    __slots__ = ()
    keyword = "if"


class RangeNode(BranchNode):
    __slots__ = ()
    keyword = "range"


class WithNode(BranchNode):
    __slots__ = ()
    keyword = "with"


class TemplateNode(Node):
    __slots__ = ("line", "name", "pipe")

    def __init__(self, pos: int, line: int, name: str, pipe: PipeNode | None) -> None:
        self.pos = pos
        self.line = line
        self.name = name
        self.pipe = pipe

    def __str__(self) -> str:
        quoted = go_quote(self.name)
        if self.pipe is None:
            return "{{template " + quoted + "}}"
        return "{{template " + quoted + " " + str(self.pipe) + "}}"


class BreakNode(Node):
    __slots__ = ("line",)

    def __init__(self, pos: int, line: int) -> None:
        self.pos = pos
        self.line = line

    def __str__(self) -> str:
        return "{{break}}"


class ContinueNode(Node):
    __slots__ = ("line",)

    def __init__(self, pos: int, line: int) -> None:
        self.pos = pos
        self.line = line

    def __str__(self) -> str:
        return "{{continue}}"


class Tree:
    """A parsed template file: the tree Execute runs plus every ``define``/``block``.

    ``templates`` maps each template name, including ``name`` itself, to its body, with
    Go's rules for empty and repeated definitions already applied.
    """

    __slots__ = ("depth", "name", "source", "templates")

    def __init__(
        self, name: str, source: str, templates: dict[str, ListNode], depth: int = 0
    ) -> None:
        self.name = name
        self.source = source
        self.templates = templates
        #: The deepest nesting of lists (control bodies) and parentheses in the source:
        #: how deep every walk of the tree recurses.
        self.depth = depth

    def __repr__(self) -> str:
        return (
            f"Tree(name={self.name!r}, source={self.source!r}, "
            f"templates={self.templates!r}, depth={self.depth!r})"
        )

    @property
    def root(self) -> ListNode:
        return self.templates[self.name]
