"""Random Go templates for differential testing against Go's text/template.

The generator mixes every construct the engine supports (fields, literals, builtins
and the controller's functions with right and wrong arities, pipelines, variables,
if/else if/else, with/else with/else, range over lists, maps and integers with
break/continue/else, template calls and blocks, comments, trim markers, float verbs and
complex constants in printf, declarations inside parentheses) and leans towards
well-typed calls so that most programs render rather than fail. A share of the
templates is then damaged (a character dropped, doubled or put in), so that Go's parse
errors are exercised as well as its execution errors.

The second half runs cases through Go (``tests/go/render.go`` in its batch mode, one
process for thousands of cases) and sorts a case's Go and engine outcomes into one of
:data:`KINDS`.
"""

from __future__ import annotations

import base64
import json
import random
import re
import subprocess
from pathlib import Path
from typing import Any, NamedTuple

FIELDS = [
    ".s",
    ".n",
    ".m",
    ".m.b",
    ".m.c",
    ".m.nested.deep",
    ".l",
    ".el",
    ".missing",
    ".f",
    ".one",
    ".zero",
    ".t",
    ".strs",
    ".ints",
    ".csv",
    ".num",
    ".ver",
    ".uni",
    ".empty",
    ".em",
    ".m.c.x",
    ".missing.x",
    ".maps",
]
LITERALS = [
    "1",
    "0",
    "-2",
    "1.5",
    "2.0",
    '"x"',
    '""',
    '"a,b"',
    "true",
    "false",
    "nil",
    "'a'",
    "`r`",
    '"%v"',
    '"%d|%s"',
    '"v1.2"',
    "1e3",
    "0x10",
    "2i",
    "1.5e-3",
    ".f",
    ".big",
    ".tiny",
]
STRINGS = [
    ".s",
    ".csv",
    ".num",
    ".ver",
    ".uni",
    ".empty",
    '"x"',
    '""',
    '"a,b"',
    '"v1.2"',
    '"v1.34.3-of.1"',
    '" 1.2"',
    '"1.2-rc"',
    '"v3.27.3-rc.10"',
    '"%w"',
    '"%v|%q|%5.1f"',
    ".m.a",
    "(print .one)",
    '(printf "%d" .one)',
    ".missing",
]
INTS = [".one", ".zero", "1", "-2", "'a'", ".m.b", "(len .strs)", "(index .ints 1)", "$.one"]
FUNCS = {
    "eq": (2, 3),
    "ne": (2, 2),
    "lt": (2, 2),
    "le": (2, 2),
    "gt": (2, 2),
    "ge": (2, 2),
    "and": (1, 3),
    "or": (1, 3),
    "not": (1, 1),
    "len": (1, 1),
    "index": (1, 3),
    "slice": (1, 3),
    "print": (0, 3),
    "printf": (1, 3),
    "println": (0, 2),
    "html": (1, 2),
    "js": (1, 1),
    "urlquery": (1, 1),
    "defaultFalse": (1, 1),
    "b64encode": (1, 1),
    "split": (2, 2),
    "stringToSliceString": (2, 2),
    "int": (1, 1),
    "indent": (2, 2),
    "vgt": (2, 2),
    "veq": (2, 2),
    "vlt": (2, 2),
    "vgte": (2, 2),
    "vlte": (2, 2),
    "vne": (2, 2),
}
STRING_FUNCS = {
    "split",
    "stringToSliceString",
    "int",
    "indent",
    "vgt",
    "veq",
    "vlt",
    "vgte",
    "vlte",
    "vne",
    "printf",
}
COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}
RANGE_OVER = [
    ".l",
    ".strs",
    ".m",
    ".el",
    ".missing",
    ".s",
    ".ints",
    'split .csv ","',
    ".n",
    ".maps",
    ".one",
    "3",
    ".zero",
    "-2",
    "len .strs",
    "index .ints 0",
    "int .num",
    ".f",
]
COMMENTS = ["{{/* c */}}", "{{- /* c */ -}}", "{{/* c\n */ -}}", "{{ /* c */ }}"]
#: printf formats with float (and complex) verbs, flags, widths and precisions.
FLOAT_FORMATS = [
    '"%x"',
    '"%X"',
    '"%b"',
    '"%#g"',
    '"%#x|%#X"',
    '"%.3x|%#.0x"',
    '"%#e %#f"',
    '"%#.0f|%#.0e"',
    '"%+x|% X|%010.2x"',
    '"%-12b|%#b"',
    '"%#v|%v"',
    '"%G|%#G|%#.3g"',
    '"%8.3e|%-8.1f|"',
    '"%x %d"',
]
FLOATS = [".f", ".fint", ".big", ".huge", ".tiny", "1.5", "-0.0", "2.0", "1e300", "1i", "(1.5-2i)"]


