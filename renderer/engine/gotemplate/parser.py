"""Go ``text/template`` parser, following ``parse/parse.go`` production by production.

Go decides a lot at parse time (unknown functions, undefined variables, misplaced
``break``) and leaves the rest to execution (wrong argument counts, unknown templates).
Mirroring that split matters: a construct that is wrong but never executed must still
render, as it does for BKE's controller.
"""

from __future__ import annotations

from renderer.engine.gotemplate import nodes as n
from renderer.engine.gotemplate.errors import GoTemplateError, line_col
from renderer.engine.gotemplate.lexer import Item, T, go_quote, lex
from renderer.engine.gotemplate.literals import LiteralError, go_number, unquote

#: Functions known at parse time: Go's builtins plus the BKE controller's FuncMap.
BUILTIN_FUNCTIONS = frozenset(
    {
        "and",
        "call",
        "html",
        "index",
        "slice",
        "js",
        "len",
        "not",
        "or",
        "print",
        "printf",
        "println",
        "urlquery",
        "eq",
        "ge",
        "gt",
        "le",
        "lt",
        "ne",
    }
)
CONTROLLER_FUNCTIONS = frozenset(
    {
        "defaultFalse",
        "b64encode",
        "split",
        "stringToSliceString",
        "int",
        "indent",
        "vgt",
        "vlt",
        "veq",
        "vgte",
        "vlte",
        "vne",
    }
)
FUNCTIONS = BUILTIN_FUNCTIONS | CONTROLLER_FUNCTIONS
#: Go's ``maxStackDepth`` (after 1.24): the most parentheses one expression may nest.
MAX_PAREN_DEPTH = 10_000


class _End(n.Node):
    """Internal marker for ``{{end}}`` (never part of a finished tree)."""

    def __str__(self) -> str:
        return "{{end}}"


class _Else(n.Node):
    """Internal marker for ``{{else}}`` / ``{{else if}}``."""

    def __str__(self) -> str:
        return "{{else}}"


def is_empty_tree(node: n.Node | None) -> bool:
    """parse.IsEmptyTree: only whitespace text and comments."""
    if node is None or isinstance(node, n.CommentNode):
        return True
    if isinstance(node, n.ListNode):
        return all(is_empty_tree(child) for child in node.nodes)
    if isinstance(node, n.TextNode):
        return node.text.strip(_GO_SPACE) == ""
    return False


#: unicode.IsSpace, what bytes.TrimSpace removes.
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


class _TreeSet:
    """Go's treeSet plus its ``add`` rule for repeated and empty definitions."""

    def __init__(self) -> None:
        self.trees: dict[str, n.ListNode] = {}

    def add(self, parser: Parser, name: str, root: n.ListNode, pos: int) -> None:
        existing = self.trees.get(name)
        if existing is None or is_empty_tree(existing):
            self.trees[name] = root
            return
        if not is_empty_tree(root):
            parser.fail(f"template: multiple definition of template {go_quote(name)}", pos)


