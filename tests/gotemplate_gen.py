"""Random Go templates for differential testing against Go's text/template.

The generator mixes every construct the engine supports (fields, literals, builtins
and the controller's functions with right and wrong arities, pipelines, variables,
if/else if/else, range with break/continue/else, with, template calls, trim markers)
and leans towards well-typed calls so that most programs render rather than fail.
"""

from __future__ import annotations

import random

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
]


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
            return "(" + self.pipeline(depth + 1) + ")"
        return self.rng.choice(FIELDS)

    def command(self, depth: int, piped: bool = False) -> str:
        if not piped and self.rng.random() >= 0.55:
            return self.operand(depth)
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
            text = lt() + "range " + decl + self.rng.choice(RANGE_OVER) + rt()
            text += self.body(loop=True)
            self.vars = saved
            if self.rng.random() < 0.4:
                text += lt() + "else" + rt() + self.body()
            return text + lt() + "end" + rt()
        if r < 0.95:
            text = lt() + "with " + self.pipeline() + rt() + self.body()
            if self.rng.random() < 0.4:
                text += lt() + "else" + rt() + self.body()
            return text + lt() + "end" + rt()
        return lt() + 'template "d" ' + self.pipeline() + rt()

    def body(self, loop: bool = False) -> str:
        saved = list(self.vars)
        text = "".join(self.statement() for _ in range(self.rng.randint(0, 3)))
        if loop and self.rng.random() < 0.2:
            text += self.left() + self.rng.choice(["break", "continue"]) + self.right()
        self.vars = saved
        return text


def random_template(seed: int) -> str:
    """A random template (deterministic for ``seed``) defining and using template "d"."""
    rng = random.Random(seed)
    gen = _Generator(rng)
    prelude = '{{ define "d" }}[{{ . }}|{{ $ }}]{{ end }}'
    return prelude + "".join(gen.statement() for _ in range(rng.randint(1, 6)))
