"""Go ``text/template`` lexer, state for state like Go's ``parse/lex.go``.

Following Go's state machine (rather than a regular expression) keeps the odd corners
identical: trim markers need a space (``{{-3}}`` is the number -3), ``.5`` is a
number but ``.x`` a field, comments must close right before the delimiter, and so on.
For speed, :func:`lex_text` scans text and plain actions in one loop with ``str.find``
and one compiled token pattern, and hands anything else to those states at the token
where it starts; ``tests/engine/gotemplate/test_lexer.py`` holds both to the previous,
character-by-character lexer.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from enum import Enum, auto
from typing import NamedTuple


class T(Enum):
    """Item types (Go's itemType)."""

    ERROR = auto()
    BOOL = auto()
    CHAR = auto()
    CHAR_CONSTANT = auto()
    COMPLEX = auto()
    ASSIGN = auto()
    DECLARE = auto()
    EOF = auto()
    FIELD = auto()
    IDENTIFIER = auto()
    LEFT_DELIM = auto()
    LEFT_PAREN = auto()
    NUMBER = auto()
    PIPE = auto()
    RAW_STRING = auto()
    RIGHT_DELIM = auto()
    RIGHT_PAREN = auto()
    SPACE = auto()
    STRING = auto()
    TEXT = auto()
    VARIABLE = auto()
    # keywords
    BLOCK = auto()
    BREAK = auto()
    CONTINUE = auto()
    DOT = auto()
    DEFINE = auto()
    ELSE = auto()
    END = auto()
    IF = auto()
    NIL = auto()
    RANGE = auto()
    TEMPLATE = auto()
    WITH = auto()


KEYWORDS: dict[str, T] = {
    ".": T.DOT,
    "block": T.BLOCK,
    "break": T.BREAK,
    "continue": T.CONTINUE,
    "define": T.DEFINE,
    "else": T.ELSE,
    "end": T.END,
    "if": T.IF,
    "range": T.RANGE,
    "nil": T.NIL,
    "template": T.TEMPLATE,
    "with": T.WITH,
}
_KEYWORD_TYPES = frozenset(KEYWORDS.values())

LEFT_DELIM = "{{"
RIGHT_DELIM = "}}"
LEFT_COMMENT = "/*"
RIGHT_COMMENT = "*/"
SPACE_CHARS = " \t\r\n"


class Item(NamedTuple):
    """One token. A named tuple: the lexer builds hundreds of thousands of them, and a
    tuple is built in a third of the time of a frozen dataclass."""

    typ: T
    pos: int
    val: str
    line: int

    def __str__(self) -> str:
        """Go's item.String(), used in "unexpected X in Y" messages."""
        if self.typ is T.EOF:
            return "EOF"
        if self.typ is T.ERROR:
            return self.val
        if self.typ in _KEYWORD_TYPES:
            return f"<{self.val}>"
        if len(self.val) > 10:
            return go_quote(self.val[:10]) + "..."
        return go_quote(self.val)


def go_quote(s: str) -> str:
    """strconv.Quote for the strings the lexer and error messages show."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[ch])
        elif is_go_print(ch):
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that is no UTF-8, kept by surrogateescape
            out.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\\ufffd")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


_SIMPLE_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}


def is_go_print(ch: str) -> bool:
    """unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space."""
    if ch == " ":
        return True
    return unicodedata.category(ch)[0] in "LMNPS"


def is_space(ch: str) -> bool:
    return ch in SPACE_CHARS and ch != ""


def is_alnum(ch: str) -> bool:
    """Go's isAlphaNumeric: '_', unicode.IsLetter or unicode.IsDigit."""
    if ch == "_":
        return True
    if ch == "":
        return False
    cat = unicodedata.category(ch)
    return cat[0] == "L" or cat == "Nd"


def _has_left_trim(s: str, i: int) -> bool:
    return len(s) >= i + 2 and s[i] == "-" and is_space(s[i + 1])


def _has_right_trim(s: str, i: int) -> bool:
    return len(s) >= i + 2 and is_space(s[i]) and s[i + 1] == "-"


StateFn = Callable[["Lexer"], "StateFn | None"]


class Lexer:
    """Scans the whole input into a list of items; an ERROR item ends the list."""

    def __init__(self, text: str) -> None:
        self.input = text
        self.n = len(text)
        self.pos = 0
        self.start = 0
        self.line = 1
        self.start_line = 1
        self.paren_depth = 0
        self.items: list[Item] = []

    def resume(self, pos: int, line: int) -> None:
        """Continue at ``pos`` on ``line`` with nothing pending (a fast path hands over)."""
        self.pos = self.start = pos
        self.line = self.start_line = line

    # -- primitives (Go's next/peek/backup, with "" as eof) ------------------------
    def next(self) -> str:
        pos = self.pos
        if pos >= self.n:
            self.pos = self.n + 1  # remember we hit eof, so backup is a no-op
            return ""
        ch = self.input[pos]
        self.pos = pos + 1
        if ch == "\n":
            self.line += 1
        return ch

    def peek(self) -> str:
        return self.input[self.pos] if self.pos < self.n else ""

    def backup(self) -> None:
        if self.pos > self.n:
            self.pos = self.n
            return
        if self.pos > 0:
            self.pos -= 1
            if self.input[self.pos] == "\n":
                self.line -= 1

    def emit(self, typ: T) -> None:
        end = self.pos if self.pos < self.n else self.n
        self.items.append(Item(typ, self.start, self.input[self.start : end], self.start_line))
        self.start = end
        self.start_line = self.line

    def ignore(self) -> None:
        end = self.pos if self.pos < self.n else self.n
        self.line += self.input.count("\n", self.start, end)
        self.start = end
        self.start_line = self.line

    def accept(self, valid: str) -> bool:
        ch = self.next()
        if ch != "" and ch in valid:
            return True
        self.backup()
        return False

    def accept_run(self, valid: str) -> None:
        while True:
            ch = self.next()
            if ch == "" or ch not in valid:
                break
        self.backup()

    def errorf(self, message: str) -> None:
        self.items.append(Item(T.ERROR, self.start, message, self.start_line))

    def at_right_delim(self) -> tuple[bool, bool]:
        s, p = self.input, self.pos
        if s.startswith(RIGHT_DELIM, p):  # then s[p] is no space: no trim marker here
            return True, False
        if _has_right_trim(s, p) and s.startswith(RIGHT_DELIM, p + 2):
            return True, True
        return False, False

    def at_terminator(self) -> bool:
        ch = self.peek()
        if ch == "" or is_space(ch) or ch in ".,|:)(":
            return True
        return self.input.startswith(RIGHT_DELIM, self.pos)

    # -- driver ----------------------------------------------------------------------
    def run(self) -> list[Item]:
        state: StateFn | None = lex_text
        while state is not None:
            state = state(self)
        return self.items


def lex(text: str) -> list[Item]:
    """Scan ``text`` into items, ending with EOF or an ERROR item."""
    return Lexer(text).run()


def _skip_space(s: str, pos: int) -> int:
    """Index of the first non-space character at or after ``pos`` (Go's leftTrimLength)."""
    return _SPACES.match(s, pos).end()  # type: ignore[union-attr]


_SPACES = re.compile(r"[ \t\r\n]*")


def _line_count(s: str, start: int, end: int) -> int:
    return s.count("\n", start, end)


#: One action token, for the common case: a right delimiter, spaces (not before a trim
#: marker), an identifier or keyword, a field or dot, a variable (each followed by a
#: terminator), a quoted string, a decimal that ends there, "|", "(" or ")". The group
#: number says which; no match means the Go-shaped states take over.
_TERM = r"(?=[ \t\r\n.,|:)(]|\}\}|\Z)"
_ACTION_TOKEN = re.compile(
    r"(\}\})"
    r"|([ \t\r\n]+)(?!-\}\})"
    r"|([A-Za-z_][A-Za-z0-9_]*)"
    + _TERM
    + r"|(\.(?=[^0-9])[A-Za-z0-9_]*)"
    + _TERM
    + r"|(\$[A-Za-z0-9_]*)"
    + _TERM
    + r"""|("(?:[^"\\\n]|\\[^\n])*")"""
    r"|([0-9]+)(?=[ \t\r\n|)(}]|\Z)"
    r"|(\|)|(\()|(\))"
    r"|[ \t\r\n](-)\}\}"
)
_T_TEXT, _T_LEFT, _T_RIGHT, _T_SPACE = T.TEXT, T.LEFT_DELIM, T.RIGHT_DELIM, T.SPACE
_T_IDENT, _T_BOOL, _T_FIELD, _T_DOT = T.IDENTIFIER, T.BOOL, T.FIELD, T.DOT
_T_VAR, _T_STRING, _T_NUMBER = T.VARIABLE, T.STRING, T.NUMBER
_T_PIPE, _T_LPAREN, _T_RPAREN = T.PIPE, T.LEFT_PAREN, T.RIGHT_PAREN
_WORDS = {word: typ for word, typ in KEYWORDS.items() if word != "."} | {
    "true": T.BOOL,
    "false": T.BOOL,
}
#: The item type of :data:`_ACTION_TOKEN`'s groups 5 to 8, whose text is the item's.
_GROUP_TYPES = (*[_T_TEXT] * 5, _T_VAR, _T_STRING, _T_NUMBER, _T_PIPE)


def lex_text(lx: Lexer) -> StateFn | None:
    """Scan text and plain actions in one loop, without a state per token.

    Each item is built directly; an action with a trim marker, a comment, or a token
    the compiled pattern does not take is handed, at that point, to the Go-shaped
    states, which give exactly Go's items and errors. Between items ``start == pos``
    and ``start_line == line``, so handing over only sets those.
    """
    s, items = lx.input, lx.items
    append, find, count, match = items.append, s.find, s.count, _ACTION_TOKEN.match
    words, group_types = _WORDS, _GROUP_TYPES
    pos, line = lx.pos, lx.line
    while True:
        x = find(LEFT_DELIM, pos)
        if x < 0:
            return _lex_last_text(lx, pos, line)
        after = s[x + 2 : x + 4]
        if after[:1] == "-" and len(after) == 2 and after[1] in SPACE_CHARS:
            if s.startswith(LEFT_COMMENT, x + 4):
                break
            pos, line = _left_trimmed_delim(s, pos, x, line, append)
        elif after[:1] == "-" or after.startswith("/"):
            break
        else:
            if x > pos:
                append(Item(_T_TEXT, pos, s[pos:x], line))
                line += count("\n", pos, x)
            append(Item(_T_LEFT, x, LEFT_DELIM, line))
            pos = x + 2
        depth = 0
        closed = False
        while True:
            m = match(s, pos)
            if m is None:
                break
            k: int = m.lastindex  # type: ignore[assignment]  # every alternative is a group
            e = m.end()
            if k == 1:
                if not depth:
                    append(Item(_T_RIGHT, pos, RIGHT_DELIM, line))
                    pos = e
                    closed = True
                break
            if k == 2:
                append(Item(_T_SPACE, pos, s[pos:e], line))
                line += count("\n", pos, e)
            elif k == 3:
                word = s[pos:e]
                append(Item(words.get(word, _T_IDENT), pos, word, line))
            elif k == 4:
                append(Item(_T_FIELD if e > pos + 1 else _T_DOT, pos, s[pos:e], line))
            elif k < 9:  # a variable, string, decimal or "|"
                append(Item(group_types[k], pos, s[pos:e], line))
            elif k == 9:
                append(Item(_T_LPAREN, pos, "(", line))
                depth += 1
            elif k == 11:
                if depth:
                    break
                if s[pos] == "\n":
                    line += 1
                append(Item(_T_RIGHT, pos + 2, RIGHT_DELIM, line))
                pos = _skip_space(s, e)
                line += count("\n", e, pos)
                closed = True
                break
            else:
                if not depth:
                    break
                append(Item(_T_RPAREN, pos, ")", line))
                depth -= 1
            pos = e
        if closed:
            continue
        lx.resume(pos, line)
        lx.paren_depth = depth
        return lex_inside_action
    lx.resume(pos, line)
    return _lex_text_slow(lx)


def _lex_last_text(lx: Lexer, pos: int, line: int) -> StateFn | None:
    """The text after the last action, then EOF (Go's lexText at the end)."""
    s, end = lx.input, lx.n
    if end > pos:
        lx.items.append(Item(_T_TEXT, pos, s[pos:], line))
        line += s.count("\n", pos)
    lx.items.append(Item(T.EOF, end, "", line))
    lx.resume(end, line)
    return None


def _left_trimmed_delim(
    s: str, pos: int, x: int, line: int, append: Callable[[Item], None]
) -> tuple[int, int]:
    """``{{- `` at ``x``: the text since ``pos`` less its trailing spaces, the left
    delimiter; the position and line after the marker's space."""
    if x > pos:
        text = s[pos:x].rstrip(SPACE_CHARS)
        if text:
            append(Item(_T_TEXT, pos, text, line))
        line += s.count("\n", pos, x)
    append(Item(_T_LEFT, x, LEFT_DELIM, line))
    return x + 4, line + (s[x + 3] == "\n")


def _lex_text_slow(lx: Lexer) -> StateFn | None:
    """Go's lexText, for the text before a trim marker or comment, and the last text."""
    s = lx.input
    x = s.find(LEFT_DELIM, lx.pos)
    if x >= 0:
        lx.pos = x
        trim = 0
        if _has_left_trim(s, x + len(LEFT_DELIM)):
            start = x
            while start > lx.start and s[start - 1] in SPACE_CHARS:
                start -= 1
            trim = x - start
        lx.pos -= trim
        if lx.pos > lx.start:
            lx.line += _line_count(s, lx.start, lx.pos)
            lx.emit(T.TEXT)
        lx.pos += trim
        lx.ignore()
        return lex_left_delim
    lx.pos = len(s)
    if lx.pos > lx.start:
        lx.line += _line_count(s, lx.start, lx.pos)
        lx.emit(T.TEXT)
    lx.emit(T.EOF)
    return None


def lex_left_delim(lx: Lexer) -> StateFn | None:
    s = lx.input
    lx.pos += len(LEFT_DELIM)
    trim = _has_left_trim(s, lx.pos)
    after = 2 if trim else 0
    if s.startswith(LEFT_COMMENT, lx.pos + after):
        lx.pos += after
        lx.ignore()
        return lex_comment
    lx.emit(T.LEFT_DELIM)
    lx.pos += after
    lx.ignore()
    lx.paren_depth = 0
    return lex_inside_action


def lex_comment(lx: Lexer) -> StateFn | None:
    s = lx.input
    lx.pos += len(LEFT_COMMENT)
    i = s.find(RIGHT_COMMENT, lx.pos)
    if i < 0:
        lx.errorf("unclosed comment")
        return None
    lx.pos = i + len(RIGHT_COMMENT)
    delim, trim = lx.at_right_delim()
    if not delim:
        lx.errorf("comment ends before closing delimiter")
        return None
    if trim:
        lx.pos += 2
    lx.pos += len(RIGHT_DELIM)
    if trim:
        lx.pos = _skip_space(s, lx.pos)
    lx.ignore()
    return lex_text


def lex_right_delim(lx: Lexer) -> StateFn | None:
    s = lx.input
    trim = _has_right_trim(s, lx.pos)
    if trim:
        lx.pos += 2
        lx.ignore()
    lx.pos += len(RIGHT_DELIM)
    lx.emit(T.RIGHT_DELIM)
    if trim:
        lx.pos = _skip_space(s, lx.pos)
        lx.ignore()
    return lex_text


#: Tokens whose plain form a compiled pattern scans at once; anything else (and any
#: token that is followed by a non-terminator) goes through the Go-shaped states below.
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FIELD = re.compile(r"\.[A-Za-z0-9_]*")
_VARIABLE = re.compile(r"\$[A-Za-z0-9_]*")
_STRING = re.compile(r'"(?:[^"\\\n]|\\[^\n])*"')
_CHAR_CONSTANT = re.compile(r"'(?:[^'\\\n]|\\[^\n])*'")
_DECIMAL = re.compile(r"[0-9]+")
#: What may follow a plain decimal number so that it is certainly a whole NUMBER.
_AFTER_DECIMAL = frozenset(" \t\r\n|)(}")
#: Characters that end a word (Go's atTerminator, less the right delimiter and EOF).
_TERMINATORS = frozenset(" \t\r\n.,|:)(")


def _ends_word(s: str, e: int, n: int) -> bool:
    """Go's atTerminator at ``e``."""
    return e >= n or s[e] in _TERMINATORS or s.startswith(RIGHT_DELIM, e)


def lex_inside_action(lx: Lexer) -> StateFn | None:
    """Scan one action body; common tokens are matched whole, in one loop.

    On entry and after every token ``lx.start == lx.pos`` and ``lx.start_line ==
    lx.line`` (each token is emitted), so a fast path appends its item directly.
    """
    s, n, items = lx.input, lx.n, lx.items
    while True:
        p = lx.pos
        if p >= n:
            lx.pos = n + 1
            lx.errorf("unclosed action")
            return None
        ch = s[p]
        if ch == "}" and s.startswith(RIGHT_DELIM, p):
            return _close_action(lx)
        if ch in SPACE_CHARS:
            if _has_right_trim(s, p) and s.startswith(RIGHT_DELIM, p + 2):
                return _close_action(lx)
            state = lex_space(lx)
        elif ch == ".":
            if p + 1 < n and not ("0" <= s[p + 1] <= "9"):
                e = _FIELD.match(s, p).end()  # type: ignore[union-attr]
                if _ends_word(s, e, n):
                    items.append(Item(T.FIELD if e > p + 1 else T.DOT, p, s[p:e], lx.line))
                    lx.pos = lx.start = e
                    continue
                lx.pos = p + 1
                state = lex_field(lx)
            else:
                state = lex_number(lx)
        elif ch == "$":
            e = _VARIABLE.match(s, p).end()  # type: ignore[union-attr]
            if _ends_word(s, e, n):
                items.append(Item(T.VARIABLE, p, s[p:e], lx.line))
                lx.pos = lx.start = e
                continue
            lx.pos = p + 1
            state = lex_variable(lx)
        elif ch == '"' or ch == "'":
            state = _lex_quoted(lx, s, p, ch)
        elif ch == "|":
            items.append(Item(T.PIPE, p, ch, lx.line))
            lx.pos = lx.start = p + 1
            continue
        elif "0" <= ch <= "9":
            e = _DECIMAL.match(s, p).end()  # type: ignore[union-attr]
            if e >= n or s[e] in _AFTER_DECIMAL:
                items.append(Item(T.NUMBER, p, s[p:e], lx.line))
                lx.pos = lx.start = e
                continue
            state = lex_number(lx)
        elif ch == "(":
            items.append(Item(T.LEFT_PAREN, p, ch, lx.line))
            lx.pos = lx.start = p + 1
            lx.paren_depth += 1
            continue
        elif ch == ")":
            lx.paren_depth -= 1
            if lx.paren_depth < 0:  # Go 1.24: the error, no item before it
                lx.errorf("unexpected right paren")
                return None
            items.append(Item(T.RIGHT_PAREN, p, ch, lx.line))
            lx.pos = lx.start = p + 1
            continue
        else:
            m = _IDENT.match(s, p)
            if m is not None:
                e = m.end()
                if _ends_word(s, e, n):
                    word = s[p:e]
                    items.append(Item(_WORDS.get(word, T.IDENTIFIER), p, word, lx.line))
                    lx.pos = lx.start = e
                    continue
                state = lex_identifier(lx)
            else:
                state = _lex_other(lx)
        if state is not lex_inside_action:
            return state


def _close_action(lx: Lexer) -> StateFn | None:
    """At the right delimiter: the action ends unless a parenthesis is still open."""
    if lx.paren_depth == 0:
        return lex_right_delim
    lx.errorf("unclosed left paren")
    return None


def _lex_quoted(lx: Lexer, s: str, p: int, quote: str) -> StateFn | None:
    """A string or char constant at ``p``: matched whole, or scanned by Go's states
    (escapes it may reject, an unterminated quote)."""
    m = (_STRING if quote == '"' else _CHAR_CONSTANT).match(s, p)
    if m is None:
        lx.pos = p + 1
        return lex_quote(lx) if quote == '"' else lex_char(lx)
    e = m.end()
    lx.items.append(Item(T.STRING if quote == '"' else T.CHAR_CONSTANT, p, s[p:e], lx.line))
    lx.pos = lx.start = e
    return lex_inside_action


def _lex_other(lx: Lexer) -> StateFn | None:
    """The rest of Go's lexInsideAction switch: one rarer token, by Go's rules."""
    ch = lx.next()
    if ch == "=":
        lx.emit(T.ASSIGN)
    elif ch == ":":
        if lx.next() != "=":
            lx.errorf("expected :=")
            return None
        lx.emit(T.DECLARE)
    elif ch == "`":
        return lex_raw_quote
    elif ch in "+-":
        lx.backup()
        return lex_number
    elif is_alnum(ch):
        lx.backup()
        return lex_identifier
    elif ord(ch) < 0x80 and is_go_print(ch):
        lx.emit(T.CHAR)
    else:
        lx.errorf(f"unrecognized character in action: {_rune_name(ch)}")
        return None
    return lex_inside_action


def _rune_name(ch: str) -> str:
    """Go's %#U: U+0041 'A'."""
    if ch == "":
        return "U+FFFFFFFFFFFFFFFF"
    code = ord(ch)
    text = f"U+{code:04X}"
    if is_go_print(ch):
        text += f" '{ch}'"
    return text


def lex_space(lx: Lexer) -> StateFn | None:
    s = lx.input
    end = _skip_space(s, lx.pos)
    num = end - lx.pos
    lx.line += s.count("\n", lx.pos, end)
    lx.pos = end
    if _has_right_trim(s, lx.pos - 1) and s.startswith(RIGHT_DELIM, lx.pos - 1 + 2):
        lx.backup()
        if num == 1:
            return lex_right_delim
    lx.emit(T.SPACE)
    return lex_inside_action


#: ASCII letters, digits and "_": skipped at once before the general (Unicode) loop.
_ASCII_ALNUM = re.compile(r"[A-Za-z0-9_]*")


def lex_identifier(lx: Lexer) -> StateFn | None:
    lx.pos = _ASCII_ALNUM.match(lx.input, lx.pos).end()  # type: ignore[union-attr]
    while True:
        ch = lx.next()
        if is_alnum(ch):
            continue
        lx.backup()
        word = lx.input[lx.start : lx.pos]
        if not lx.at_terminator():
            lx.errorf(f"bad character {_rune_name(ch)}")
            return None
        if word in KEYWORDS and word != ".":
            lx.emit(KEYWORDS[word])
        elif word[0] == ".":
            lx.emit(T.FIELD)
        elif word in ("true", "false"):
            lx.emit(T.BOOL)
        else:
            lx.emit(T.IDENTIFIER)
        return lex_inside_action


def lex_field(lx: Lexer) -> StateFn | None:
    return _lex_field_or_variable(lx, T.FIELD)


def lex_variable(lx: Lexer) -> StateFn | None:
    if lx.at_terminator():
        lx.emit(T.VARIABLE)
        return lex_inside_action
    return _lex_field_or_variable(lx, T.VARIABLE)


def _lex_field_or_variable(lx: Lexer, typ: T) -> StateFn | None:
    if lx.at_terminator():
        lx.emit(T.VARIABLE if typ is T.VARIABLE else T.DOT)
        return lex_inside_action
    lx.pos = _ASCII_ALNUM.match(lx.input, lx.pos).end()  # type: ignore[union-attr]
    while True:
        ch = lx.next()
        if not is_alnum(ch):
            lx.backup()
            break
    if not lx.at_terminator():
        lx.errorf(f"bad character {_rune_name(ch)}")
        return None
    lx.emit(typ)
    return lex_inside_action


def _lex_escaped(lx: Lexer, close: str, token: T, what: str) -> StateFn | None:
    """Scan a backslash-escaped literal up to ``close``; a newline or EOF leaves it open."""
    while True:
        ch = lx.next()
        if ch == "\\":
            if lx.next() not in ("", "\n"):
                continue
            ch = ""
        if ch in ("", "\n"):
            lx.errorf(f"unterminated {what}")
            return None
        if ch == close:
            break
    lx.emit(token)
    return lex_inside_action


def lex_char(lx: Lexer) -> StateFn | None:
    return _lex_escaped(lx, "'", T.CHAR_CONSTANT, "character constant")


def lex_number(lx: Lexer) -> StateFn | None:
    if not _scan_number(lx):
        lx.errorf(f"bad number syntax: {go_quote(lx.input[lx.start : lx.pos])}")
        return None
    if lx.peek() in ("+", "-") and lx.peek() != "":
        if not _scan_number(lx) or lx.input[lx.pos - 1] != "i":
            lx.errorf(f"bad number syntax: {go_quote(lx.input[lx.start : lx.pos])}")
            return None
        lx.emit(T.COMPLEX)
    else:
        lx.emit(T.NUMBER)
    return lex_inside_action


def _scan_number(lx: Lexer) -> bool:
    lx.accept("+-")
    digits = "0123456789_"
    if lx.accept("0"):
        if lx.accept("xX"):
            digits = "0123456789abcdefABCDEF_"
        elif lx.accept("oO"):
            digits = "01234567_"
        elif lx.accept("bB"):
            digits = "01_"
    lx.accept_run(digits)
    if lx.accept("."):
        lx.accept_run(digits)
    if len(digits) == 11 and lx.accept("eE"):
        lx.accept("+-")
        lx.accept_run("0123456789_")
    if len(digits) == 23 and lx.accept("pP"):
        lx.accept("+-")
        lx.accept_run("0123456789_")
    lx.accept("i")
    if is_alnum(lx.peek()):
        lx.next()
        return False
    return True


def lex_quote(lx: Lexer) -> StateFn | None:
    return _lex_escaped(lx, '"', T.STRING, "quoted string")


def lex_raw_quote(lx: Lexer) -> StateFn | None:
    while True:
        ch = lx.next()
        if ch == "":
            lx.errorf("unterminated raw quoted string")
            return None
        if ch == "`":
            break
    lx.emit(T.RAW_STRING)
    return lex_inside_action
