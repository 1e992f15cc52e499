"""Execute a Go template tree directly, as Go's executor does.

Walking the parsed tree costs nothing before the render, so a 100,000-action template
starts at once. Go's value semantics live in :mod:`.runtime`; this module is the walk:
scopes, control flow, argument typing and Go's errors, held to Go's bytes and messages
by the parity tests.

Evaluation follows ``text/template/exec.go`` function by function, down to the node it
is "at" when something fails: Go names that node in its error (``executing "t" at
<.a.b>: ...``, at the node's line and byte column), and it is not always the one that
failed (a range over a string is reported at the last node its pipeline evaluated). The
walk keeps that node in ``at`` as Go's ``state.at`` does: one attribute store per node.

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
from renderer.engine.gotemplate.gofmt import StringList
from renderer.engine.gotemplate.lexer import go_quote
from renderer.engine.gotemplate.runtime import (
    FUNCS,
    MAX_EXEC_DEPTH,
    MISSING,
    Cell,
    ExecError,
    as_interface,
    describe,
    enter_template,
    go_type,
    invoke,
    is_true,
    print_value,
    range_items,
    value_string,
)
from renderer.engine.govalues import StringMap
from renderer.engine.sourcemap import SourceMap

#: A scope entry: Go variable name, its cell, and whether it holds an ``interface {}``
#: value (a range element), which Go's errors name by that type and ``slice`` treats
#: differently.
_Var = tuple[str, Cell, bool]

#: No value piped in (Go's missingVal as ``final``).
_NOFINAL = object()
#: Containers whose elements are of a type of their own, not ``interface {}``: split's
#: ``[]string`` and the controller's ``map[string]string``.
_TYPED_CONTAINERS = (StringList, StringMap)


class InterpError(Exception):
    """An execution error in template ``template`` at ``node`` (None: Go's state had no
    node yet); the node's text is Go's ``at <...>`` part, computed only when shown."""

    def __init__(self, node: n.Node | None, template: str, message: str) -> None:
        super().__init__(message)
        self.node = node
        self.template = template
        self.message = message

    def where(self) -> str:
        return str(self.node)


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
        self,
        tree: n.Tree,
        lines: SourceMap | None,
        max_output: int,
        marks: Marks,
        template_limit: int = MAX_EXEC_DEPTH,
    ) -> None:
        self.tree = tree
        #: the template calls this render's stack holds (Go's 100,000 where it can)
        self.template_limit = template_limit
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
        #: the node Go's executor is at (its state.node): what an error names
        self.at: n.Node | None = None

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

    def fail(self, frame: _Frame, message: str) -> InterpError:
        """Go's state.errorf: ``message`` at the node the executor is at."""
        return InterpError(self.at, frame.template, message)

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
                self.at = node
                value = self.pipeline(node.pipe, dot, dot_iface, frame)
                if not node.pipe.decl:
                    self.at = node
                    if top:
                        self.mark(node)
                    start = self.size
                    self.emit(print_value(value))
                    if self.spans is not None and self.size > start:
                        self.spans.append((start, self.size, node))
            elif kind is n.IfNode or kind is n.WithNode:
                assert isinstance(node, n.BranchNode)
                check()
                self.at = node
                self.if_with(node, dot, dot_iface, frame, kind is n.WithNode)
            elif kind is n.RangeNode:
                assert isinstance(node, n.RangeNode)
                check()
                self.at = node
                self.range(node, dot, dot_iface, frame)
            elif kind is n.TemplateNode:
                assert isinstance(node, n.TemplateNode)
                check()
                self.at = node
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
        try:
            value = self.pipeline(node.pipe, dot, dot_iface, frame)
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
        """walkRange: the pipeline's declarations hold the whole value first (pushed by
        :meth:`pipeline`, on top of the scope), then each iteration's index and element."""
        scope = frame.scope
        mark = len(scope)
        pipe = node.pipe
        try:
            value = self.pipeline(pipe, dot, dot_iface, frame)
            base = len(scope)
            nvars = len(pipe.decl)
            items: Iterable[tuple[Any, Any]]
            # Go 1.22+ ranges over an integer n as 0..n-1, elements of the integer's own
            # type (not interface values), with at most one variable.
            over_int = isinstance(value, int) and not isinstance(value, bool)
            if over_int:
                if nvars > 1:
                    raise self.fail(
                        frame, f"can't use {describe(value)} to iterate over more than one variable"
                    )
                kind = type(value)  # an int32 ranges over int32s, a uint8 over uint8s
                counted = range(value) if kind is int else map(kind, range(value))
                items = ((None, i) for i in counted)
                nonempty = value > 0
            else:
                try:
                    items = range_items(value)
                except ExecError as exc:
                    raise self.fail(frame, exc.message) from None
                nonempty = bool(items)
            # the elements of []interface {} and map[string]interface {} are interface
            # values; an integer's and a []string's (split's) are not
            elem_iface = not over_int and type(value) not in _TYPED_CONTAINERS
            if self.taken is not None:
                self.taken.add((node.pos, 0 if nonempty else 1))
            if not nonempty:
                if node.else_body is not None:
                    self.walk(node.else_body, dot, dot_iface, frame)
                return
            assign = pipe.is_assign
            key: Any
            elem: Any
            for pair in limits.bounded_iter(items):
                key, elem = pair  # type: ignore[misc]
                if nvars:
                    if assign:
                        if nvars == 1:
                            self.set_var(frame, pipe.decl[0], elem, elem_iface)
                        else:
                            self.set_var(frame, pipe.decl[0], key, False)
                            self.set_var(frame, pipe.decl[1], elem, elem_iface)
                    else:
                        top = scope[base - 1]
                        scope[base - 1] = (top[0], Cell(elem), elem_iface)
                        if nvars > 1:
                            scope[base - 2] = (scope[base - 2][0], Cell(key), False)
                try:
                    self.walk(node.body, elem, elem_iface, frame)
                except _Continue:
                    pass
                finally:
                    del scope[base:]
        except _Break:
            pass
        finally:
            del scope[mark:]

    def template_call(self, node: n.TemplateNode, dot: Any, dot_iface: bool, frame: _Frame) -> None:
        body = self.tree.templates.get(node.name)
        if body is None:
            raise self.fail(frame, f"template {go_quote(node.name)} not defined")
        try:
            depth = enter_template(frame.depth, self.template_limit)
        except ExecError as exc:
            raise self.fail(frame, exc.message) from None
        value: Any = MISSING
        if node.pipe is not None:
            value = self.pipeline(node.pipe, dot, dot_iface, frame)
        inner = _Frame(node.name, depth, [("$", Cell(value), False)])
        self.walk(body, value, False, inner)

    # -- variables ------------------------------------------------------------------------
    @staticmethod
    def lookup_var(frame: _Frame, name: str) -> _Var | None:
        for var in reversed(frame.scope):
            if var[0] == name:
                return var
        return None

    def set_var(self, frame: _Frame, var: n.VariableNode, value: Any, iface: bool) -> None:
        """Go's setVar: the last declared variable of the name gets ``value``."""
        name = var.idents[0]
        scope = frame.scope
        for i in range(len(scope) - 1, -1, -1):
            entry = scope[i]
            if entry[0] == name:
                entry[1].value = value
                if entry[2] is not iface:
                    scope[i] = (name, entry[1], iface)
                return
        raise self.fail(frame, f"undefined variable: {name}")

    # -- pipelines and commands (exec.go's eval functions) --------------------------------
    def pipeline(self, pipe: n.PipeNode, dot: Any, dot_iface: bool, frame: _Frame) -> Any:
        """evalPipeline: the commands in turn, each result un-interfaced (a nil interface
        is then invalid); declarations go into the frame's scope."""
        self.at = pipe
        value: Any = _NOFINAL
        for cmd in pipe.cmds:
            value = self.command(cmd, dot, dot_iface, frame, value)
            if value is None:
                value = MISSING
        for var in pipe.decl:
            if pipe.is_assign:
                self.set_var(frame, var, value, False)
            else:
                frame.scope.append((var.idents[0], Cell(value), False))
        return value

    def not_a_function(self, args: list[n.Node] | None, final: Any, frame: _Frame) -> None:
        if (args is not None and len(args) > 1) or final is not _NOFINAL:
            assert args is not None
            raise self.fail(frame, f"can't give argument to non-function {args[0]}")

    def command(
        self, cmd: n.CommandNode, dot: Any, dot_iface: bool, frame: _Frame, final: Any
    ) -> Any:
        """evalCommand."""
        args = cmd.args
        first = args[0]
        kind = type(first)
        if kind is n.FieldNode:
            assert isinstance(first, n.FieldNode)
            self.at = first
            if len(args) == 1 and final is _NOFINAL and type(dot) is dict:
                # the common ``.a`` / ``.a.b`` on a map: Go's evalFieldChain, inlined
                value: Any = dot
                iface = dot_iface
                idents = first.idents
                for i, name in enumerate(idents):
                    if type(value) is not dict:
                        return self.field_chain(value, iface, idents[i:], args, final, frame)
                    value = value.get(name, MISSING)
                    iface = True
                return value
            return self.field_chain(dot, dot_iface, first.idents, args, final, frame)
        if kind is n.IdentifierNode:
            assert isinstance(first, n.IdentifierNode)
            self.at = first
            return self.call(first.name, cmd, args, dot, dot_iface, frame, final)
        if kind is n.VariableNode:
            assert isinstance(first, n.VariableNode)
            return self.variable(first, args, dot, frame, final)
        if kind is n.ChainNode:
            assert isinstance(first, n.ChainNode)
            return self.chain(first, args, dot, dot_iface, frame, final)
        if kind is n.PipeNode:
            assert isinstance(first, n.PipeNode)
            self.not_a_function(args, final, frame)
            return self.pipeline(first, dot, dot_iface, frame)
        self.at = first
        self.not_a_function(args, final, frame)
        if kind is n.DotNode:
            return dot
        if kind is n.NilNode:
            raise self.fail(frame, "nil is not a command")
        return self.constant(first, frame)

    def constant(self, node: n.Node, frame: _Frame) -> Any:
        """A bool, string or number where no type is imposed (idealConstant)."""
        if isinstance(node, n.StringNode):
            return node.value
        if isinstance(node, n.BoolNode):
            return node.value
        assert isinstance(node, n.NumberNode)
        if node.kind == "int":
            return node.int_value
        if node.kind == "float":
            return node.float_value
        if node.kind == "complex":
            return node.complex_value
        raise self.fail(frame, node.error)

    def field_chain(
        self,
        receiver: Any,
        iface: bool,
        idents: tuple[str, ...],
        args: list[n.Node] | None,
        final: Any,
        frame: _Frame,
    ) -> Any:
        """evalFieldChain over maps: ``.a.b.c`` from ``receiver`` (an ``interface {}``
        value when ``iface``; every value after the first is one), the last field given
        ``args`` (the command's words, itself first) and ``final``."""
        last = len(idents) - 1
        for i, name in enumerate(idents):
            if receiver is MISSING:
                return MISSING
            if receiver is None:
                raise self.fail(frame, f"nil pointer evaluating interface {{}}.{name}")
            if isinstance(receiver, dict):
                if i == last and ((args is not None and len(args) > 1) or final is not _NOFINAL):
                    raise self.fail(frame, f"{name} is not a method but has arguments")
                # a map[string]string holds strings, not interface values
                iface = type(receiver) is not StringMap
                receiver = receiver.get(name, MISSING)
                continue
            typ = "interface {}" if iface else go_type(receiver)
            raise self.fail(frame, f"can't evaluate field {name} in type {typ}")
        return receiver

    def variable(
        self, node: n.VariableNode, args: list[n.Node] | None, dot: Any, frame: _Frame, final: Any
    ) -> Any:
        """evalVariableNode: ``$x`` or ``$x.a.b``."""
        self.at = node
        var = self.lookup_var(frame, node.idents[0])
        if var is None:
            raise self.fail(frame, f"undefined variable: {node.idents[0]}")
        if len(node.idents) == 1:
            self.not_a_function(args, final, frame)
            return var[1].value
        return self.field_chain(var[1].value, var[2], node.idents[1:], args, final, frame)

    def chain(
        self,
        node: n.ChainNode,
        args: list[n.Node] | None,
        dot: Any,
        dot_iface: bool,
        frame: _Frame,
        final: Any,
    ) -> Any:
        """evalChainNode: ``(pipeline).a.b``."""
        self.at = node
        receiver = self.arg(node.node, None, dot, dot_iface, frame)
        return self.field_chain(receiver, False, node.fields, args, final, frame)

    def arg(self, node: n.Node, kind: str | None, dot: Any, dot_iface: bool, frame: _Frame) -> Any:
        """evalArg: one argument for a parameter of ``kind`` ("value": reflect.Value,
        "any": interface{}, "string"; None: no type)."""
        self.at = node
        t = type(node)
        if t is n.FieldNode:
            assert isinstance(node, n.FieldNode)
            value = self.field_chain(dot, dot_iface, node.idents, None, _NOFINAL, frame)
        elif t is n.VariableNode:
            assert isinstance(node, n.VariableNode)
            value = self.variable(node, None, dot, frame, _NOFINAL)
        elif t is n.DotNode:
            value = dot
        elif t is n.PipeNode:
            assert isinstance(node, n.PipeNode)
            value = self.pipeline(node, dot, dot_iface, frame)
        elif t is n.IdentifierNode:
            assert isinstance(node, n.IdentifierNode)
            value = self.call(node.name, node, None, dot, dot_iface, frame, _NOFINAL)
        elif t is n.ChainNode:
            assert isinstance(node, n.ChainNode)
            value = self.chain(node, None, dot, dot_iface, frame, _NOFINAL)
        elif t is n.NilNode:
            if kind == "string":
                raise self.fail(frame, "cannot assign nil to string")
            return MISSING if kind == "value" else None
        elif kind == "string":
            if isinstance(node, n.StringNode):
                return node.value
            raise self.fail(frame, f"expected string; found {node}")
        else:
            return self.constant(node, frame)
        return self.validate(value, kind, frame)

    def validate(self, value: Any, kind: str | None, frame: _Frame) -> Any:
        """validateType: ``value`` as a parameter of ``kind`` takes it."""
        if kind == "string":
            if type(value) is str:
                return value
            if value is MISSING:
                raise self.fail(frame, "invalid value; expected string")
            typ = "interface {}" if value is None else go_type(value)
            raise self.fail(frame, f"wrong type for value; expected string; got {typ}")
        if kind == "any" and value is MISSING:
            return None
        return value

    def is_interface_value(self, node: n.Node, dot_iface: bool, frame: _Frame) -> bool:
        """Whether Go passes ``node``'s value as an interface (``slice`` tells them apart)."""
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

    def call(
        self,
        name: str,
        node: n.Node,
        words: list[n.Node] | None,
        dot: Any,
        dot_iface: bool,
        frame: _Frame,
        final: Any,
    ) -> Any:
        """evalCall of function ``name``: ``words`` are the command's (the name first),
        ``node`` what a failed call is reported at (the command, or the identifier when
        it is an argument)."""
        args = words[1:] if words is not None else []
        has_final = final is not _NOFINAL
        num_in = len(args) + has_final
        impl, fixed, variadic = FUNCS[name]
        if variadic is not None:
            if num_in < len(fixed):
                raise self.fail(
                    frame,
                    f"wrong number of args for {name}: want at least {len(fixed)} got {len(args)}",
                )
        elif num_in != len(fixed):
            raise self.fail(
                frame, f"wrong number of args for {name}: want {len(fixed)} got {num_in}"
            )
        if name == "and" or name == "or":
            want = name == "or"
            value: Any = MISSING
            for a in args:
                value = self.arg(a, "value", dot, dot_iface, frame)
                if is_true(value) is want:
                    return value
            return final if has_final else value
        values: list[Any] = []
        for i, a in enumerate(args):
            value = self.arg(a, fixed[i] if i < len(fixed) else variadic, dot, dot_iface, frame)
            if name == "slice" and i > 0 and self.is_interface_value(a, dot_iface, frame):
                value = as_interface(value)
            values.append(value)
        if has_final:
            final_kind = fixed[num_in - 1] if num_in - 1 < len(fixed) else variadic
            values.append(self.validate(final, final_kind, frame))
        if name == "call":
            # Go's call builtin names the callee by its node, or a piped value as
            # reflect.Value prints itself
            values.insert(0, str(args[0]) if args else value_string(final))
        try:
            return invoke(name, impl, values)
        except ExecError as exc:
            self.at = node
            raise self.fail(frame, exc.message) from None
