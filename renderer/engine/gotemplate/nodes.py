"""The parse tree of a Go template, shaped like Go's ``text/template/parse`` nodes.

Keeping Go's node kinds (and their ``String()`` forms) lets execution errors quote the
failing construct the way Go does (``executing "x" at <.a.b>: ...``).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(eq=False)
class Node:
    """Base node: ``pos`` is the character offset of the node in the source."""

    pos: int

    def __str__(self) -> str:  # pragma: no cover - overridden everywhere
        return type(self).__name__


# --- operands ---------------------------------------------------------------------


@dataclass(eq=False)
class DotNode(Node):
    def __str__(self) -> str:
        return "."


@dataclass(eq=False)
class NilNode(Node):
    def __str__(self) -> str:
        return "nil"


@dataclass(eq=False)
class BoolNode(Node):
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass(eq=False)
class NumberNode(Node):
    """A numeric constant; ``kind`` is the Go type it takes where no type is imposed.

    ``kind`` is "int", "float" or "error" (an untyped constant Go rejects at run time,
    like a uint that overflows int, or an unsupported complex constant).
    """

    text: str
    kind: str
    int_value: int | None
    float_value: float | None
    error: str = ""

    def __str__(self) -> str:
        return self.text


@dataclass(eq=False)
class StringNode(Node):
    quoted: str
    value: str

    def __str__(self) -> str:
        return self.quoted


@dataclass(eq=False)
class FieldNode(Node):
    idents: tuple[str, ...]

    def __str__(self) -> str:
        return "".join("." + i for i in self.idents)


@dataclass(eq=False)
class VariableNode(Node):
    """``$x`` or ``$x.a.b``: ``idents[0]`` is the variable name with its ``$``."""

    idents: tuple[str, ...]

    def __str__(self) -> str:
        return ".".join(self.idents)


@dataclass(eq=False)
class IdentifierNode(Node):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False)
class ChainNode(Node):
    """``(pipeline).a.b`` (or another term followed by fields)."""

    node: Node
    fields: tuple[str, ...]

    def __str__(self) -> str:
        inner = str(self.node)
        if isinstance(self.node, PipeNode):
            inner = "(" + inner + ")"
        return inner + "".join("." + f for f in self.fields)


@dataclass(eq=False)
class CommandNode(Node):
    args: list[Node] = field(default_factory=list)

    def __str__(self) -> str:
        parts = []
        for arg in self.args:
            text = str(arg)
            if isinstance(arg, PipeNode):
                text = "(" + text + ")"
            parts.append(text)
        return " ".join(parts)


@dataclass(eq=False)
class PipeNode(Node):
    line: int
    is_assign: bool = False
    decl: list[VariableNode] = field(default_factory=list)
    cmds: list[CommandNode] = field(default_factory=list)

    def __str__(self) -> str:
        text = ""
        if self.decl:
            text = ", ".join(str(v) for v in self.decl) + (" = " if self.is_assign else " := ")
        return text + " | ".join(str(c) for c in self.cmds)


# --- statements -------------------------------------------------------------------


@dataclass(eq=False)
class TextNode(Node):
    text: str

    def __str__(self) -> str:
        return repr(self.text)


@dataclass(eq=False)
class CommentNode(Node):
    text: str

    def __str__(self) -> str:
        return "{{" + self.text + "}}"


@dataclass(eq=False)
class ActionNode(Node):
    line: int
    pipe: PipeNode

    def __str__(self) -> str:
        return "{{" + str(self.pipe) + "}}"


@dataclass(eq=False)
class ListNode(Node):
    nodes: list[Node] = field(default_factory=list)

    def __str__(self) -> str:
        return "".join(str(n) for n in self.nodes)


@dataclass(eq=False)
class BranchNode(Node):
    """Shared shape of if, range and with."""

    line: int
    pipe: PipeNode
    body: ListNode
    else_body: ListNode | None

    keyword = "branch"

    def __str__(self) -> str:
        text = "{{" + self.keyword + " " + str(self.pipe) + "}}" + str(self.body)
        if self.else_body is not None:
            text += "{{else}}" + str(self.else_body)
        return text + "{{end}}"


@dataclass(eq=False)
class IfNode(BranchNode):
    keyword = "if"


@dataclass(eq=False)
class RangeNode(BranchNode):
    keyword = "range"


@dataclass(eq=False)
class WithNode(BranchNode):
    keyword = "with"


@dataclass(eq=False)
class TemplateNode(Node):
    line: int
    name: str
    pipe: PipeNode | None

    def __str__(self) -> str:
        quoted = '"' + self.name + '"'
        if self.pipe is None:
            return "{{template " + quoted + "}}"
        return "{{template " + quoted + " " + str(self.pipe) + "}}"


@dataclass(eq=False)
class BreakNode(Node):
    line: int

    def __str__(self) -> str:
        return "{{break}}"


@dataclass(eq=False)
class ContinueNode(Node):
    line: int

    def __str__(self) -> str:
        return "{{continue}}"


@dataclass(eq=False)
class Tree:
    """A parsed template file: the tree Execute runs plus every ``define``/``block``.

    ``templates`` maps each template name, including ``name`` itself, to its body, with
    Go's rules for empty and repeated definitions already applied.
    """

    name: str
    source: str
    templates: dict[str, ListNode]
    #: The deepest nesting of lists (control bodies) and parentheses in the source: how
    #: deep every walk of the tree recurses.
    depth: int = 0

    @property
    def root(self) -> ListNode:
        return self.templates[self.name]
