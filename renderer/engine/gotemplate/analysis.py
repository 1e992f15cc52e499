"""Static analysis: which root context keys a template reads.

Used to report the parameters each Calico version consumes. A key counts when it is
read from the root data: ``.x`` (or ``.x.y``) where dot is the root, ``$.x`` where ``$``
is the root, ``$v.x`` for a variable bound to the root, ``index . "x"``, and the same
inside ``define``d templates called with the root as their dot.

What the walks return are named tuples, not frozen dataclasses: the module loads with
every cold render, and making a frozen dataclass costs some fifty times as much.
"""

from __future__ import annotations

from typing import NamedTuple

from renderer.engine.gotemplate import nodes as n


class _KeyFinder:
    def __init__(self, tree: n.Tree) -> None:
        self.tree = tree
        self.keys: set[str] = set()
        #: keys read with a further field (``.ClusterCidr.Ipv6``): they need a map value,
        #: with where each is first read (character offset), for locations
        self.nested_pos: dict[str, int] = {}
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
                    self.nested_pos.setdefault(args[2].value, args[2].pos)

    def operand(self, arg: n.Node, dot_root: bool, dollar: bool, roots: set[str]) -> None:
        if isinstance(arg, n.FieldNode) and dot_root:
            self.keys.add(arg.idents[0])
            if len(arg.idents) > 1:
                self.nested_pos.setdefault(arg.idents[0], arg.pos)
        elif isinstance(arg, n.VariableNode) and len(arg.idents) > 1:
            name = arg.idents[0]
            if (name == "$" and dollar) or name in roots:
                self.keys.add(arg.idents[1])
                if len(arg.idents) > 2:
                    self.nested_pos.setdefault(arg.idents[1], arg.pos)
        elif isinstance(arg, n.ChainNode):
            self.operand(arg.node, dot_root, dollar, roots)
            if self.is_root(arg.node, dot_root, dollar, roots):
                self.keys.add(arg.fields[0])
                if len(arg.fields) > 1:
                    self.nested_pos.setdefault(arg.fields[0], arg.pos)
        elif isinstance(arg, n.PipeNode):
            self.pipe(arg, dot_root, dollar, roots)


class KeyReads(NamedTuple):
    """The root context keys a template reads (and what it calls with the root).

    ``nested``: the keys read with a further field (``.ClusterCidr.Ipv6``), which only a
    map value can satisfy (BKE's controller passes addon params as strings), each with
    the offset into the source where it is first read (the node's position, which is
    Go's: the first added field, ``.Ipv6``).
    """

    keys: frozenset[str]
    nested: dict[str, int]


def key_reads(tree: n.Tree) -> KeyReads:
    """What the template ``tree`` executes reads from its root context, in one walk."""
    finder = _KeyFinder(tree)
    finder.template(tree.name)
    return KeyReads(frozenset(finder.keys), dict(finder.nested_pos))


class Branches(NamedTuple):
    """What templates compare a root key with: ``eq``/``ne`` string literals, and
    whether some ``{{ if eq .key "..." }}`` has no else, so a value matching none of
    them renders nothing there (BKE's ``ipModVersion`` handles ``ipv4`` and ``ipv6``
    only; ``dual`` renders no IP setting at all). ``fallbacks``: where the else arms of
    those ``if eq`` chains start (offsets into the source), what a value matching none
    of them renders instead (``calicoMode: carrier-pigeon`` renders the IPIP else)."""

    values: frozenset[str]
    dead_end: bool
    fallbacks: frozenset[int] = frozenset()


def _comparison(pipe: n.Node, dot_root: bool) -> tuple[str, str, list[str]] | None:
    """(key, eq|ne, literals) when ``pipe`` is ``eq .key "a" ...`` with dot the root."""
    if not isinstance(pipe, n.PipeNode) or len(pipe.cmds) != 1 or not dot_root:
        return None
    args = pipe.cmds[0].args
    if len(args) < 3 or not isinstance(args[0], n.IdentifierNode):
        return None
    if args[0].name not in ("eq", "ne"):
        return None
    fields = [a for a in args[1:] if isinstance(a, n.FieldNode) and len(a.idents) == 1]
    literals = [a.value for a in args[1:] if isinstance(a, n.StringNode)]
    if len(fields) != 1 or len(fields) + len(literals) != len(args) - 1:
        return None
    return fields[0].idents[0], args[0].name, literals


