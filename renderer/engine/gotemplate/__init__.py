"""Go ``text/template`` dialect engine: renders BKE's templates as its Go controller does.

Pipeline: :mod:`.lexer` -> :mod:`.parser` (Go's grammar, Go's parse-time errors) ->
:mod:`.interp`, which walks the tree at render time as Go's executor does, calling
:mod:`.runtime` (Go 1.24's execution semantics, :mod:`.gofmt` printing and the
controller's functions). Nothing is compiled: walking the tree costs nothing before
the render, so a 100,000-action template starts at once. :mod:`.analysis` reads the
same tree statically (the root keys a template reads). ``tests/go/render.go`` is the
reference the parity tests hold every render to, byte for byte, and every error to Go's
own text (:class:`GoTemplateError` carries it, see :mod:`.errors`).

Known differences from Go 1.24.5, each an error rather than different output: ``%p`` of
a list or map (an address in Go); more than 10,000 nested parentheses (refused as Go
after 1.24 refuses them); a chain of template calls deeper than the interpreter's stack holds
(Go's 100,000 recursive calls fit where the recursion sits a few blocks deep); and the
limits for untrusted templates (time, memory, output, loop iterations, actions).

Strings are Python ``str``; a lone byte that Go can produce (``"\xff"``, byte slicing)
is carried as a ``surrogateescape`` code point, so ``out.encode("utf-8",
"surrogateescape")`` gives Go's exact bytes.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gc
import re
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from renderer.engine import limits
from renderer.engine.gotemplate import nodes
from renderer.engine.gotemplate.analysis import (
    Arm,
    Branches,
    CallDepth,
    Conditions,
    branch_arms,
    branch_conditions,
    call_depth,
    key_reads,
    value_branches,
)
from renderer.engine.gotemplate.errors import GoTemplateError, go_line_col, line_col
from renderer.engine.gotemplate.interp import InterpError, Interpreter, Marks, OutputLimit
from renderer.engine.gotemplate.lexer import go_quote
from renderer.engine.gotemplate.parser import parse as _parse
from renderer.engine.gotemplate.runtime import MAX_EXEC_DEPTH, normalize, stack_depth
from renderer.engine.sourcemap import MappedRender, Printed, SourceMap
from renderer.errors import TemplateError

__all__ = ["GoTemplate", "GoTemplateError", "Printed", "compile_go", "key_reads", "parse"]


R = TypeVar("R")

#: A tree nested deeper than this is parsed, analysed and rendered on a thread of its
#: own with a deep stack (:func:`_deep`): Go nests as deep as its parser allows (10,000
#: parentheses), Python's default recursion limit stops near 200 levels.
DEEP_NESTING = 50
#: Template calls that take more frames than this render on the deep stack too.
DEEP_CALLS = 300
_DEEP_RECURSION = 300_000
#: The most frames a deep render may take: where Python calls Python without the C
#: stack (3.11 on), enough for Go's 100,000 recursive template calls a few blocks deep.
_DEEP_RECURSION_MAX = 1_000_000 if sys.version_info >= (3, 11) else _DEEP_RECURSION
_DEEP_STACK = 512 * 1024 * 1024
_DEEP_LOCK = threading.Lock()
_IN_DEEP = threading.local()


def _deep(work: Callable[[], R], recursion: int = _DEEP_RECURSION) -> R:
    """``work()`` on a thread with a 512 MiB stack and a recursion limit of
    ``recursion`` (the limit is the interpreter's, so deep runs take turns);
    its result or its exception, as if called here. The render budget (a context
    variable) comes along."""
    if getattr(_IN_DEEP, "active", False):
        return work()
    context = contextvars.copy_context()
    results: list[R] = []
    failures: list[BaseException] = []

    def target() -> None:
        _IN_DEEP.active = True
        try:
            results.append(context.run(work))
        except BaseException as exc:  # handed to the caller
            failures.append(exc)

    with _DEEP_LOCK:
        limit, size = sys.getrecursionlimit(), threading.stack_size()
        try:
            threading.stack_size(_DEEP_STACK)
            sys.setrecursionlimit(max(limit, recursion))
            # a daemon: an interrupted caller (Ctrl-C) does not wait for it at exit
            thread = threading.Thread(
                target=target, name="calico-render-deep-template", daemon=True
            )
            thread.start()
            thread.join()
        finally:
            threading.stack_size(size)
            sys.setrecursionlimit(limit)
    if failures:
        raise failures[0]
    return results[0]


def parse(source: str, name: str, file: str | None = None) -> nodes.Tree:
    """Parse ``source`` as Go template ``name``; raises TemplateError on bad syntax,
    naming ``file`` (default: ``name``). A source nesting too deep for Python's stack
    is parsed again on a deep one (:func:`_deep`)."""
    where = name if file is None else file
    try:
        with _collector_paused():
            try:
                return _parse(source, name, where)
            except RecursionError:
                pass
            return _deep(lambda: _parse(source, name, where))
    except TemplateError:
        raise
    except RecursionError:
        raise TemplateError("template nests too deeply to parse", file=where) from None
    except Exception as exc:  # defensive: untrusted input must only ever give TemplateError
        raise TemplateError(f"cannot parse template: {_short(exc)}", file=where) from None


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The tree holds no cycles; the collector's repeated passes over its growing node
    count made parsing superlinear (100,000 actions: 4.0 s, 2.8 s without)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


class GoTemplate(MappedRender):
    """A parsed template: parse once, render many times with different contexts."""

    def __init__(self, tree: nodes.Tree, file: str | None = None) -> None:
        self.name = tree.name if file is None else file  # what errors name
        self.tree = tree
        self.deep = tree.depth > DEEP_NESTING
        self.calls = CallDepth(0, 0)  # (while they are counted)
        self.calls = self._walk(lambda: call_depth(tree))
        self.deep = self.deep or self.calls.frames > DEEP_CALLS
        reads = self._walk(lambda: key_reads(tree))
        self.keys: frozenset[str] = reads.keys
        self.nested_keys: frozenset[str] = frozenset(reads.nested)
        self._nested_offsets = reads.nested
        self._marks = Marks(tree.source)  # the tree (and so every node id) lives as long

    def _walk(self, work: Callable[[], R]) -> R:
        """``work()``, a recursive walk of this tree: on a deep stack for a deep tree,
        deep enough for its template calls (Go's 100,000 recursive ones where it can)."""
        if not self.deep:
            return work()
        need = self.calls.frames + 4 * self.tree.depth + 10_000
        return _deep(work, min(max(need, _DEEP_RECURSION), _DEEP_RECURSION_MAX))

    @functools.cached_property
    def nested_lines(self) -> dict[str, int]:
        """The template line where each key read as a map is first read."""
        return {k: self._marks.line(pos) for k, pos in self._nested_offsets.items()}

    @functools.cached_property
    def branches(self) -> dict[str, Branches]:
        """Literals each root key is compared with (for warnings on unmatched values)."""
        return self._walk(lambda: value_branches(self.tree))

    @functools.cached_property
    def arms(self) -> tuple[Arm, ...]:
        """Every arm of every branch: what a traced render can take."""
        return self._walk(lambda: tuple(branch_arms(self.tree)))

    @functools.cached_property
    def conditions(self) -> Conditions:
        """The root keys the branches test and the strings they compare them with."""
        return self._walk(lambda: branch_conditions(self.tree))

    def line_of(self, offset: int) -> int:
        """The template line of a source offset (an arm's)."""
        return self._marks.line(offset)

    def render_branches(
        self, context: Mapping[str, Any]
    ) -> tuple[str, SourceMap, frozenset[tuple[int, int]]]:
        """Like :meth:`render_mapped`, with the branch arms the render took."""
        lines = SourceMap()
        taken: set[tuple[int, int]] = set()
        text = self._execute(context, lines, taken=taken)
        return text, lines, frozenset(taken)

    def render_traced(self, context: Mapping[str, Any]) -> tuple[str, SourceMap, list[Printed]]:
        """Like :meth:`render_mapped`, with what each action printed that a value could
        have shaped (see :func:`printed_values`)."""
        lines = SourceMap()
        spans: list[tuple[int, int, nodes.ActionNode]] = []
        text = self._execute(context, lines, spans)
        return text, lines, printed_values(self._marks.line, text, spans)

    def _interpret(
        self,
        data: Any,
        lines: SourceMap | None,
        spans: list[tuple[int, int, nodes.ActionNode]] | None = None,
        taken: set[tuple[int, int]] | None = None,
    ) -> str:
        """Render by walking the tree (see :mod:`.interp`) within the render budget."""
        with limits.budget():
            try:
                interpreter = Interpreter(
                    self.tree, lines, limits.MAX_OUTPUT_CHARS, self._marks, self._template_limit()
                )
                interpreter.spans = spans
                interpreter.taken = taken
                return interpreter.run(data)
            except OutputLimit:
                raise TemplateError(limits.output_message(), file=self.name) from None
            except InterpError as exc:
                raise self._exec_error(exc) from None

    def _template_limit(self) -> int:
        """How many nested template calls fit on this thread's stack: Go's 100,000
        where the deepest chain fits, else as many of the costliest calls as fit."""
        budget = sys.getrecursionlimit() - stack_depth() - 4 * self.tree.depth - 200
        if self.calls.frames <= budget:
            return MAX_EXEC_DEPTH
        return max(0, budget // self.calls.costliest)

    def _exec_error(self, exc: InterpError) -> GoTemplateError:
        """The error Go's Execute returns for ``exc``, located for the user as well."""
        tree = self.tree
        if exc.node is None:
            go = f"template: {tree.name}: {exc.message}"
            return GoTemplateError(exc.message, go_message=go, file=self.name)
        text = f"executing {go_quote(exc.template)} at <{exc.where()}>: {exc.message}"
        line, col = line_col(tree.source, exc.node.pos)
        go_line, go_col = go_line_col(tree.source, exc.node.pos)
        go = f"template: {tree.name}:{go_line}:{go_col}: {text}"
        return GoTemplateError(text, go_message=go, file=self.name, line=line, column=col)

    def _execute(
        self,
        context: Mapping[str, Any],
        lines: SourceMap | None,
        spans: list[tuple[int, int, nodes.ActionNode]] | None = None,
        taken: set[tuple[int, int]] | None = None,
    ) -> str:
        """Execute with ``context`` as dot (and ``$``), recording what actions printed in
        ``spans`` and the branch arms taken in ``taken`` when given; raises TemplateError
        on failure."""
        try:
            data = normalize(context)
        except ValueError as exc:
            raise TemplateError(f"bad context: {exc}", file=self.name) from None
        except RecursionError:
            raise TemplateError("bad context: nested too deeply", file=self.name) from None
        try:
            return self._walk(lambda: self._interpret(data, lines, spans, taken))
        except limits.LimitExceeded as exc:
            raise TemplateError(
                str(exc), file=self.name, argument=exc.argument, hint=exc.hint
            ) from None
        except RecursionError:
            raise TemplateError(
                "exceeded maximum template depth (nested too deeply for this interpreter)",
                file=self.name,
            ) from None
        except TemplateError:
            raise
        except Exception as exc:  # defensive: never leak another exception type
            raise TemplateError(
                f"internal error while rendering: {exc!r}", file=self.name
            ) from None


#: Printed text that cannot change YAML structure wherever it lands: letters, digits and
#: a few punctuation marks, single inner spaces. Anything else is worth a closer look.
_INERT = re.compile(r"[A-Za-z0-9._/=+~^()]+(?: [A-Za-z0-9._/=+~^()]+)*")


def _read_key(action: nodes.ActionNode) -> str | None:
    """The first field or variable the action's pipeline reads; None for a constant."""
    for cmd in action.pipe.cmds:
        for arg in cmd.args:
            if isinstance(arg, nodes.FieldNode):
                return ".".join(arg.idents)
            if isinstance(arg, nodes.VariableNode | nodes.ChainNode | nodes.DotNode):
                return str(arg)
    return None


def printed_values(
    line: Callable[[int], int], text: str, spans: list[tuple[int, int, nodes.ActionNode]]
) -> list[Printed]:
    """The spans of ``text`` that actions printed from the context and that hold more than
    inert characters: the only places a value could change the YAML a template wrote.
    ``line`` gives the template line of an action's source offset."""
    out = []
    for start, end, action in spans:
        if _INERT.fullmatch(text, start, end):
            continue
        key = _read_key(action)
        if key is not None:
            out.append(Printed(start, end, line(action.pos), key))
    return out


def compile_go(source: str, name: str, *, template_name: str | None = None) -> GoTemplate:
    """Parse ``source`` read from ``name`` into a renderable; raises TemplateError naming it.

    ``template_name`` is the name Go gives the template (default: ``name``), which
    ``{{define}}`` and ``{{template}}`` see: BKE's controller names every file after
    its addon (``calico``).
    """
    tree = parse(source, name if template_name is None else template_name, name)
    try:
        with _collector_paused():
            return GoTemplate(tree, name)
    except TemplateError:
        raise
    except (RecursionError, MemoryError):
        raise TemplateError("template expressions nest too deeply to compile", file=name) from None
    except Exception as exc:  # defensive
        raise TemplateError(f"cannot compile template: {_short(exc)}", file=name) from None


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 200 else text[:200] + "..."
