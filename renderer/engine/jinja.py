"""The Jinja2 dialect: templates run in a sandbox whose allocations are bounded.

Jinja2's ``SandboxedEnvironment`` stops attribute access to Python internals but lets
``'x' * 10**12``, ``2 ** 10**9`` or ``'{:999999999}'.format(x)`` exhaust memory;
:class:`BoundedSandbox` caps every operation that can allocate without bound, counts
calls and loop iterations against the render budget (:mod:`renderer.engine.limits`),
and :class:`JinjaTemplate` turns whatever a template raises into a TemplateError naming
its line. Each top-level output chunk is preceded by a mark for the source map
(:mod:`renderer.engine.sourcemap`).
"""

from __future__ import annotations

import re
import string
import sys
from collections.abc import Mapping
from types import TracebackType
from typing import Any, TypeGuard

import jinja2
import jinja2.meta
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment

from renderer.engine import limits
from renderer.engine.limits import MAX_FORMAT_WIDTH, MAX_ITEMS, LimitExceeded
from renderer.engine.sourcemap import TRACE, MappedRender, SourceMap, mark
from renderer.errors import TemplateError

_ENV: SandboxedEnvironment | None = None

#: Largest string, list or padding width one template operation may produce.
MAX_RESULT_SIZE = 10 * 1024 * 1024
#: Longest text ``wordwrap`` wraps: Python's textwrap takes about 8 us a character, so
#: this keeps one call under a second.
MAX_WRAP_CHARS = 100_000
#: Paragraphs and words a paragraph ``lipsum`` may make.
MAX_LIPSUM = 1_000
#: Largest integer (in bits) ``*`` and ``**`` may produce: far beyond any manifest value.
MAX_INT_BITS = 64 * 1024
_SIZED = (str, bytes, list, tuple)
#: String methods whose result grows with an argument.
_PADDING_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_size(size: int, what: str) -> None:
    """Before an operation makes a value of ``size`` characters or items: over the
    result size limit, or over the render's memory limit, it is refused."""
    if size > MAX_RESULT_SIZE:
        raise SecurityError(
            f"{what} would produce {size} items, over {MAX_RESULT_SIZE} "
            + limits.fixed("result size")
        )
    limits.check_size(size)


def _size_of(value: Any) -> int:
    """The characters (or items) ``value`` takes when formatted or joined, without
    formatting it: sized values by length, anything else as a short scalar."""
    if isinstance(value, _SIZED):
        return len(value)
    if isinstance(value, Mapping):
        return len(value) * 8
    if _is_int(value):
        return value.bit_length() // 3 + 2
    return 32


def _args_of(args: Any) -> list[Any]:
    if isinstance(args, tuple | list):
        return list(args)
    if isinstance(args, Mapping):
        return list(args.values())
    return [args]


def _check_formatted(template: str, args: Any, marks: str, what: str) -> None:
    """``template`` formatted with ``args``: each conversion (``%`` or ``{``) may print
    the largest argument, so ``'%s%s' % (s, s)`` doubling in a loop stops before the
    string is made."""
    values = _args_of(args)
    largest = max((_size_of(v) for v in values), default=0)
    _check_size(len(template) + template.count(marks) * largest, what)


def _check_join(sep: Any, items: Any, what: str) -> None:
    if isinstance(items, _SIZED) and not isinstance(items, str | bytes):
        total = sum(_size_of(item) for item in items)
        _check_size(total + max(len(items) - 1, 0) * _size_of(sep), what)


#: List methods that grow the list in place.
_GROWING = frozenset({"append", "extend", "insert", "__iadd__"})


def _check_growth(owner: list[Any], name: str, args: tuple[Any, ...]) -> None:
    """``l.append(x)``/``l.extend(xs)`` in a loop: the list is checked before it grows,
    as ``l + l`` is (what it holds was made, and checked, before)."""
    added = args[-1] if args else None
    count = len(added) if name in ("extend", "__iadd__") and isinstance(added, _SIZED) else 1
    _check_size(len(owner) + count, name)
    limits.check_size(8 * count)