class _Generator:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.vars: list[str] = []
        self.depth = 0

    def operand(self, depth: int) -> str:
        r = self.rng.random()
        if r < 0.35:
            return self.rng.choice(FIELDS)
        if r < 0.55:
            return self.rng.choice(LITERALS)
        if r < 0.65 and self.vars:
            return self.rng.choice(self.vars) + self.rng.choice(["", "", ".b", ".x"])
        if r < 0.7:
            return self.rng.choice([".", "$", "$.s", "$.m.b"])
        if depth < 2:
            if self.rng.random() < 0.05:  # a declaration inside parentheses
                return f"($p{self.rng.randint(0, 1)} := " + self.pipeline(depth + 1) + ")"
            return "(" + self.pipeline(depth + 1) + ")"
        return self.rng.choice(FIELDS)

    def command(self, depth: int, piped: bool = False) -> str:
        if not piped and self.rng.random() >= 0.55:
            return self.operand(depth)
        if self.rng.random() < 0.06:
            count = self.rng.randint(0 if piped else 1, 3)
            return " ".join(
                ["printf", self.rng.choice(FLOAT_FORMATS)]
                + [self.rng.choice(FLOATS) for _ in range(count)]
            )
        name = self.rng.choice(sorted(FUNCS))
        low, high = FUNCS[name]
        count = self.rng.randint(max(0, low - (1 if piped else 0)), high)
        if self.rng.random() < 0.05:
            count += 1
        if name in STRING_FUNCS and self.rng.random() < 0.8:
            args = [self.rng.choice(STRINGS) for _ in range(count)]
        elif name in COMPARISONS and self.rng.random() < 0.7:
            pool = self.rng.choice([STRINGS, INTS])
            args = [self.rng.choice(pool) for _ in range(count)]
        else:
            args = [self.operand(depth) for _ in range(count)]
        return " ".join([name, *args])

    def pipeline(self, depth: int = 0) -> str:
        cmds = [self.command(depth)]
        while self.rng.random() < 0.25:
            cmds.append(self.command(depth, piped=True))
        text = " | ".join(cmds)
        if self.rng.random() < 0.05:
            text += " |"
        return text

    def space(self) -> str:
        return self.rng.choice(["", "", " ", "\n", "  \n ", "\t"])

    def left(self) -> str:
        return "{{" + ("- " if self.rng.random() < 0.3 else " ")

    def right(self) -> str:
        return (" -" if self.rng.random() < 0.3 else " ") + "}}"

    def statement(self) -> str:
        r = self.rng.random()
        if r < 0.2 or self.depth > 3:
            if self.rng.random() < 0.1:
                return self.rng.choice(self.comments)
            return self.rng.choice(["a", "b: ", "- x\n", "text", "é"]) + self.space()
        if r < 0.5:
            return self.left() + self.pipeline() + self.right() + self.space()
        self.depth += 1
        try:
            return self.control(r)
        finally:
            self.depth -= 1

    def control(self, r: float) -> str:
        lt, rt = self.left, self.right
        if r < 0.6:
            var = f"$v{self.rng.randint(0, 3)}"
            text = lt() + var + " := " + self.pipeline() + rt()
            self.vars.append(var)
            return text
        if r < 0.63 and self.vars:
            return lt() + self.rng.choice(self.vars) + " = " + self.pipeline() + rt()
        if r < 0.78:
            text = lt() + "if " + self.pipeline() + rt() + self.body()
            if self.rng.random() < 0.4:
                text += lt() + "else if " + self.pipeline() + rt() + self.body()
            if self.rng.random() < 0.5:
                text += lt() + "else" + rt() + self.body()
            return text + lt() + "end" + rt() + self.space()
        if r < 0.88:
            decl = self.rng.choice(["", "$i, $e := ", "$e := "])
            saved = list(self.vars)
            self.vars += [v for v in ("$i", "$e") if v in decl]
            text = lt() + "range " + decl + self.range_over(decl.count("$") > 1) + rt()
            text += self.body(loop=True)
            self.vars = saved
            if self.rng.random() < 0.4:
                text += lt() + "else" + rt() + self.body()
            return text + lt() + "end" + rt()
        if r < 0.95:
            text = lt() + "with " + self.pipeline() + rt() + self.body()
            while self.rng.random() < 0.3:  # Go 1.23's else with
                text += lt() + "else with " + self.pipeline() + rt() + self.body()
            if self.rng.random() < 0.4:
                text += lt() + "else" + rt() + self.body()
            return text + lt() + "end" + rt()
        if r < 0.97:
            return lt() + 'template "d"' + rt()
        if r < 0.98:
            return lt() + 'block "b" ' + self.pipeline() + rt() + self.body() + lt() + "end" + rt()
        return lt() + 'template "d" ' + self.pipeline() + rt()

    def range_over(self, pair: bool) -> str:
        return self.rng.choice(RANGE_OVER)

    def body(self, loop: bool = False) -> str:
        saved = list(self.vars)
        text = "".join(self.statement() for _ in range(self.rng.randint(0, 3)))
        if loop and self.rng.random() < self.jumps:
            jump = self.left() + self.rng.choice(["break", "continue"]) + self.right()
            if self.rng.random() < 0.5:  # on some iterations only
                jump = self.left() + "if " + self.pipeline() + self.right() + jump
                jump += self.left() + "end" + self.right()
            text += jump + "".join(self.statement() for _ in range(self.rng.randint(0, 1)))
        self.vars = saved
        return text

    jumps = 0.2
    comments = COMMENTS


