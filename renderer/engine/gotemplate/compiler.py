"""Compile a Go template tree to a Jinja2 AST (``jinja2.nodes``).

Building Jinja nodes directly (instead of generating Jinja source text) means literal
YAML that happens to contain ``{%``, ``{#`` or ``{{`` needs no escaping, and every Go
semantic stays in :mod:`.runtime`: the Jinja code only sequences calls to it.

Mapping:

* text -> ``TemplateData``; an action -> ``go_print(pipeline)``
* if/with -> ``If`` on ``go_truth``; with binds the new dot to a fresh name
* range -> ``For`` over ``go_range`` pairs, with Jinja's for-else for Go's else
* variables -> mutable cells (``go_cell``), so ``$x = v`` inside a range body updates
  the outer variable as in Go, although Jinja scopes loop bodies
* define/block -> one ``Macro`` per reachable template; ``template`` calls it with the
  new dot and the call depth
* ``and``/``or`` -> Jinja ``And``/``Or`` (Python's short-circuit) over operands wrapped
  so that their truth is Go's
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from jinja2 import nodes as j

from renderer.engine.gotemplate import nodes as n
from renderer.engine.gotemplate.runtime import FUNCS


@dataclass
class Position:
    """Where a runtime check sits: for ``file:line:col`` and Go's ``at <...>`` context."""

    offset: int
    context: str
    template: str


@dataclass
class _Frame:
    """Compile-time state of one template body."""

    template: str
    depth: j.Expr
    scope: list[tuple[str, str]] = field(default_factory=list)


def _g(name: str) -> j.Name:
    return j.Name(name, "load")


def _call(fn: str, *args: j.Expr) -> j.Call:
    return j.Call(_g(fn), list(args), [], None, None)


_NONE = j.Const(None)

#: Nesting of if/with/range compiled into one Python function. Python allows 20 nested
#: loops and 100 indentation levels per function; deeper blocks go into a macro of their
#: own (see Compiler.hoist), so Go's unlimited nesting compiles.
HOIST_DEPTH = 8


def _loose_jump(node: n.BranchNode) -> bool:
    """True when ``{{break}}``/``{{continue}}`` in ``node`` belongs to an enclosing range
    (it cannot move into a function of its own): anywhere in an if or with, in the
    ``{{else}}`` of a range."""
    bodies = [node.else_body] if isinstance(node, n.RangeNode) else [node.body, node.else_body]
    return _has_jump(bodies, (n.BreakNode, n.ContinueNode))


def _has_jump(bodies: list[n.ListNode | None], kinds: tuple[type, ...]) -> bool:
    """Whether ``bodies`` hold a jump of ``kinds`` outside any nested range."""
    todo = list(bodies)
    while todo:
        body = todo.pop()
        if body is None:
            continue
        for child in body.nodes:
            if isinstance(child, kinds):
                return True
            if isinstance(child, n.IfNode | n.WithNode):
                todo += [child.body, child.else_body]
    return False


