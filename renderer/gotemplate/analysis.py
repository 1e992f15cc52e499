"""Static analysis: which root context keys a template reads.

Used to report the parameters each Calico version consumes. A key counts when it is
read from the root data: ``.x`` (or ``.x.y``) where dot is the root, ``$.x`` where ``$``
is the root, ``$v.x`` for a variable bound to the root, ``index . "x"``, and the same
inside ``define``d templates called with the root as their dot.
"""

from __future__ import annotations

from . import nodes as n


class _KeyFinder:
    def __init__(self, tree: n.Tree) -> None:
        self.tree = tree
        self.keys: set[str] = set()
        #: keys read with a further field (``.ClusterCidr.Ipv6``): they need a map value
        self.nested: set[str] = set()
        self.visited: set[str] = set()

    def template(self, name: str) -> None:
        if name in self.visited or name not in self.tree.templates:
            return
        self.visited.add(name)
        self.body(self.tree.templates[name], True, True, set())

    def is_root(self, pipe: n.Node | None, dot_root: bool, dollar: bool, roots: set[str]) -> bool:
        """Whether a pipeline is exactly the root value (``.``, ``$`` or a root variable)."""
        if not isinstance(pipe, n.PipeNode) or len(pipe.cmds) != 1:
            return False
        args = pipe.cmds[0].args
        if len(args) != 1:
            return False
        arg = args[0]
        if isinstance(arg, n.DotNode):
            return dot_root
        if isinstance(arg, n.VariableNode) and len(arg.idents) == 1:
            name = arg.idents[0]
            return (name == "$" and dollar) or name in roots
        if isinstance(arg, n.PipeNode):
            return self.is_root(arg, dot_root, dollar, roots)
        return False

    def body(self, body: n.ListNode, dot_root: bool, dollar: bool, roots: set[str]) -> None:
        roots = set(roots)
        for node in body.nodes:
            if isinstance(node, n.ActionNode):
                self.pipe(node.pipe, dot_root, dollar, roots)
                if node.pipe.decl and not node.pipe.is_assign:
                    for var in node.pipe.decl:
                        if self.is_root(node.pipe, dot_root, dollar, roots):
                            roots.add(var.idents[0])
                        else:
                            roots.discard(var.idents[0])
            elif isinstance(node, n.BranchNode):
                self.pipe(node.pipe, dot_root, dollar, roots)
                inner_roots = set(roots)
                for var in node.pipe.decl:
                    inner_roots.discard(var.idents[0])
                inner_dot = dot_root
                if isinstance(node, n.WithNode):
                    inner_dot = self.is_root(node.pipe, dot_root, dollar, roots)
                elif isinstance(node, n.RangeNode):
                    inner_dot = False
                self.body(node.body, inner_dot, dollar, inner_roots)
                if node.else_body is not None:
                    self.body(node.else_body, dot_root, dollar, inner_roots)
            elif isinstance(node, n.TemplateNode) and node.pipe is not None:
                self.pipe(node.pipe, dot_root, dollar, roots)
                if self.is_root(node.pipe, dot_root, dollar, roots):
                    self.template(node.name)

    def pipe(self, pipe: n.PipeNode, dot_root: bool, dollar: bool, roots: set[str]) -> None:
        for cmd in pipe.cmds:
            args = cmd.args
            for arg in args:
                self.operand(arg, dot_root, dollar, roots)
            first = args[0]
            if (
                isinstance(first, n.IdentifierNode)
                and first.name == "index"
                and len(args) >= 3
                and isinstance(args[2], n.StringNode)
                and self.is_root(
                    n.PipeNode(args[1].pos, 0, cmds=[n.CommandNode(args[1].pos, [args[1]])]),
                    dot_root,
                    dollar,
                    roots,
                )
            ):
                self.keys.add(args[2].value)
                if len(args) >= 4:
                    self.nested.add(args[2].value)

    def operand(self, arg: n.Node, dot_root: bool, dollar: bool, roots: set[str]) -> None:
        if isinstance(arg, n.FieldNode) and dot_root:
            self.keys.add(arg.idents[0])
            if len(arg.idents) > 1:
                self.nested.add(arg.idents[0])
        elif isinstance(arg, n.VariableNode) and len(arg.idents) > 1:
            name = arg.idents[0]
            if (name == "$" and dollar) or name in roots:
                self.keys.add(arg.idents[1])
                if len(arg.idents) > 2:
                    self.nested.add(arg.idents[1])
        elif isinstance(arg, n.ChainNode):
            self.operand(arg.node, dot_root, dollar, roots)
            if self.is_root(arg.node, dot_root, dollar, roots):
                self.keys.add(arg.fields[0])
                if len(arg.fields) > 1:
                    self.nested.add(arg.fields[0])
        elif isinstance(arg, n.PipeNode):
            self.pipe(arg, dot_root, dollar, roots)


def referenced_keys(tree: n.Tree) -> frozenset[str]:
    """Root context keys read by the template ``tree`` executes (and what it calls)."""
    finder = _KeyFinder(tree)
    finder.template(tree.name)
    return frozenset(finder.keys)


def nested_keys(tree: n.Tree) -> frozenset[str]:
    """Root keys read with a further field (``.ClusterCidr.Ipv6``), i.e. that only a map
    value can satisfy; BKE's controller passes addon params as strings."""
    finder = _KeyFinder(tree)
    finder.template(tree.name)
    return frozenset(finder.nested)