#: Operands that evaluate wherever dot is (the root's keys through ``$``).
TAME_OPERANDS = [
    "$.s", "$.n", "$.m", "$.m.b", "$.l", "$.missing", "$.f", "$.one", "$.zero", "$.t",
    "$.strs", "$.ints", "$.ver", "$.uni", "$.empty", "$.big", "$.tiny", "$", ".",
    "1", "-2", "1.5", '"x"', '""', "true", "'a'", "2i", "0x10", "1e3",
]  # fmt: skip
#: Strings for the string parameters (split, int, indent, the version functions).
TAME_STRINGS = ['$.s', '$.csv', '$.num', '$.ver', '$.uni', '$.empty', '"x"', '"v1.2"',
                '"v1.34.3-of.1"', '(print $.one)', '(printf "%x" $.f)']  # fmt: skip
#: Functions whose parameters take any value (never a type error).
TAME_ANY = ["print", "println", "html", "js", "urlquery", "defaultFalse", "b64encode", "not",
            "and", "or"]  # fmt: skip
TAME_FLOATS = ["$.f", "$.fint", "$.big", "$.huge", "$.tiny", "1.5", "-0.0", "1e300", "1i",
               "(1.5-2i)"]  # fmt: skip
TAME_RANGE_OVER = [
    "$.l", "$.strs", "$.m", "$.el", "$.missing", "$.ints", 'split $.csv ","', "$.n", "$.maps",
    "$.one", "3", "$.zero", "-2", "len $.strs", "index $.ints 0", "int $.num", "$.em",
]  # fmt: skip


class _TameGenerator(_Generator):
    """Programs that mostly render: every field is read through ``$``, every call gets
    arguments of the types it takes, so the new syntax and printing are seen working
    (an error ends a whole render, and one anywhere hides the rest)."""

    jumps = 0.5
    comments = COMMENTS[:3]

    def operand(self, depth: int) -> str:
        r = self.rng.random()
        if r < 0.15 and self.vars:
            return self.rng.choice(self.vars)
        if r < 0.2 and depth < 2:
            if self.rng.random() < 0.3:  # a declaration inside parentheses
                return f"($p{self.rng.randint(0, 1)} := " + self.pipeline(depth + 1) + ")"
            return "(" + self.pipeline(depth + 1) + ")"
        return self.rng.choice(TAME_OPERANDS)

    def command(self, depth: int, piped: bool = False) -> str:
        r = self.rng.random()
        if not piped and r < 0.35:
            return self.operand(depth)
        if r < 0.55:
            count = self.rng.randint(0 if piped else 1, 3)
            args = [self.rng.choice(TAME_FLOATS) for _ in range(count)]
            return " ".join(["printf", self.rng.choice(FLOAT_FORMATS), *args])
        if r < 0.65 and not piped:
            name = self.rng.choice(["split", "indent", "vgt", "veq", "vlte", "stringToSliceString"])
            return f"{name} {self.rng.choice(TAME_STRINGS)} {self.rng.choice(TAME_STRINGS)}"
        if r < 0.7 and not piped:
            return "int " + self.rng.choice(TAME_STRINGS)
        name = self.rng.choice(TAME_ANY)
        low = 0 if name in ("print", "println", "html", "js", "urlquery") else 1
        if name in ("not", "defaultFalse", "b64encode"):
            count = 0 if piped else 1
        else:
            count = self.rng.randint(max(0, low - piped), 3)
        return " ".join([name] + [self.operand(depth) for _ in range(count)])

    def pipeline(self, depth: int = 0) -> str:
        cmds = [self.command(depth)]
        while self.rng.random() < 0.25:
            cmds.append(self.command(depth, piped=True))
        return " | ".join(cmds)

    def range_over(self, pair: bool) -> str:
        """What to range over: with an index and an element, no integer."""
        return self.rng.choice(TAME_RANGE_OVER[: 9 if pair else None])