def value_branches(tree: n.Tree) -> dict[str, Branches]:
    """Per root key, the literals the template branches on (see :class:`Branches`)."""
    values: dict[str, set[str]] = {}
    dead: set[str] = set()
    fallbacks: dict[str, set[int]] = {}

    def pipes(pipe: n.PipeNode, dot_root: bool) -> None:
        for cmd in pipe.cmds:
            found = _comparison(n.PipeNode(pipe.pos, 0, cmds=[cmd]), dot_root)
            if found:
                values.setdefault(found[0], set()).update(found[2])
            for arg in cmd.args:
                if isinstance(arg, n.PipeNode):
                    pipes(arg, dot_root)

    def body(nodes: n.ListNode, dot_root: bool) -> None:
        for node in nodes.nodes:
            if isinstance(node, n.ActionNode):
                pipes(node.pipe, dot_root)
            elif isinstance(node, n.BranchNode):
                pipes(node.pipe, dot_root)
                found = _comparison(node.pipe, dot_root)
                eq_if = isinstance(node, n.IfNode) and found and found[1] == "eq"
                if eq_if and found and node.else_body is None:
                    dead.add(found[0])
                elif eq_if and found and node.else_body is not None:
                    chained = node.else_body.nodes
                    nested = (
                        _comparison(chained[0].pipe, dot_root)
                        if (len(chained) == 1 and isinstance(chained[0], n.IfNode))
                        else None
                    )
                    if nested is None or nested[0] != found[0]:  # not an else-if on the key
                        fallbacks.setdefault(found[0], set()).add(node.else_body.pos)
                inner = dot_root and isinstance(node, n.IfNode)
                body(node.body, inner)
                if node.else_body is not None:
                    body(node.else_body, dot_root)

    for name, template in tree.templates.items():
        body(template, name == tree.name)
    return {
        k: Branches(frozenset(v), k in dead, frozenset(fallbacks.get(k, ())))
        for k, v in values.items()
    }


# --- branches: what the gate must render ------------------------------------------------

#: The arms of a branch node: its body, and its else (explicit, or the empty path of an
#: ``if``/``with`` without one, or a ``range`` over nothing).
BODY, ELSE = 0, 1


class Arm(NamedTuple):
    """One arm of an ``if``/``with``/``range`` of a template: ``key`` is what a traced
    render records when it takes the arm (the branch node's offset and :data:`BODY` or
    :data:`ELSE`); ``explicit`` says whether it is a body the template wrote (an
    ``else`` that only holds an ``else if`` is not: that ``if``'s arms stand for it);
    ``compares`` whether the branch compares a root key with a string, so its empty
    else is the no-match path the gate must render too."""

    key: tuple[int, int]
    kind: str
    offset: int
    explicit: bool
    compares: bool


def _is_else_if(source: str, node: n.BranchNode) -> bool:
    """Whether ``node``'s else holds only the ``if`` of an ``{{else if}}`` (the parser
    places that else list at the ``else`` keyword)."""
    body = node.else_body
    return (
        body is not None
        and len(body.nodes) == 1
        and isinstance(body.nodes[0], n.IfNode)
        and source.startswith("else", body.pos)
    )


def branch_arms(tree: n.Tree) -> list[Arm]:
    """Every arm of every ``if``/``with``/``range`` of ``tree`` (its ``define``s too), in
    source order."""
    out: list[Arm] = []

    def walk(body: n.ListNode, dot_root: bool) -> None:
        for node in body.nodes:
            if not isinstance(node, n.BranchNode):
                continue
            compares = _reads_comparison(node.pipe, dot_root)
            kind = node.keyword
            out.append(Arm((node.pos, BODY), kind, node.pos, True, compares))
            if node.else_body is None:
                out.append(Arm((node.pos, ELSE), "else", node.pos, False, compares))
            else:
                explicit = not _is_else_if(tree.source, node)
                out.append(Arm((node.pos, ELSE), "else", node.else_body.pos, explicit, compares))
            walk(node.body, dot_root and isinstance(node, n.IfNode))
            if node.else_body is not None:
                walk(node.else_body, dot_root)

    for name, template in tree.templates.items():
        walk(template, name == tree.name)
    return sorted(out, key=lambda a: a.key)