class Compiler:
    def __init__(self, tree: n.Tree) -> None:
        self.tree = tree
        self.positions: list[Position] = []
        self.counter = 0
        self.macros: dict[str, str] = {}
        # Jinja names (dots and variable cells) that hold range elements: in Go these are
        # interface-typed values, which a few builtins treat differently.
        self.interface_names: set[str] = set()
        self.frame = _Frame(tree.name, j.Const(0))
        # if/with/range nesting now, and where the current Python function began
        self.nesting = 0
        self.hoist_base = 0
        self.hoisted: list[j.Node] = []
        # set while compiling a range's {{else}}: the cell a {{continue}} there sets
        self.else_flag: str | None = None
        # Source maps: top-level text and actions are preceded by ``go_mark(line)``
        # (see runtime.TRACE); inside macros output is buffered, so no marks there.
        self.marking = True
        self.newlines = [m.start() for m in re.finditer("\n", tree.source)]

    # -- helpers -------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def pos(self, node: n.Node, context: str | None = None) -> j.Const:
        self.positions.append(
            Position(node.pos, str(node) if context is None else context, self.frame.template)
        )
        return j.Const(len(self.positions) - 1)

    def line_of(self, offset: int) -> int:
        """1-based source line of character ``offset``."""
        return bisect.bisect_left(self.newlines, offset) + 1

    def mark(self, node: n.Node, text: str | None) -> list[j.Expr]:
        """The marker output before a top-level chunk (empty inside macros): literal
        ``text`` with its newline count, or an action (None)."""
        if not self.marking:
            return []
        line = self.line_of(node.pos)
        if text is None:
            return [_call("go_mark", j.Const(-line))]
        return [_call("go_mark", j.Const(line), j.Const(text.count("\n")))]

    def fail(self, node: n.Node, message: str, *first: j.Expr) -> j.Expr:
        return _call("go_fail", self.pos(node), j.Const(message), *first)

    def lookup(self, name: str) -> str | None:
        for go_name, cell in reversed(self.frame.scope):
            if go_name == name:
                return cell
        return None

    # -- templates -------------------------------------------------------------------------
    def reachable(self) -> list[str]:
        """Names of templates the executed one can call, directly or not."""
        seen: list[str] = []
        todo = [self.tree.name]
        while todo:
            name = todo.pop()
            if name in seen or name not in self.tree.templates:
                continue
            seen.append(name)
            for node in _walk(self.tree.templates[name]):
                if isinstance(node, n.TemplateNode):
                    todo.append(node.name)
        return seen

    def compile(self) -> j.Template:
        names = self.reachable()
        main = self.tree.name
        # The executed template runs inline unless something calls it by name; Jinja
        # compiles top-level code faster than a macro body of the same size.
        called = {
            node.name
            for name in names
            for node in _walk(self.tree.templates[name])
            if isinstance(node, n.TemplateNode)
        }
        macro_names = [name for name in names if name != main or main in called]
        for name in macro_names:
            self.macros[name] = self.fresh("go_tpl_")
        body: list[j.Node] = [self.macro(name) for name in macro_names]
        if main in self.macros:
            call = j.Call(_g(self.macros[main]), [j.Const(0), _g("go_root")], [], None, None)
            body.append(j.Output([call]))
        else:
            body += self.body(main, _g("go_root"))
        return j.Template(_merge_outputs([*self.hoisted, *body]))

    def body(self, name: str, dot: j.Expr) -> list[j.Node]:
        """Statements of template ``name`` with ``dot`` as both dot and ``$``."""
        dollar = self.fresh("v")
        self.frame.scope.append(("$", dollar))
        stmts: list[j.Node] = [j.Assign(j.Name(dollar, "store"), _call("go_cell", dot))]
        return stmts + self.statements(self.tree.templates[name], dot)

    def macro(self, name: str) -> j.Macro:
        saved, saved_marking = self.frame, self.marking
        self.frame = _Frame(name, _g("depth"))
        self.marking = False
        stmts = self.body(name, _g("dot"))
        self.frame, self.marking = saved, saved_marking
        return j.Macro(
            self.macros[name],
            [j.Name("depth", "param"), j.Name("dot", "param")],
            [],
            _merge_outputs(stmts),
        )

    # -- statements ------------------------------------------------------------------------
    def statements(self, body: n.ListNode, dot: j.Expr) -> list[j.Node]:
        out: list[j.Node] = []
        for node in body.nodes:
            out += self.statement(node, dot)
        return out

    def statement(self, node: n.Node, dot: j.Expr) -> list[j.Node]:
        if isinstance(node, n.TextNode):
            return [j.Output([*self.mark(node, node.text), j.TemplateData(node.text)])]
        if isinstance(node, n.CommentNode):
            return []
        if isinstance(node, n.ActionNode):
            stmts, value = self.pipeline_stmt(node.pipe, dot)
            if node.pipe.decl:
                return stmts
            printed = _call("go_print", self.pos(node), value)
            return [*stmts, j.Output([*self.mark(node, None), printed])]
        if isinstance(node, n.IfNode | n.WithNode | n.RangeNode):
            if self.nesting - self.hoist_base >= HOIST_DEPTH and not _loose_jump(node):
                return self.hoist(node, dot)
            self.nesting += 1
            try:
                if isinstance(node, n.RangeNode):
                    return self.range(node, dot)
                return self.if_with(node, dot, is_with=isinstance(node, n.WithNode))
            finally:
                self.nesting -= 1
        if isinstance(node, n.TemplateNode):
            return self.template_call(node, dot)
        if isinstance(node, n.BreakNode):
            return [j.Break()]
        if isinstance(node, n.ContinueNode):
            if self.else_flag is not None:  # continue the enclosing range: see range()
                flag = _call("go_set", _g(self.else_flag), j.Const(True))
                return [j.Output([flag]), j.Break()]
            return [j.Continue()]
        raise AssertionError(f"unknown node {node!r}")

    def hoist(self, node: n.BranchNode, dot: j.Expr) -> list[j.Node]:
        """Compile ``node`` into a top-level macro called in its place. Its parameters
        are the template depth, dot and every variable cell in scope under their own
        names, so the body compiles exactly as inline (assignments go through cells)."""
        stmts: list[j.Node] = []
        if not isinstance(dot, j.Name):
            tmp = self.fresh("t")
            stmts.append(j.Assign(j.Name(tmp, "store"), dot))
            dot = _g(tmp)
        params = list(dict.fromkeys([dot.name, *(cell for _, cell in self.frame.scope)]))
        name = self.fresh("go_blk_")
        saved = (self.frame.depth, self.hoist_base, self.marking)
        # a macro's output is buffered: no source marks inside, its call line stands
        self.frame.depth, self.hoist_base, self.marking = _g("depth"), self.nesting, False
        try:
            body = self.statement(node, dot)
        finally:
            self.frame.depth, self.hoist_base, self.marking = saved
        self.hoisted.append(
            j.Macro(
                name,
                [j.Name("depth", "param"), *(j.Name(p, "param") for p in params)],
                [],
                _merge_outputs(body),
            )
        )
        call = j.Call(_g(name), [saved[0], *(_g(p) for p in params)], [], None, None)
        return [*stmts, j.Output([*self.mark(node, None), call])]

    def range_else(self, node: n.RangeNode, dot: j.Expr) -> list[j.Node]:
        """The ``{{else}}`` of a range. Go runs it inside the range's own recover, so a
        ``{{break}}`` there ends only the else part, while ``{{continue}}`` goes on with
        the enclosing range. With a break, the else part runs in a loop of one pass: break
        leaves it, and continue sets a cell, leaves it and continues outside."""
        if node.else_body is None:
            return []
        if not _has_jump([node.else_body], (n.BreakNode,)):
            return self.statements(node.else_body, dot)
        flag = self.fresh("f")
        saved, self.else_flag = self.else_flag, flag
        try:
            stmts = self.statements(node.else_body, dot)
        finally:
            self.else_flag = saved
        once = j.For(j.Name(self.fresh("o"), "store"), j.List([j.Const(0)]), stmts, [], None, False)
        resume: list[j.Node] = (
            [j.Continue()]
            if saved is None
            else self.statement(n.ContinueNode(node.pos, node.line), dot)
        )
        return [
            j.Assign(j.Name(flag, "store"), _call("go_cell", j.Const(False))),
            once,
            j.If(_call("go_get", _g(flag)), resume, [], []),
        ]

    def if_with(self, node: n.BranchNode, dot: j.Expr, is_with: bool) -> list[j.Node]:
        mark = len(self.frame.scope)
        stmts, value = self.pipeline_stmt(node.pipe, dot)
        inner_dot = dot
        if is_with:
            if not isinstance(value, j.Name):
                tmp = self.fresh("t")
                stmts.append(j.Assign(j.Name(tmp, "store"), value))
                value = _g(tmp)
            inner_dot = value
        body = self.statements(node.body, inner_dot)
        else_body = self.statements(node.else_body, dot) if node.else_body else []
        del self.frame.scope[mark:]
        test = _call("go_truth", value)
        return [*stmts, j.If(test, _merge_outputs(body), [], _merge_outputs(else_body))]

    def range(self, node: n.RangeNode, dot: j.Expr) -> list[j.Node]:
        mark = len(self.frame.scope)
        pipe = node.pipe
        value = self.pipeline_value(pipe, dot)
        tmp = self.fresh("t")
        stmts: list[j.Node] = [j.Assign(j.Name(tmp, "store"), value)]
        # Go pushes the declared variables holding the whole value before iterating;
        # each iteration then overwrites them with the index and element.
        cells: list[str | None] = []
        for var in pipe.decl:
            name = var.idents[0]
            if pipe.is_assign:
                cell = self.lookup(name)
                cells.append(cell)
                if cell is None:
                    stmts.append(j.Output([self.fail(var, f"undefined variable: {name}")]))
                else:
                    stmts.append(j.Output([_call("go_set", _g(cell), _g(tmp))]))
            else:
                cell = self.fresh("v")
                cells.append(cell)
                stmts.append(j.Assign(j.Name(cell, "store"), _call("go_cell", _g(tmp))))
        if not pipe.is_assign:
            for var, cell in zip(pipe.decl, cells, strict=True):
                assert cell is not None
                self.frame.scope.append((var.idents[0], cell))
        key, elem = self.fresh("k"), self.fresh("e")
        body: list[j.Node] = []
        targets: list[tuple[str | None, str]] = []
        if len(cells) == 1:
            targets = [(cells[0], elem)]
        elif len(cells) == 2:
            targets = [(cells[0], key), (cells[1], elem)]
        for cell, source in targets:
            if cell is None:
                continue
            if source == elem:
                self.interface_names.add(cell)
            if pipe.is_assign:
                body.append(j.Output([_call("go_set", _g(cell), _g(source))]))
            else:
                body.append(j.Assign(j.Name(cell, "store"), _call("go_cell", _g(source))))
        self.interface_names.add(elem)
        saved_flag, self.else_flag = self.else_flag, None
        try:
            body += self.statements(node.body, _g(elem))
        finally:
            self.else_flag = saved_flag
        else_body = self.range_else(node, dot)
        del self.frame.scope[mark:]
        items = self.fresh("t")
        loop = j.For(
            j.Tuple([j.Name(key, "store"), j.Name(elem, "store")], "store"),
            # counted against the render's iteration and time budget (renderer.engine.limits)
            j.Call(j.EnvironmentAttribute("bounded_iter"), [_g(items)], [], None, None),
            _merge_outputs(body),
            [],
            None,
            False,
        )
        # Not Jinja's for-else: Jinja marks "iterated" at the end of the loop body, so a
        # {{continue}} in every iteration would wrongly run the else branch.
        listed = j.Assign(
            j.Name(items, "store"), _call("go_range", self.pos(node, str(pipe)), _g(tmp))
        )
        return [*stmts, listed, j.If(_g(items), [loop], [], _merge_outputs(else_body))]

    def template_call(self, node: n.TemplateNode, dot: j.Expr) -> list[j.Node]:
        if node.name not in self.macros:
            from renderer.engine.gotemplate.lexer import go_quote

            return [j.Output([self.fail(node, f"template {go_quote(node.name)} not defined")])]
        stmts: list[j.Node] = []
        value: j.Expr = _g("go_missing")
        if node.pipe is not None:
            stmts, value = self.pipeline_stmt(node.pipe, dot)
        depth = _call("go_enter", self.pos(node), self.frame.depth)
        call = j.Call(_g(self.macros[node.name]), [depth, value], [], None, None)
        return [*stmts, j.Output([*self.mark(node, None), call])]

    # -- pipelines -------------------------------------------------------------------------
    def pipeline_stmt(self, pipe: n.PipeNode, dot: j.Expr) -> tuple[list[j.Node], j.Expr]:
        """Evaluate ``pipe``; declarations become statements and scope entries."""
        value = self.pipeline_value(pipe, dot)
        if not pipe.decl:
            return [], value
        tmp = self.fresh("t")
        stmts: list[j.Node] = [j.Assign(j.Name(tmp, "store"), value)]
        for var in pipe.decl:
            name = var.idents[0]
            if pipe.is_assign:
                cell = self.lookup(name)
                if cell is None:
                    stmts.append(j.Output([self.fail(var, f"undefined variable: {name}")]))
                else:
                    stmts.append(j.Output([_call("go_set", _g(cell), _g(tmp))]))
            else:
                cell = self.fresh("v")
                stmts.append(j.Assign(j.Name(cell, "store"), _call("go_cell", _g(tmp))))
                self.frame.scope.append((name, cell))
        return stmts, _g(tmp)

    def pipeline_value(self, pipe: n.PipeNode, dot: j.Expr) -> j.Expr:
        value: j.Expr | None = None
        for cmd in pipe.cmds:
            value = self.command(cmd, dot, value)
            if _may_be_nil_interface(cmd):
                value = _call("go_uniface", value)
        assert value is not None
        return value

    def nested_pipeline(self, pipe: n.PipeNode, dot: j.Expr) -> j.Expr:
        """A parenthesised pipeline used as a value."""
        if pipe.decl:
            return self.fail(pipe, "variable declarations inside parentheses are not supported")
        return self.pipeline_value(pipe, dot)

    def command(self, cmd: n.CommandNode, dot: j.Expr, final: j.Expr | None) -> j.Expr:
        first = cmd.args[0]
        has_args = len(cmd.args) > 1 or final is not None
        f: j.Expr = final if final is not None else _NONE
        if isinstance(first, n.FieldNode):
            if not has_args:
                return _call("go_f", self.pos(first), dot, j.Const(first.idents))
            return _call(
                "go_field", self.pos(first), f, dot, j.Const(first.idents), j.Const(has_args)
            )
        if isinstance(first, n.ChainNode):
            receiver = self.operand_value(first.node, dot)
            return _call(
                "go_chain", self.pos(first), f, receiver, j.Const(first.fields), j.Const(has_args)
            )
        if isinstance(first, n.IdentifierNode):
            return self.function(first, cmd.args[1:], dot, final)
        if isinstance(first, n.VariableNode):
            cell = self.lookup(first.idents[0])
            if cell is None:
                return self.fail(first, f"undefined variable: {first.idents[0]}", f)
            if len(first.idents) == 1:
                if has_args:
                    return self.fail(first, f"can't give argument to non-function {first}", f)
                return _call("go_get", _g(cell))
            return _call(
                "go_var_chain",
                self.pos(first),
                f,
                _g(cell),
                j.Const(first.idents[1:]),
                j.Const(has_args),
            )
        if has_args:
            text = f"({first})" if isinstance(first, n.PipeNode) else str(first)
            return self.fail(first, f"can't give argument to non-function {text}", f)
        if isinstance(first, n.PipeNode):
            return self.nested_pipeline(first, dot)
        if isinstance(first, n.NilNode):
            return self.fail(first, "nil is not a command")
        return self.literal(first, dot)

    def literal(self, node: n.Node, dot: j.Expr) -> j.Expr:
        """A constant where no type is imposed (Go's evalEmptyInterface/idealConstant)."""
        if isinstance(node, n.BoolNode):
            return j.Const(node.value)
        if isinstance(node, n.StringNode):
            return j.Const(node.value)
        if isinstance(node, n.NumberNode):
            if node.kind == "int":
                return j.Const(node.int_value)
            if node.kind == "float":
                return j.Const(node.float_value)
            return self.fail(node, node.error)
        if isinstance(node, n.DotNode):
            return dot
        raise AssertionError(f"not a literal: {node!r}")

    def operand_value(self, node: n.Node, dot: j.Expr) -> j.Expr:
        """An operand evaluated on its own (evalArg with no type): for chains."""
        if isinstance(node, n.PipeNode):
            return self.nested_pipeline(node, dot)
        if isinstance(node, n.IdentifierNode):
            return self.function(node, [], dot, None)
        return self.arg(node, "value", dot)

    def arg(self, node: n.Node, kind: str, dot: j.Expr) -> j.Expr:
        """evalArg: one argument for a parameter of ``kind`` (value, any or string)."""
        raw: j.Expr
        if isinstance(node, n.NilNode):
            if kind == "value":
                return _g("go_missing")
            if kind == "any":
                return _NONE
            return self.fail(node, f"cannot assign nil to {kind}")
        if isinstance(node, n.DotNode):
            raw = dot
        elif isinstance(node, n.FieldNode):
            raw = _call("go_f", self.pos(node), dot, j.Const(node.idents))
        elif isinstance(node, n.VariableNode):
            cell = self.lookup(node.idents[0])
            if cell is None:
                return self.fail(node, f"undefined variable: {node.idents[0]}")
            if len(node.idents) == 1:
                raw = _call("go_get", _g(cell))
            else:
                raw = _call(
                    "go_var_chain",
                    self.pos(node),
                    _NONE,
                    _g(cell),
                    j.Const(node.idents[1:]),
                    j.Const(False),
                )
        elif isinstance(node, n.PipeNode):
            raw = self.nested_pipeline(node, dot)
        elif isinstance(node, n.IdentifierNode):
            raw = self.function(node, [], dot, None)
        elif isinstance(node, n.ChainNode):
            receiver = self.operand_value(node.node, dot)
            raw = _call(
                "go_chain", self.pos(node), _NONE, receiver, j.Const(node.fields), j.Const(False)
            )
        else:
            # a literal: typed parameters accept only their own kind of literal
            if kind == "string":
                if isinstance(node, n.StringNode):
                    return j.Const(node.value)
                return self.fail(node, f"expected string; found {node}")
            return self.literal(node, dot)
        if kind == "any":
            return _call("go_arg_any", self.pos(node), raw)
        if kind == "string":
            return _call("go_arg_string", self.pos(node), raw)
        return raw

    def is_interface_value(self, node: n.Node, dot: j.Expr) -> bool:
        """Whether Go would pass ``node``'s value as an interface (not yet unwrapped).

        Map lookups and range elements are ``interface {}`` values; pipelines, literals
        and variables set from pipelines are concrete. Only ``slice`` can tell.
        """
        if isinstance(node, n.FieldNode | n.ChainNode):
            return True
        if isinstance(node, n.VariableNode):
            if len(node.idents) > 1:
                return True
            cell = self.lookup(node.idents[0])
            return cell is not None and cell in self.interface_names
        if isinstance(node, n.DotNode):
            return isinstance(dot, j.Name) and dot.name in self.interface_names
        return False

    def function(
        self, ident: n.IdentifierNode, args: list[n.Node], dot: j.Expr, final: j.Expr | None
    ) -> j.Expr:
        name = ident.name
        f: j.Expr = final if final is not None else _NONE
        num_in = len(args) + (1 if final is not None else 0)
        if name in ("and", "or"):
            if num_in < 1:
                return self.fail(
                    ident, f"wrong number of args for {name}: want at least 1 got 0", f
                )
            # Python's own short-circuit "and"/"or" over values wrapped with Go's truth:
            # each operand is evaluated at most once, however deeply calls nest.
            operands: list[j.Expr] = [_call("go_truth_of", self.arg(a, "value", dot)) for a in args]
            if final is not None:
                operands.append(_g("go_and_done" if name == "and" else "go_or_done"))
            chain = operands[0]
            for op in operands[1:]:
                chain = j.And(chain, op) if name == "and" else j.Or(chain, op)
            return _call("go_logic", f, chain)
        _, fixed, variadic = FUNCS[name]
        if variadic is not None:
            if num_in < len(fixed):
                return self.fail(
                    ident,
                    f"wrong number of args for {name}: want at least {len(fixed)} got {len(args)}",
                    f,
                )
        elif num_in != len(fixed):
            return self.fail(
                ident, f"wrong number of args for {name}: want {len(fixed)} got {num_in}", f
            )
        jargs: list[j.Expr] = []
        for i, a in enumerate(args):
            kind = fixed[i] if i < len(fixed) else variadic
            assert kind is not None
            value = self.arg(a, kind, dot)
            if name == "slice" and i > 0 and self.is_interface_value(a, dot):
                value = _call("go_iface", value)
            jargs.append(value)
        final_kind: str | None = None
        if final is not None:
            i = len(args)
            final_kind = fixed[i] if i < len(fixed) else variadic
        context = ident.name if not args else " ".join(str(a) for a in [ident, *args])
        if final is None:
            return _call("go_fn", self.pos(ident, context), j.Const(name), *jargs)
        return _call(
            "go_call", self.pos(ident, context), j.Const(name), j.Const(final_kind), f, *jargs
        )