#: What a damaged template gets put in: the characters that make Go's grammar.
DAMAGE = "{}()|$.\"'`:=,- \n\t\\/*x1é"


def damage(rng: random.Random, text: str) -> str:
    """``text`` with one to three characters dropped, doubled or put in."""
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(text) + 1)
        how = rng.random()
        if how < 0.4 and at < len(text):
            text = text[:at] + text[at + 1 :]
        elif how < 0.6 and at < len(text):
            text = text[:at] + text[at] + text[at:]
        else:
            text = text[:at] + rng.choice(DAMAGE) + text[at:]
    return text


def random_template(seed: int) -> str:
    """A random template (deterministic for ``seed``) defining and using template "d":
    half of them tame (see :class:`_TameGenerator`), one in six damaged (see
    :func:`damage`)."""
    rng = random.Random(seed)
    gen = _TameGenerator(rng) if rng.random() < 0.5 else _Generator(rng)
    prelude = '{{ define "d" }}[{{ . }}|{{ $ }}]{{ end }}'
    text = prelude + "".join(gen.statement() for _ in range(rng.randint(1, 6)))
    if rng.random() < 1 / 6:
        text = damage(rng, text)
    return text


# --- differential runs: Go's text/template (tests/go, batch mode) against the engine -------


class Outcome(NamedTuple):
    """One side's result of a case: the rendered bytes, or Go's error text."""

    ok: bool
    output: bytes
    error: str


#: What the outcomes of one case come to (see :func:`classify`).
IDENTICAL, SAME_ERROR, OTHER_ERROR, DIFFER = (
    "identical output",
    "both error, same message",
    "both error, different message",
    "differ",
)
KINDS = (IDENTICAL, SAME_ERROR, OTHER_ERROR, DIFFER)

#: Go after 1.24 (1.26 here) adds the two types to this message, which Go 1.24.5 (the
#: controller's Go, which the engine follows) does not print; the oracle may be newer.
_NEWER_GO = re.compile(r"(incompatible types for comparison): [^:]+ and [^:]+$")


def as_go_1_24(message: str) -> str:
    """Go's error text as Go 1.24.5 words it."""
    return _NEWER_GO.sub(r"\1", message)


def go_batch(binary: Path, cases: list[tuple[str, Any]], name: str = "calico") -> list[Outcome]:
    """Each (template, context) case rendered by Go's reference program in one process."""
    lines = [
        json.dumps(
            {
                "template": base64.b64encode(t.encode("utf-8", "surrogateescape")).decode(),
                "context": ctx,
            }
        )
        for t, ctx in cases
    ]
    result = subprocess.run(
        [str(binary), "batch", name],
        input=("\n".join(lines) + "\n").encode(),
        capture_output=True,
        check=True,
        timeout=600,
    )
    outcomes = []
    for line in result.stdout.splitlines():
        r = json.loads(line)
        error = base64.b64decode(r["err"]).decode("utf-8", "surrogateescape")
        outcomes.append(Outcome(r["ok"], base64.b64decode(r["out"]), error))
    assert len(outcomes) == len(cases), result.stderr
    return outcomes


def classify(go: Outcome, py: Outcome) -> str:
    """Which of :data:`KINDS` a case's two outcomes are (Go's error as 1.24.5 words it)."""
    if go.ok and py.ok and go.output == py.output:
        return IDENTICAL
    if not go.ok and not py.ok:
        return SAME_ERROR if as_go_1_24(go.error) == py.error else OTHER_ERROR
    return DIFFER


#: What a generated template uses that Go 1.22-1.24 added or that printing had refused,
#: each found by a pattern of the generator's own spelling.
FEATURES = {
    "else with": re.compile(r"\{\{-? else with "),
    "range over an integer": re.compile(
        r"\{\{-? range (?:\$e := )?(?:3|-2|\$?\.one|\$?\.zero|len \$?\.strs|index \$?\.ints 0"
        r"|int \$?\.num) -?\}\}"
    ),
    "break or continue": re.compile(r"\{\{-? (?:break|continue) -?\}\}"),
    "float verb": re.compile("|".join(re.escape(f) for f in FLOAT_FORMATS)),
    "complex constant": re.compile(r"[ (]-?[0-9.e]*i\b|\(1\.5-2i\)"),
    "declaration in parentheses": re.compile(r"\(\$p[01] := "),
}


def features(template: str) -> list[str]:
    """The :data:`FEATURES` ``template`` uses."""
    return [name for name, pattern in FEATURES.items() if pattern.search(template)]
