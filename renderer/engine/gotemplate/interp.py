"""Execute a Go template tree directly, as Go's executor does.

Walking the parsed tree costs nothing before the render, so a 100,000-action template
starts at once. Go's value semantics live in :mod:`.runtime`; this module is the walk:
scopes, control flow, argument typing and Go's error positions (``executing "t" at
<.a.b>: ...``), held to Go's bytes and errors by the parity tests.

Control flow follows Go's own executor: ``{{break}}`` and ``{{continue}}`` unwind to the
enclosing range as exceptions, so nesting is bounded only by the recursion this walk
needs (a few Python frames per level, fewer than the parser's own).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from typing import Any

from renderer.engine import limits
from renderer.engine.gotemplate import nodes as n
from renderer.engine.gotemplate.runtime import (
    FUNCS,
    MISSING,
    Cell,
    ExecError,
    arg_any,
    arg_string,
    as_interface,
    call,
    call_plain,
    chain,
    enter_template,
    field,
    field_plain,
    is_true,
    print_value,
    range_items,
    uniface,
    var_chain,
)
from renderer.engine.sourcemap import SourceMap

#: A scope entry: Go variable name, its cell, and whether it holds a range element
#: (an ``interface {}`` value, which only ``slice`` treats differently).
_Var = tuple[str, Cell, bool]

_NOFINAL = object()


class InterpError(Exception):
    """An execution error at ``offset`` in template ``template``; ``node``'s text (or
    ``context``) is Go's ``at <...>`` part, computed only when the error is shown."""

    def __init__(self, node: n.Node, context: str | None, template: str, message: str) -> None:
        super().__init__(message)
        self.offset = node.pos
        self.node = node
        self.context = context
        self.template = template
        self.message = message

    def where(self) -> str:
        return str(self.node) if self.context is None else self.context


class OutputLimit(Exception):
    """The output passed the output limit."""


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_BREAK = _Break()
_CONTINUE = _Continue()