class Parser:
    def __init__(self, source: str, name: str, file: str | None = None) -> None:
        self.source = source
        self.name = name
        self.file = name if file is None else file
        self.items = lex(source)
        self.end = len(self.items) - 1  # the EOF or ERROR item, returned past the end
        self.index = 0
        self.last: Item = self.items[0]
        self.vars: list[str] = ["$"]
        self.range_depth = 0
        self.tree_set = _TreeSet()
        self.paren_depth = 0
        self.list_depth = 0
        self.max_depth = 0
        #: the furthest item read, peeks included (Go's token[0], whose line Go's
        #: parse errors name), less one when the index stands past it
        self.high = 0
        #: the line of the ``{{`` of the action being parsed (0: none), Go's actionLine
        self.action_line = 0

    # -- errors ----------------------------------------------------------------------
    def fail(self, message: str, pos: int | None = None, high: int | None = None) -> None:
        """Go's Tree.errorf: ``message`` on the line of the furthest item read (of
        ``high`` when given); the user's location is ``pos`` (default: the last item)."""
        where = self.last.pos if pos is None else pos
        line, col = line_col(self.source, where)
        if high is None:
            high = max(self.high, self.index - 1)
        go_line = self.items[min(high, self.end)].line
        go = f"template: {self.name}:{go_line}: {message}"
        raise GoTemplateError(message, go_message=go, file=self.file, line=line, column=col)

    def unexpected(self, item: Item, context: str) -> None:
        if item.typ is T.ERROR:
            extra = ""
            if self.action_line and self.action_line != item.line:
                extra = f" in action started at {self.name}:{self.action_line}"
                if item.val.endswith(" action"):
                    extra = extra[len(" in action") :]
            self.fail(f"{item}{extra}", item.pos)
        self.fail(f"unexpected {item} in {context}", item.pos)

    # -- token stream --------------------------------------------------------------------
    def next(self) -> Item:
        i = self.index
        item = self.items[i if i < self.end else self.end]
        self.index = i + 1
        self.last = item
        return item

    def backup(self, count: int = 1) -> None:
        i = self.index
        if i - 1 > self.high:
            self.high = i - 1
        self.index = i - count

    def peek(self) -> Item:
        i = self.index
        if i > self.high:
            self.high = i
        return self.items[i if i < self.end else self.end]

    def next_non_space(self) -> Item:
        items, end, space = self.items, self.end, T.SPACE
        i = self.index
        while True:
            item = items[i if i < end else end]
            i += 1
            if item.typ is not space:
                self.index = i
                self.last = item
                return item

    def peek_non_space(self) -> Item:
        item = self.next_non_space()
        i = self.index - 1
        if i > self.high:
            self.high = i
        self.index = i
        return item

    def expect(self, typ: T, context: str) -> Item:
        item = self.next_non_space()
        if item.typ is not typ:
            self.unexpected(item, context)
        return item

    # -- top level -----------------------------------------------------------------------
    def parse(self) -> n.Tree:
        root = n.ListNode(self.peek().pos)
        while self.peek().typ is not T.EOF:
            if self.peek().typ is T.LEFT_DELIM:
                mark = self.index
                self.next()
                if self.next_non_space().typ is T.DEFINE:
                    self.parse_definition()
                    continue
                self.high = max(self.high, self.index - 1)
                self.index = mark
            node = self.text_or_action()
            if isinstance(node, _End | _Else):
                self.fail(f"unexpected {node}", node.pos)
            root.nodes.append(node)
        self.tree_set.add(self, self.name, root, self.last.pos)
        return n.Tree(self.name, self.source, dict(self.tree_set.trees), self.max_depth)

    def parse_definition(self) -> None:
        context = "define clause"
        saved_vars = self.vars
        self.vars = ["$"]
        item = self.next_non_space()
        if item.typ not in (T.STRING, T.RAW_STRING):
            self.unexpected(item, context)
        name = self._unquote(item)
        self.expect(T.RIGHT_DELIM, context)
        body, end = self.item_list()
        if not isinstance(end, _End):
            self.fail(f"unexpected {end} in {context}", end.pos)
        self.tree_set.add(self, name, body, item.pos)
        self.vars = saved_vars

    def item_list(self) -> tuple[n.ListNode, n.Node]:
        body = n.ListNode(self.peek_non_space().pos)
        self.list_depth += 1
        self.max_depth = max(self.max_depth, self.list_depth + self.paren_depth)
        while self.peek_non_space().typ is not T.EOF:
            node = self.text_or_action()
            if isinstance(node, _End | _Else):
                self.list_depth -= 1
                return body, node
            body.nodes.append(node)
        self.fail("unexpected EOF")
        raise AssertionError("unreachable")

    def text_or_action(self) -> n.Node:
        item = self.next_non_space()
        if item.typ is T.TEXT:
            return n.TextNode(item.pos, item.val)
        if item.typ is T.LEFT_DELIM:
            self.action_line = item.line  # (an error ends the parse: no need to restore)
            node = self.action()
            self.action_line = 0
            return node
        self.unexpected(item, "input")
        raise AssertionError("unreachable")

    def action(self) -> n.Node:
        item = self.next_non_space()
        typ = item.typ
        if typ is T.BLOCK:
            return self.block_control()
        if typ is T.BREAK:
            return self.loop_control(item, n.BreakNode, "break")
        if typ is T.CONTINUE:
            return self.loop_control(item, n.ContinueNode, "continue")
        if typ is T.ELSE:
            return self.else_control(item)
        if typ is T.END:
            self.expect(T.RIGHT_DELIM, "end")
            return _End(item.pos)
        if typ is T.IF:
            return self.branch_control(n.IfNode, "if")
        if typ is T.RANGE:
            return self.branch_control(n.RangeNode, "range")
        if typ is T.TEMPLATE:
            return self.template_control()
        if typ is T.WITH:
            return self.branch_control(n.WithNode, "with")
        self.backup()
        first = self.peek()
        return n.ActionNode(first.pos, first.line, self.pipeline("command", T.RIGHT_DELIM))

    def loop_control(
        self, item: Item, cls: type[n.BreakNode] | type[n.ContinueNode], word: str
    ) -> n.Node:
        token = self.next_non_space()
        if token.typ is not T.RIGHT_DELIM:
            self.unexpected(token, "{{" + word + "}}")
        if self.range_depth == 0:
            self.fail("{{" + word + "}} outside {{range}}", item.pos)
        return cls(item.pos, item.line)

    def else_control(self, item: Item) -> n.Node:
        # "else if" and (Go 1.23+) "else with" leave their keyword for the enclosing
        # branch to parse as a nested if/with ending at the same {{end}}.
        if self.peek_non_space().typ in (T.IF, T.WITH):
            return _Else(item.pos)
        self.expect(T.RIGHT_DELIM, "else")
        return _Else(item.pos)

    def branch_control(self, cls: type[n.BranchNode], context: str) -> n.BranchNode:
        mark = len(self.vars)
        pipe = self.pipeline(context, T.RIGHT_DELIM)
        if context == "range":
            self.range_depth += 1
        body, nxt = self.item_list()
        if context == "range":
            self.range_depth -= 1
        else_body: n.ListNode | None = None
        if isinstance(nxt, _Else):
            chained = self.peek().typ
            if context == "if" and chained is T.IF:
                self.next()
                else_body = n.ListNode(nxt.pos)
                else_body.nodes.append(self.branch_control(n.IfNode, "if"))
            elif context == "with" and chained is T.WITH:
                self.next()
                else_body = n.ListNode(nxt.pos)
                else_body.nodes.append(self.branch_control(n.WithNode, "with"))
            else:
                else_body, nxt = self.item_list()
                if not isinstance(nxt, _End):
                    self.fail(f"expected end; found {nxt}", nxt.pos)
        del self.vars[mark:]
        return cls(pipe.pos, pipe.line, pipe, body, else_body)

    def block_control(self) -> n.Node:
        context = "block clause"
        token = self.next_non_space()
        name = self.parse_template_name(token, context)
        pipe = self.pipeline(context, T.RIGHT_DELIM)
        saved_vars, saved_depth = self.vars, self.range_depth
        self.vars, self.range_depth = ["$"], 0
        # the body is a tree of its own, reading on with its own lookahead: an error of
        # this clause after it names the last item this clause read (Go's t.token[0])
        high = max(self.high, self.index - 1)
        body, end = self.item_list()
        if not isinstance(end, _End):
            self.fail(f"unexpected {end} in {context}", end.pos, high)
        self.tree_set.add(self, name, body, token.pos)
        self.vars, self.range_depth = saved_vars, saved_depth
        return n.TemplateNode(token.pos, token.line, name, pipe)

    def template_control(self) -> n.Node:
        context = "template clause"
        token = self.next_non_space()
        name = self.parse_template_name(token, context)
        pipe: n.PipeNode | None = None
        if self.next_non_space().typ is not T.RIGHT_DELIM:
            self.backup()
            pipe = self.pipeline(context, T.RIGHT_DELIM)
        return n.TemplateNode(token.pos, token.line, name, pipe)

    def parse_template_name(self, token: Item, context: str) -> str:
        if token.typ in (T.STRING, T.RAW_STRING):
            return self._unquote(token)
        self.unexpected(token, context)
        raise AssertionError("unreachable")

    def _unquote(self, token: Item) -> str:
        try:
            return unquote(token.val)
        except LiteralError as exc:
            self.fail(str(exc), token.pos)
            raise AssertionError("unreachable") from exc

    # -- pipelines -------------------------------------------------------------------
    def pipeline(self, context: str, end: T) -> n.PipeNode:
        token = self.peek_non_space()
        pipe = n.PipeNode(token.pos, token.line)
        while True:  # the "decls" loop of Go's parser
            v = self.peek_non_space()
            if v.typ is not T.VARIABLE:
                break
            mark = self.index
            self.next_non_space()
            after = self.peek()
            nxt = self.peek_non_space()
            if nxt.typ in (T.ASSIGN, T.DECLARE):
                pipe.is_assign = nxt.typ is T.ASSIGN
                self.next_non_space()
                pipe.decl.append(n.VariableNode(v.pos, (v.val,)))
                self.vars.append(v.val)
                break
            if nxt.typ is T.CHAR and nxt.val == ",":
                self.next_non_space()
                pipe.decl.append(n.VariableNode(v.pos, (v.val,)))
                self.vars.append(v.val)
                if context == "range" and len(pipe.decl) < 2:
                    if self.peek_non_space().typ in (T.VARIABLE, T.RIGHT_DELIM, T.RIGHT_PAREN):
                        continue
                    self.fail("range can only initialize variables")
                self.fail(f"too many declarations in {context}")
            # not a declaration: put the variable (and any space after it) back
            del after
            self.high = max(self.high, self.index - 1)
            self.index = mark
            break
        while True:
            token = self.next_non_space()
            if token.typ is end:
                self.check_pipeline(pipe, context)
                return pipe
            if token.typ in (
                T.BOOL,
                T.CHAR_CONSTANT,
                T.COMPLEX,
                T.DOT,
                T.FIELD,
                T.IDENTIFIER,
                T.NUMBER,
                T.NIL,
                T.RAW_STRING,
                T.STRING,
                T.VARIABLE,
                T.LEFT_PAREN,
            ):
                self.backup()
                pipe.cmds.append(self.command())
            else:
                self.unexpected(token, context)

    def check_pipeline(self, pipe: n.PipeNode, context: str) -> None:
        if not pipe.cmds:
            self.fail(f"missing value for {context}")
        for i, cmd in enumerate(pipe.cmds[1:]):
            if isinstance(
                cmd.args[0], n.BoolNode | n.DotNode | n.NilNode | n.NumberNode | n.StringNode
            ):
                self.fail(f"non executable command in pipeline stage {i + 2}", cmd.pos)

    def command(self) -> n.CommandNode:
        cmd = n.CommandNode(self.peek_non_space().pos)
        while True:
            self.peek_non_space()
            operand = self.operand()
            if operand is not None:
                cmd.args.append(operand)
            token = self.next()
            if token.typ is T.SPACE:
                continue
            if token.typ in (T.RIGHT_DELIM, T.RIGHT_PAREN):
                self.backup()
            elif token.typ is not T.PIPE:
                self.unexpected(token, "operand")
            break
        if not cmd.args:
            self.fail("empty command")
        return cmd

    def operand(self) -> n.Node | None:
        node = self.term()
        if node is None:
            return None
        if self.peek().typ is T.FIELD:
            # Go places the chain, and the field or variable it extends, at its first
            # added field (``.a.b`` is at ``.b``)
            start = self.peek().pos
            fields: list[str] = []
            while self.peek().typ is T.FIELD:
                fields.append(self.next().val[1:])
            if isinstance(node, n.FieldNode):
                return n.FieldNode(start, node.idents + tuple(fields))
            if isinstance(node, n.VariableNode):
                return n.VariableNode(start, node.idents + tuple(fields))
            if isinstance(node, n.BoolNode | n.StringNode | n.NumberNode | n.NilNode | n.DotNode):
                self.fail(f"unexpected . after term {go_quote(str(node))}", start)
            return n.ChainNode(start, node, tuple(fields))
        return node

    def term(self) -> n.Node | None:
        token = self.next_non_space()
        typ = token.typ
        if typ is T.IDENTIFIER:
            if token.val not in FUNCTIONS:
                self.fail(f"function {go_quote(token.val)} not defined", token.pos)
            return n.IdentifierNode(token.pos, token.val)
        if typ is T.DOT:
            return n.DotNode(token.pos)
        if typ is T.NIL:
            return n.NilNode(token.pos)
        if typ is T.VARIABLE:
            name = token.val.split(".")[0]
            if name not in self.vars:
                self.fail(f"undefined variable {go_quote(name)}", token.pos)
            return n.VariableNode(token.pos, (token.val,))
        if typ is T.FIELD:
            return n.FieldNode(token.pos, (token.val[1:],))
        if typ is T.BOOL:
            return n.BoolNode(token.pos, token.val == "true")
        if typ in (T.CHAR_CONSTANT, T.COMPLEX, T.NUMBER):
            try:
                num = go_number(token.val, typ is T.CHAR_CONSTANT, typ is T.COMPLEX)
            except LiteralError as exc:
                self.fail(str(exc), token.pos)
                raise AssertionError("unreachable") from exc
            return n.NumberNode(
                token.pos,
                token.val,
                num.kind,
                num.int_value,
                num.float_value,
                num.error,
                num.complex_value,
            )
        if typ is T.LEFT_PAREN:
            # Go's parser after 1.24 (1.26 here) refuses the parenthesis nested one
            # deeper than maxStackDepth, naming its line; 1.24.5 (the controller's)
            # nests any depth, an untrusted template here no deeper than this.
            if self.paren_depth >= MAX_PAREN_DEPTH:
                self.fail("max expression depth exceeded", token.pos)
            self.paren_depth += 1
            self.max_depth = max(self.max_depth, self.list_depth + self.paren_depth)
            pipe = self.pipeline("parenthesized pipeline", T.RIGHT_PAREN)
            self.paren_depth -= 1
            return pipe
        if typ in (T.STRING, T.RAW_STRING):
            return n.StringNode(token.pos, token.val, self._unquote(token))
        self.backup()
        return None


def parse(source: str, name: str, file: str | None = None) -> n.Tree:
    """Parse ``source`` as template ``name``; raises TemplateError (file:line:col), the
    file being ``file`` (default: ``name``)."""
    return Parser(source, name, file).parse()