def _reads_comparison(pipe: n.PipeNode, dot_root: bool) -> bool:
    """Whether ``pipe`` compares a root key with a string literal, at any depth."""
    for cmd in pipe.cmds:
        if _comparison(n.PipeNode(pipe.pos, 0, cmds=[cmd]), dot_root):
            return True
        if any(isinstance(a, n.PipeNode) and _reads_comparison(a, dot_root) for a in cmd.args):
            return True
    return False


class Conditions(NamedTuple):
    """What the branches of a template test about root keys: the string literals each
    key is compared with (``eq``/``ne``), and the keys tested for truth alone
    (``{{ if .repo }}``, ``{{ with .x }}``, ``{{ range .x }}``)."""

    compared: dict[str, frozenset[str]]
    truthy: frozenset[str]


def branch_conditions(tree: n.Tree) -> Conditions:
    """The root keys the branch conditions of ``tree`` test (see :class:`Conditions`)."""
    compared: dict[str, set[str]] = {}
    truthy: set[str] = set()

    def pipes(pipe: n.PipeNode, dot_root: bool) -> None:
        for cmd in pipe.cmds:
            found = _comparison(n.PipeNode(pipe.pos, 0, cmds=[cmd]), dot_root)
            if found:
                compared.setdefault(found[0], set()).update(found[2])
            args = cmd.args
            if dot_root and len(args) == 1 and isinstance(args[0], n.FieldNode):
                truthy.add(args[0].idents[0])
            for arg in args:
                if isinstance(arg, n.PipeNode):
                    pipes(arg, dot_root)

    def walk(body: n.ListNode, dot_root: bool) -> None:
        for node in body.nodes:
            if isinstance(node, n.BranchNode):
                pipes(node.pipe, dot_root)
                walk(node.body, dot_root and isinstance(node, n.IfNode))
                if node.else_body is not None:
                    walk(node.else_body, dot_root)

    for name, template in tree.templates.items():
        walk(template, name == tree.name)
    return Conditions({k: frozenset(v) for k, v in compared.items()}, frozenset(truthy))


# --- template calls: how deep a render can go -------------------------------------------

#: Go's executor stops a chain of template calls this deep (its maxExecDepth).
MAX_TEMPLATE_DEPTH = 100_000


class CallDepth(NamedTuple):
    """How deep template calls take a render: ``frames`` bounds the interpreter frames
    of the deepest chain of calls (a call ``k`` blocks deep in its template costs
    ``2k + 2``: a walk and a branch per block, the call, the callee's walk), and a
    chain that can come back to a template (recursion) counts as Go's 100,000 calls
    at the costliest site; ``costliest`` is that site's cost (0: no calls)."""

    frames: int
    costliest: int


def call_depth(tree: n.Tree) -> CallDepth:
    """The :class:`CallDepth` of ``tree``, from its template (the others as called)."""
    sites: dict[str, list[tuple[str, int]]] = {}

    def collect(body: n.ListNode, nesting: int, out: list[tuple[str, int]]) -> None:
        for node in body.nodes:
            if isinstance(node, n.TemplateNode):
                out.append((node.name, 2 * nesting + 2))
            elif isinstance(node, n.BranchNode):
                collect(node.body, nesting + 1, out)
                if node.else_body is not None:
                    collect(node.else_body, nesting + 1, out)

    for name, body in tree.templates.items():
        sites[name] = []
        collect(body, 0, sites[name])
    costliest = max((c for calls in sites.values() for _, c in calls), default=0)
    cost: dict[str, int] = {}
    path: set[str] = set()
    stack: list[tuple[str, bool]] = [(tree.name, False)]
    # the longest weighted path, depth first without recursion (defines may chain deeply)
    while stack:
        name, done = stack.pop()
        if done:
            path.discard(name)
            cost[name] = max((c + cost.get(to, 0) for to, c in sites.get(name, ())), default=0)
        elif name in path:
            return CallDepth(MAX_TEMPLATE_DEPTH * costliest, costliest)
        elif name not in cost:
            path.add(name)
            stack.append((name, True))
            stack.extend((to, False) for to, _ in sites.get(name, ()) if to not in cost)
    return CallDepth(cost.get(tree.name, 0), costliest)