def _check_bits(bits: int, operator: str) -> None:
    if bits > MAX_INT_BITS:
        raise SecurityError(
            f"{operator!r} would produce an integer of more than {MAX_INT_BITS} bits"
        )


def _check_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse ``seq * n`` over the size limit and ``*``/``**`` giving huge integers."""
    if operator == "*":
        for seq, n in ((left, right), (right, left)):
            if isinstance(seq, _SIZED) and _is_int(n):
                _check_size(len(seq) * max(n, 0), "'*'")
        if _is_int(left) and _is_int(right):
            _check_bits(left.bit_length() + right.bit_length(), "*")
    elif operator == "**" and _is_int(left) and _is_int(right) and right > 0 and abs(left) > 1:
        _check_bits(abs(left).bit_length() * right, "**")


def _check_replace(text: str, old: Any, new: Any) -> None:
    if isinstance(old, str) and isinstance(new, str):
        count = len(text) + 1 if not old else text.count(old)
        _check_size(len(text) + count * len(new), "replace")


def _check_call(owner: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse string methods whose result would exceed the size limit."""
    first = args[0] if args else next(iter(kwargs.values()), None)
    if name in _PADDING_METHODS and _is_int(first):
        _check_size(first, name)
    elif name == "expandtabs" and _is_int(first):
        _check_size(len(owner) + owner.count("\t") * first, name)
    elif name == "replace" and len(args) >= 2:
        _check_replace(owner, args[0], args[1])
    elif name == "join" and args:
        _check_join(owner, args[0], "join")


#: ``%`` conversions: optional mapping key, flags, width, precision.
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d*))?")
#: ``str.format`` specs: width and precision digits (any fill and align before).
_FORMAT_NUMBERS = re.compile(r"(\d+)")


def _check_width(number: int, what: str) -> None:
    if number > MAX_FORMAT_WIDTH:
        raise LimitExceeded(
            f"{what} width or precision {number} is over {MAX_FORMAT_WIDTH} "
            + limits.fixed("format width")
        )


def _star_args(args: Any) -> None:
    """Widths taken from the arguments (``*``, nested ``{}``): every integer counts."""
    values = args if isinstance(args, tuple | list) else (args,)
    for value in values:
        if _is_int(value):
            _check_width(abs(value), "format")


def check_percent(template: Any, args: Any) -> None:
    """Refuse ``'%0999999999d' % x``-style widths and precisions."""
    if not isinstance(template, str):
        return
    for m in _PERCENT_SPEC.finditer(template):
        for group in m.groups():
            if group == "*":
                _star_args(args)
            elif group:
                _check_width(int(group), "'%'")