class Marks:
    """Source map origins of a template's nodes, computed once per template and kept
    (renders of the same template reuse them)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._newlines: list[int] | None = None
        self._origins: dict[int, tuple[int, int]] = {}

    def line(self, pos: int) -> int:
        """The 1-based source line of offset ``pos`` (a search in the line breaks' offsets,
        found once, instead of counting them up to ``pos``)."""
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.source)]
        return bisect.bisect_left(self._newlines, max(0, min(pos, len(self.source)))) + 1

    def get(self, node: n.Node) -> tuple[int, int]:
        origin = self._origins.get(id(node))
        if origin is None:
            line = self.line(node.pos)
            if isinstance(node, n.TextNode):
                newlines = node.text.count("\n")
                origin = (line, newlines)
            else:
                origin = (-line, -1)
            self._origins[id(node)] = origin
        return origin


class _Frame:
    """One template body being executed: its name, call depth and variables."""

    __slots__ = ("depth", "scope", "template")

    def __init__(self, template: str, depth: int, scope: list[_Var]) -> None:
        self.template = template
        self.depth = depth
        self.scope = scope


class Interpreter:
    """Runs one render of ``tree``; create one per render."""

    def __init__(
        self, tree: n.Tree, lines: SourceMap | None, max_output: int, marks: Marks
    ) -> None:
        self.tree = tree
        self.out: list[str] = []
        self.size = 0
        self.max_output = max_output
        self.lines = lines
        # source map origin of the next chunk (see renderer.engine.sourcemap): set before each
        # top-level text and action; inside a template call the call's line stands
        self.origin = 0
        self.newlines = -1
        self.marks = marks
        #: (start, end, action) of every non-empty print of an action, when traced
        self.spans: list[tuple[int, int, n.ActionNode]] | None = None
        #: the branch arms taken, (node offset, 0 body | 1 else), when traced
        self.taken: set[tuple[int, int]] | None = None

    # -- output ---------------------------------------------------------------------------
    def emit(self, text: str) -> None:
        if not text:
            return
        self.size += len(text)
        if self.size > self.max_output:
            raise OutputLimit
        self.out.append(text)
        if self.lines is not None:
            self.lines.add(text, self.origin, self.newlines)

    def mark(self, node: n.Node) -> None:
        """Set the origin of the chunk ``node`` prints (text: its line and newlines;
        anything else: minus its line)."""
        self.origin, self.newlines = self.marks.get(node)

    # -- entry ----------------------------------------------------------------------------
    def run(self, root: Any) -> str:
        name = self.tree.name
        frame = _Frame(name, 0, [("$", Cell(root), False)])
        self.walk(self.tree.templates[name], root, False, frame)
        return "".join(self.out)

    @staticmethod
    def fail(node: n.Node, frame: _Frame, message: str, context: str | None = None) -> InterpError:
        return InterpError(node, context, frame.template, message)

    # -- statements -----------------------------------------------------------------------
    def walk(self, body: n.ListNode, dot: Any, dot_iface: bool, frame: _Frame) -> None:
        top = frame.depth == 0 and self.lines is not None
        check = limits.check_call
        for node in body.nodes:
            kind = type(node)
            if kind is n.TextNode:
                assert isinstance(node, n.TextNode)
                if top:
                    self.mark(node)
                self.emit(node.text)
            elif kind is n.ActionNode:
                assert isinstance(node, n.ActionNode)
                check()
                value = self.pipeline_stmt(node.pipe, dot, dot_iface, frame)
                if not node.pipe.decl:
                    if top:
                        self.mark(node)
                    start = self.size
                    self.emit(print_value(value))
                    if self.spans is not None and self.size > start:
                        self.spans.append((start, self.size, node))
            elif kind is n.IfNode or kind is n.WithNode:
                assert isinstance(node, n.BranchNode)
                check()
                self.if_with(node, dot, dot_iface, frame, kind is n.WithNode)
            elif kind is n.RangeNode:
                assert isinstance(node, n.RangeNode)
                check()
                self.range(node, dot, dot_iface, frame)
            elif kind is n.TemplateNode:
                assert isinstance(node, n.TemplateNode)
                check()
                if top:
                    self.mark(node)
                self.template_call(node, dot, dot_iface, frame)
            elif kind is n.BreakNode:
                raise _BREAK
            elif kind is n.ContinueNode:
                raise _CONTINUE
            elif kind is not n.CommentNode:
                raise AssertionError(f"unknown node {node!r}")

    def if_with(
        self, node: n.BranchNode, dot: Any, dot_iface: bool, frame: _Frame, is_with: bool
    ) -> None:
        mark = len(frame.scope)
        value = self.pipeline_stmt(node.pipe, dot, dot_iface, frame)
        try:
            truth = is_true(value)
            if self.taken is not None:
                self.taken.add((node.pos, 0 if truth else 1))
            if truth:
                if is_with:
                    self.walk(node.body, value, False, frame)
                else:
                    self.walk(node.body, dot, dot_iface, frame)
            elif node.else_body is not None:
                self.walk(node.else_body, dot, dot_iface, frame)
        finally:
            del frame.scope[mark:]

    def range(self, node: n.RangeNode, dot: Any, dot_iface: bool, frame: _Frame) -> None:
        scope = frame.scope
        mark = len(scope)
        pipe = node.pipe
        value = self.pipeline_value(pipe, dot, dot_iface, frame)
        # Go pushes the declared variables holding the whole value before iterating;
        # each iteration then overwrites them with the index and element.
        cells: list[Cell | None] = []
        declared: list[_Var] = []
        elem_var = len(pipe.decl) - 1  # the variable that gets the element
        for i, var in enumerate(pipe.decl):
            name = var.idents[0]
            if pipe.is_assign:
                cell = self.lookup(frame, name)
                cells.append(cell)
                if cell is None:
                    raise self.fail(var, frame, f"undefined variable: {name}")
                cell.value = value
                if i == elem_var and not _is_int(value):
                    _mark_interface(scope, cell)
            else:
                cell = Cell(value)
                cells.append(cell)
                declared.append((name, cell, i == elem_var))
        scope.extend(declared)
        base = len(scope)
        try:
            # Go 1.22+ ranges over an integer n as 0..n-1, elements of the integer's own
            # type (not interface values), with at most one variable.
            over_int = _is_int(value)
            items: Iterable[tuple[Any, Any]]
            if over_int:
                if len(pipe.decl) > 1:
                    raise self.fail(
                        node,
                        frame,
                        f"can't use {value} to iterate over more than one variable",
                        str(pipe),
                    )
                kind = type(value)  # an int32 ranges over int32s
                counted = range(value) if kind is int else map(kind, range(value))
                items = ((None, i) for i in counted)
                nonempty = value > 0
            else:
                try:
                    items = range_items(value)
                except ExecError as exc:
                    raise self.fail(node, frame, exc.message, str(pipe)) from None
                nonempty = bool(items)
            elem_iface = not over_int
            if self.taken is not None:
                self.taken.add((node.pos, 0 if nonempty else 1))
            if nonempty:
                assign = pipe.is_assign
                nvars = len(cells)
                key: Any
                elem: Any
                for pair in limits.bounded_iter(items):
                    key, elem = pair  # type: ignore[misc]
                    if nvars:
                        if assign:
                            if nvars == 1:
                                if cells[0] is not None:
                                    cells[0].value = elem
                            else:
                                if cells[0] is not None:
                                    cells[0].value = key
                                if cells[1] is not None:
                                    cells[1].value = elem
                        elif nvars == 1:
                            scope[mark] = (declared[0][0], Cell(elem), elem_iface)
                        else:
                            scope[mark] = (declared[0][0], Cell(key), False)
                            scope[mark + 1] = (declared[1][0], Cell(elem), True)
                    try:
                        self.walk(node.body, elem, elem_iface, frame)
                    except _Continue:
                        pass
                    finally:
                        del scope[base:]
            elif node.else_body is not None:
                self.walk(node.else_body, dot, dot_iface, frame)
        except _Break:
            pass
        finally:
            del scope[mark:]

    def template_call(self, node: n.TemplateNode, dot: Any, dot_iface: bool, frame: _Frame) -> None:
        body = self.tree.templates.get(node.name)
        if body is None:
            from renderer.engine.gotemplate.lexer import go_quote

            raise self.fail(node, frame, f"template {go_quote(node.name)} not defined")
        value: Any = MISSING
        if node.pipe is not None:
            value = self.pipeline_stmt(node.pipe, dot, dot_iface, frame)
        try:
            depth = enter_template(frame.depth)
        except ExecError as exc:
            raise self.fail(node, frame, exc.message) from None
        inner = _Frame(node.name, depth, [("$", Cell(value), False)])
        self.walk(body, value, False, inner)

    # -- pipelines ------------------------------------------------------------------------
    @staticmethod
    def lookup(frame: _Frame, name: str) -> Cell | None:
        for var in reversed(frame.scope):
            if var[0] == name:
                return var[1]
        return None

    @staticmethod
    def lookup_var(frame: _Frame, name: str) -> _Var | None:
        for var in reversed(frame.scope):
            if var[0] == name:
                return var
        return None

    def pipeline_stmt(self, pipe: n.PipeNode, dot: Any, dot_iface: bool, frame: _Frame) -> Any:
        """Evaluate ``pipe``; declarations go into the frame's scope."""
        value = self.pipeline_value(pipe, dot, dot_iface, frame)
        if not pipe.decl:
            return value
        for var in pipe.decl:
            name = var.idents[0]
            if pipe.is_assign:
                cell = self.lookup(frame, name)
                if cell is None:
                    raise self.fail(var, frame, f"undefined variable: {name}")
                cell.value = value
            else:
                frame.scope.append((name, Cell(value), False))
        return value

    def pipeline_value(self, pipe: n.PipeNode, dot: Any, dot_iface: bool, frame: _Frame) -> Any:
        value: Any = _NOFINAL
        for cmd in pipe.cmds:
            value = self.command(cmd, dot, dot_iface, frame, value)
            if _may_be_nil_interface(cmd):
                value = uniface(value)
        return value

    def nested_pipeline(self, pipe: n.PipeNode, dot: Any, dot_iface: bool, frame: _Frame) -> Any:
        if pipe.decl:
            raise self.fail(
                pipe, frame, "variable declarations inside parentheses are not supported"
            )
        return self.pipeline_value(pipe, dot, dot_iface, frame)

    def command(
        self, cmd: n.CommandNode, dot: Any, dot_iface: bool, frame: _Frame, final: Any
    ) -> Any:
        first = cmd.args[0]
        has_final = final is not _NOFINAL
        has_args = len(cmd.args) > 1 or has_final
        kind = type(first)
        if kind is n.FieldNode:
            assert isinstance(first, n.FieldNode)
            try:
                if not has_args:
                    return field_plain(dot, first.idents)
                return field(dot, first.idents, has_args)
            except ExecError as exc:
                raise self.fail(first, frame, exc.message) from None
        if kind is n.ChainNode:
            assert isinstance(first, n.ChainNode)
            receiver = self.operand_value(first.node, dot, dot_iface, frame)
            try:
                return chain(receiver, first.fields, has_args)
            except ExecError as exc:
                raise self.fail(first, frame, exc.message) from None
        if kind is n.IdentifierNode:
            assert isinstance(first, n.IdentifierNode)
            return self.function(first, cmd.args[1:], dot, dot_iface, frame, final)
        if kind is n.VariableNode:
            assert isinstance(first, n.VariableNode)
            cell = self.lookup(frame, first.idents[0])
            if cell is None:
                raise self.fail(first, frame, f"undefined variable: {first.idents[0]}")
            if len(first.idents) == 1:
                if has_args:
                    raise self.fail(first, frame, f"can't give argument to non-function {first}")
                return cell.value
            try:
                return var_chain(cell, first.idents[1:], has_args)
            except ExecError as exc:
                raise self.fail(first, frame, exc.message) from None
        if has_args:
            text = f"({first})" if isinstance(first, n.PipeNode) else str(first)
            raise self.fail(first, frame, f"can't give argument to non-function {text}")
        if kind is n.PipeNode:
            assert isinstance(first, n.PipeNode)
            return self.nested_pipeline(first, dot, dot_iface, frame)
        if kind is n.NilNode:
            raise self.fail(first, frame, "nil is not a command")
        return self.literal(first, dot, frame)

    def literal(self, node: n.Node, dot: Any, frame: _Frame) -> Any:
        """A constant where no type is imposed (Go's evalEmptyInterface/idealConstant)."""
        if isinstance(node, n.BoolNode):
            return node.value
        if isinstance(node, n.StringNode):
            return node.value
        if isinstance(node, n.NumberNode):
            if node.kind == "int":
                return node.int_value
            if node.kind == "float":
                return node.float_value
            raise self.fail(node, frame, node.error)
        if isinstance(node, n.DotNode):
            return dot
        raise AssertionError(f"not a literal: {node!r}")

    def operand_value(self, node: n.Node, dot: Any, dot_iface: bool, frame: _Frame) -> Any:
        """An operand evaluated on its own (evalArg with no type): for chains."""
        if isinstance(node, n.PipeNode):
            return self.nested_pipeline(node, dot, dot_iface, frame)
        if isinstance(node, n.IdentifierNode):
            return self.function(node, [], dot, dot_iface, frame, _NOFINAL)
        return self.arg(node, "value", dot, dot_iface, frame)

    def arg(self, node: n.Node, kind: str, dot: Any, dot_iface: bool, frame: _Frame) -> Any:
        """evalArg: one argument for a parameter of ``kind`` (value, any or string)."""
        raw: Any
        if isinstance(node, n.NilNode):
            if kind == "value":
                return MISSING
            if kind == "any":
                return None
            raise self.fail(node, frame, f"cannot assign nil to {kind}")
        try:
            if isinstance(node, n.DotNode):
                raw = dot
            elif isinstance(node, n.FieldNode):
                raw = field_plain(dot, node.idents)
            elif isinstance(node, n.VariableNode):
                cell = self.lookup(frame, node.idents[0])
                if cell is None:
                    raise self.fail(node, frame, f"undefined variable: {node.idents[0]}")
                if len(node.idents) == 1:
                    raw = cell.value
                else:
                    raw = var_chain(cell, node.idents[1:], False)
            elif isinstance(node, n.PipeNode):
                raw = self.nested_pipeline(node, dot, dot_iface, frame)
            elif isinstance(node, n.IdentifierNode):
                raw = self.function(node, [], dot, dot_iface, frame, _NOFINAL)
            elif isinstance(node, n.ChainNode):
                receiver = self.operand_value(node.node, dot, dot_iface, frame)
                raw = chain(receiver, node.fields, False)
            else:
                # a literal: typed parameters accept only their own kind of literal
                if kind == "string":
                    if isinstance(node, n.StringNode):
                        return node.value
                    raise self.fail(node, frame, f"expected string; found {node}")
                return self.literal(node, dot, frame)
            if kind == "any":
                return arg_any(raw)
            if kind == "string":
                return arg_string(raw)
            return raw
        except ExecError as exc:
            raise self.fail(node, frame, exc.message) from None

    def is_interface_value(self, node: n.Node, dot_iface: bool, frame: _Frame) -> bool:
        """Whether Go would pass ``node``'s value as an interface (``slice`` tells them apart)."""
        if isinstance(node, n.FieldNode | n.ChainNode):
            return True
        if isinstance(node, n.VariableNode):
            if len(node.idents) > 1:
                return True
            var = self.lookup_var(frame, node.idents[0])
            return var is not None and var[2]
        if isinstance(node, n.DotNode):
            return dot_iface
        return False

    def function(
        self,
        ident: n.IdentifierNode,
        args: list[n.Node],
        dot: Any,
        dot_iface: bool,
        frame: _Frame,
        final: Any,
    ) -> Any:
        name = ident.name
        has_final = final is not _NOFINAL
        num_in = len(args) + (1 if has_final else 0)
        if name in ("and", "or"):
            if num_in < 1:
                raise self.fail(
                    ident, frame, f"wrong number of args for {name}: want at least 1 got 0"
                )
            want = name == "or"
            value: Any = None
            for a in args:
                value = self.arg(a, "value", dot, dot_iface, frame)
                if is_true(value) == want:
                    return value
            return final if has_final else value
        _, fixed, variadic = FUNCS[name]
        if variadic is not None:
            if num_in < len(fixed):
                raise self.fail(
                    ident,
                    frame,
                    f"wrong number of args for {name}: want at least {len(fixed)} got {len(args)}",
                )
        elif num_in != len(fixed):
            raise self.fail(
                ident, frame, f"wrong number of args for {name}: want {len(fixed)} got {num_in}"
            )
        values: list[Any] = []
        for i, a in enumerate(args):
            kind = fixed[i] if i < len(fixed) else variadic
            assert kind is not None
            value = self.arg(a, kind, dot, dot_iface, frame)
            if name == "slice" and i > 0 and self.is_interface_value(a, dot_iface, frame):
                value = as_interface(value)
            values.append(value)
        try:
            if not has_final:
                return call_plain(name, *values)
            i = len(args)
            final_kind = fixed[i] if i < len(fixed) else variadic
            return call(name, final_kind, final, *values)
        except ExecError as exc:
            context = name if not args else " ".join(str(a) for a in [ident, *args])
            raise self.fail(ident, frame, exc.message, context) from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _mark_interface(scope: list[_Var], cell: Cell) -> None:
    """A variable assigned range elements holds ``interface {}`` values from now on."""
    for i in range(len(scope) - 1, -1, -1):
        if scope[i][1] is cell:
            scope[i] = (scope[i][0], cell, True)
            return


def _may_be_nil_interface(cmd: n.CommandNode) -> bool:
    """Whether a command's result may be a nil interface that the pipeline must strip."""
    first = cmd.args[0]
    if isinstance(first, n.DotNode):
        return True
    if isinstance(first, n.VariableNode):
        return len(first.idents) == 1
    if isinstance(first, n.IdentifierNode):
        return first.name in ("index", "slice", "and", "or", "call")
    return False