def _may_be_nil_interface(cmd: n.CommandNode) -> bool:
    """Whether a command's result may be a nil interface that the pipeline must strip.

    Field and chain lookups strip it themselves and most functions return concrete
    values; dot, bare variables (range elements) and some builtins may not.
    """
    first = cmd.args[0]
    if isinstance(first, n.DotNode):
        return True
    if isinstance(first, n.VariableNode):
        return len(first.idents) == 1
    if isinstance(first, n.IdentifierNode):
        return first.name in ("index", "slice", "and", "or", "call")
    return False


def _merge_outputs(stmts: list[j.Node]) -> list[j.Node]:
    """Join adjacent Output nodes (and adjacent text) so literal YAML stays in big chunks."""
    out: list[j.Node] = []
    for stmt in stmts:
        if isinstance(stmt, j.Output) and out and isinstance(out[-1], j.Output):
            out[-1].nodes.extend(stmt.nodes)
        else:
            out.append(stmt)
    for stmt in out:
        if isinstance(stmt, j.Output):
            merged: list[j.Expr] = []
            for child in stmt.nodes:
                if (
                    isinstance(child, j.TemplateData)
                    and merged
                    and isinstance(merged[-1], j.TemplateData)
                ):
                    merged[-1] = j.TemplateData(merged[-1].data + child.data)
                else:
                    merged.append(child)
            stmt.nodes = merged
    return out


def _walk(node: n.Node) -> list[n.Node]:
    """Every statement node under ``node`` (not descending into pipelines)."""
    out: list[n.Node] = []
    stack: list[n.Node] = [node]
    while stack:
        cur = stack.pop()
        out.append(cur)
        if isinstance(cur, n.ListNode):
            stack.extend(cur.nodes)
        elif isinstance(cur, n.BranchNode):
            stack.append(cur.body)
            if cur.else_body is not None:
                stack.append(cur.else_body)
    return out


def compile_tree(tree: n.Tree) -> tuple[j.Template, list[Position]]:
    """Compile ``tree`` to a Jinja template AST plus its table of runtime positions."""
    compiler = Compiler(tree)
    return compiler.compile(), compiler.positions