def check_format_spec(template: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse ``'{:999999999}'.format(x)``: numbers in every field's spec are capped, and
    a spec with a nested field caps every integer argument."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return  # str.format reports the malformed template itself
    for _, _, spec, _ in fields:
        if not spec:
            continue
        if "{" in spec:
            _star_args((*args, *kwargs.values()))
        for number in _FORMAT_NUMBERS.findall(spec):
            _check_width(int(number), "format")


def _check_result(value: Any) -> None:
    if isinstance(value, _SIZED):
        _check_size(len(value), "a call")
        if len(value) >= limits.LARGE_VALUE:
            limits.check_memory()


class BoundedSandbox(SandboxedEnvironment):
    """The sandbox, with the operations that can allocate without bound capped.

    ``'x' * 10**12``, ``2 ** 10**9``, ``'x'.center(10**12)``, ``s ~ s`` and ``s + s``
    past the size limit, and format widths over MAX_FORMAT_WIDTH raise (a
    TemplateError naming the line) instead of exhausting memory; every call and loop
    iteration counts against the render's time and iteration budget.
    """

    intercepted_binops = frozenset({"*", "**", "%", "+"})
    bounded_iter = staticmethod(limits.bounded_iter)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        _check_binop(operator, left, right)
        if operator == "%":
            check_percent(left, right)
            if isinstance(left, str):
                _check_formatted(left, right, "%", "'%'")
        elif operator == "+" and isinstance(left, _SIZED) and isinstance(right, _SIZED):
            _check_size(len(left) + len(right), "'+'")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        limits.check_call()
        owner = getattr(__obj, "__self__", None)
        if isinstance(owner, str):
            _check_call(owner, getattr(__obj, "__name__", ""), args, kwargs)
        elif isinstance(owner, list) and getattr(__obj, "__name__", "") in _GROWING:
            _check_growth(owner, __obj.__name__, args)
        result = super().call(__context, __obj, *args, **kwargs)
        _check_result(result)
        return result

    def wrap_str_format(self, value: Any) -> Any:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        owner: str = value.__self__

        def checked(*args: Any, **kwargs: Any) -> Any:
            if value.__name__ == "format_map" and args and isinstance(args[0], dict):
                check_format_spec(owner, (), args[0])
                _check_formatted(owner, args[0], "{", "format")
            else:
                check_format_spec(owner, args, kwargs)
                _check_formatted(owner, [*args, *kwargs.values()], "{", "format")
            return wrapped(*args, **kwargs)

        return checked

    @staticmethod
    def bounded_concat(items: Any) -> str:
        """``a ~ b``: the parts' sizes are checked before they are joined."""
        parts = [item if isinstance(item, str) else str(item) for item in items]
        _check_size(sum(len(p) for p in parts), "'~'")
        if any(hasattr(p, "__html__") for p in parts):
            return str(jinja2.runtime.markup_join(parts))
        return "".join(parts)


def _bounded_filters(env: SandboxedEnvironment) -> None:
    """Wrap the filters whose output grows with an argument so the size is checked first."""
    center, indent, replace = env.filters["center"], env.filters["indent"], env.filters["replace"]

    def do_center(value: Any, width: Any = 80) -> Any:
        if _is_int(width):
            _check_size(width, "center")
        return center(value, width)

    def do_indent(value: Any, width: Any = 4, *args: Any, **kwargs: Any) -> Any:
        if _is_int(width):
            _check_size(len(str(value)) + (str(value).count("\n") + 1) * width, "indent")
        return indent(value, width, *args, **kwargs)

    @jinja2.pass_eval_context
    def do_replace(eval_ctx: Any, value: Any, old: Any, new: Any, *args: Any) -> Any:
        _check_replace(str(value), old, new)
        return replace(eval_ctx, value, old, new, *args)

    fmt, batch, slice_ = env.filters["format"], env.filters["batch"], env.filters["slice"]

    def do_format(value: Any, *args: Any, **kwargs: Any) -> Any:
        check_percent(value, kwargs or args)
        if isinstance(value, str):
            _check_formatted(value, kwargs or args, "%", "format")
        return fmt(value, *args, **kwargs)

    join, wordwrap = env.filters["join"], env.filters["wordwrap"]

    @jinja2.pass_eval_context
    def do_join(eval_ctx: Any, value: Any, d: Any = "", attribute: Any = None) -> Any:
        items = list(value) if attribute is None and not isinstance(value, _SIZED) else value
        if attribute is None:
            _check_join(d, items, "join")
        return join(eval_ctx, items, d, attribute)

    @jinja2.pass_environment
    def do_wordwrap(environment: Any, s: Any, width: Any = 79, *args: Any, **kw: Any) -> Any:
        text = str(s)
        if len(text) > MAX_WRAP_CHARS:
            raise LimitExceeded(
                f"wordwrap of {len(text)} characters is over {MAX_WRAP_CHARS} "
                + limits.fixed("wordwrap")
            )
        if _is_int(width) and width > 0:
            _check_size(len(text) + (len(text) // width + 1) * 8, "wordwrap")
        return wordwrap(environment, s, width, *args, **kw)

    def do_batch(value: Any, linecount: Any, *args: Any, **kwargs: Any) -> Any:
        _check_items(linecount, "batch")
        return batch(value, linecount, *args, **kwargs)

    @jinja2.pass_eval_context
    def do_slice(eval_ctx: Any, value: Any, slices: Any, *args: Any, **kwargs: Any) -> Any:
        _check_items(slices, "slice")
        return slice_(eval_ctx, value, slices, *args, **kwargs)

    env.filters.update(
        center=do_center,
        indent=do_indent,
        replace=do_replace,
        format=do_format,
        join=do_join,
        wordwrap=do_wordwrap,
        batch=do_batch,
        slice=do_slice,
    )


def _bounded_lipsum(n: Any = 5, html: Any = True, min: Any = 20, max: Any = 100) -> Any:
    """``lipsum``, its paragraphs and words per paragraph capped before any is made."""
    from jinja2.utils import generate_lorem_ipsum

    for count, what in ((n, "paragraphs"), (min, "words"), (max, "words")):
        if _is_int(count) and count > MAX_LIPSUM:
            raise LimitExceeded(
                f"lipsum of {count} {what} is over {MAX_LIPSUM} " + limits.fixed("lipsum")
            )
    return generate_lorem_ipsum(n=n, html=html, min=min, max=max)


def _check_items(count: Any, what: str) -> None:
    if _is_int(count) and count > MAX_ITEMS:
        raise LimitExceeded(f"{what} of {count} is over {MAX_ITEMS} items " + limits.fixed("item"))


def _bound_concat(template: jinja2.nodes.Template) -> jinja2.nodes.Template:
    """Route every ``~`` through ``bounded_concat`` (doubling a string in a loop)."""
    for parent in list(template.find_all(jinja2.nodes.Node)):
        for field in parent.fields:
            child = getattr(parent, field, None)
            if isinstance(child, jinja2.nodes.Concat):
                setattr(parent, field, _concat_call(child))
            elif isinstance(child, list):
                setattr(
                    parent,
                    field,
                    [_concat_call(c) if isinstance(c, jinja2.nodes.Concat) else c for c in child],
                )
    return template


def _concat_call(node: jinja2.nodes.Concat) -> jinja2.nodes.Call:
    return jinja2.nodes.Call(
        jinja2.nodes.EnvironmentAttribute("bounded_concat"),
        [jinja2.nodes.List(node.nodes, lineno=node.lineno)],
        [],
        None,
        None,
        lineno=node.lineno,
    )


def jinja_environment() -> SandboxedEnvironment:
    """The sandbox for the Jinja2 dialect: undefined names are errors, text kept as is."""
    global _ENV
    if _ENV is None:
        env = BoundedSandbox(
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            auto_reload=False,
        )
        _bounded_filters(env)
        env.globals[_MARK] = mark
        env.globals["lipsum"] = _bounded_lipsum
        _ENV = env
    return _ENV


#: The global compiled Jinja templates call before each output chunk (source maps).
_MARK = "calico_render_mark"
#: Statements whose body output is buffered, not yielded chunk by chunk: no marks inside.
_BUFFERED = (
    jinja2.nodes.Macro,
    jinja2.nodes.CallBlock,
    jinja2.nodes.FilterBlock,
    jinja2.nodes.AssignBlock,
)


def _add_marks(node: jinja2.nodes.Node) -> None:
    """Put ``calico_render_mark(line)`` before each top-level output item: the line of
    literal text (positive) or of an expression (negative), as the Go dialect does."""
    for child in node.iter_child_nodes():
        if isinstance(child, _BUFFERED):
            continue
        if isinstance(child, jinja2.nodes.Output):
            items: list[jinja2.nodes.Expr] = []
            for item in child.nodes:
                args: list[jinja2.nodes.Expr] = [jinja2.nodes.Const(-item.lineno)]
                if isinstance(item, jinja2.nodes.TemplateData):
                    args = [
                        jinja2.nodes.Const(item.lineno),
                        jinja2.nodes.Const(item.data.count("\n")),
                    ]
                call = jinja2.nodes.Call(jinja2.nodes.Name(_MARK, "load"), args, [], None, None)
                call.set_lineno(item.lineno)
                items += [call, item]
            child.nodes = items
            continue
        _add_marks(child)


def _template_line(tb: TracebackType | None, name: str) -> int | None:
    """The template line of the innermost frame Jinja attributes to ``name``."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == name:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


#: Statements that open a block closed by ``end<name>``.
_BLOCKS = frozenset({"for", "if", "macro", "call", "filter", "with", "block", "autoescape"})
_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")


def deepest(env: jinja2.Environment, source: str) -> tuple[int, int | None]:
    """The deepest nesting of blocks and brackets in ``source`` and the line where it is
    first reached, from Jinja2's lexer (which does not recurse)."""
    depth = best = 0
    line: int | None = None
    after_begin = False
    try:
        for lineno, kind, value in env.lex(source):
            if kind == "whitespace":
                continue
            if kind == "block_begin":
                after_begin = True
                continue
            if after_begin and kind == "name":
                if value in _BLOCKS:
                    depth += 1
                elif value.startswith("end") and value[3:] in _BLOCKS:
                    depth -= 1
            after_begin = False
            if kind == "operator" and value in _OPEN:
                depth += 1
            elif kind == "operator" and value in _CLOSE:
                depth -= 1
            if depth > best:
                best, line = depth, lineno
    except jinja2.TemplateSyntaxError:
        pass
    return best, line


class JinjaTemplate(MappedRender):
    """A Jinja2-dialect template; an undefined variable is an error naming it."""

    def __init__(self, source: str, name: str) -> None:
        env = jinja_environment()
        self.name = name
        try:
            ast = env.parse(source, name=name, filename=name)
            self.keys = frozenset(jinja2.meta.find_undeclared_variables(ast))
            _add_marks(ast)
            self._template = env.from_string(limits.bound_loops(_bound_concat(ast)))
            self._template.filename = name
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(exc.message or "syntax error", file=name, line=exc.lineno) from None
        except (RecursionError, MemoryError, SyntaxError) as exc:
            # Jinja2 parses recursively and compiles to Python, whose compiler allows 20
            # nested loops and about 100 nested blocks: deeper nesting cannot compile.
            depth, line = deepest(env, source)
            why = exc.msg if isinstance(exc, SyntaxError) else type(exc).__name__
            raise TemplateError(
                f"nested {depth} levels deep, too deep for the Jinja2 dialect ({why}); "
                "split it into macros or use the Go dialect",
                file=name,
                line=line,
            ) from None

    def _bounded_output(self, context: Mapping[str, Any], lines: SourceMap | None = None) -> str:
        """Render, stopping once the output passes MAX_OUTPUT_CHARS; with ``lines``,
        extend it chunk by chunk (see :mod:`renderer.engine.sourcemap`)."""
        parts: list[str] = []
        size = 0
        TRACE.line, TRACE.newlines = 0, -1
        with limits.budget():
            for chunk in self._template.generate(dict(context)):
                if not chunk:
                    continue
                size += len(chunk)
                if size > limits.MAX_OUTPUT_CHARS:
                    raise LimitExceeded(limits.output_message())
                parts.append(chunk)
                if lines is not None:
                    lines.add(chunk, TRACE.line, TRACE.newlines)
        return "".join(parts)

    def _execute(self, context: Mapping[str, Any], lines: SourceMap | None) -> str:
        try:
            return self._bounded_output(context, lines)
        except LimitExceeded as exc:
            line = _template_line(sys.exc_info()[2], self.name)
            raise TemplateError(
                str(exc), file=self.name, line=line, argument=exc.argument, hint=exc.hint
            ) from None
        except jinja2.UndefinedError as exc:
            line = _template_line(sys.exc_info()[2], self.name)
            raise TemplateError(exc.message or "undefined", file=self.name, line=line) from None
        except SecurityError as exc:
            line = _template_line(sys.exc_info()[2], self.name)
            raise TemplateError(f"refused: {exc}", file=self.name, line=line) from None
        except jinja2.TemplateError as exc:
            line = _template_line(sys.exc_info()[2], self.name)
            raise TemplateError(exc.message or str(exc), file=self.name, line=line) from None
        except MemoryError:
            line = _template_line(sys.exc_info()[2], self.name)
            raise TemplateError("out of memory", file=self.name, line=line) from None
        except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as exc:
            # ArithmeticError includes OverflowError (e.g. 10.0 ** 400).
            line = _template_line(sys.exc_info()[2], self.name)
            raise TemplateError(f"{type(exc).__name__}: {exc}", file=self.name, line=line) from None
