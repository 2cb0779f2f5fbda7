"""Parse the suite's textual rules and literals into a small AST.

The conformance suite writes rules the Souffle/Crepe way:

* ``head :- item, item, ... .`` for core Datalog programs (a trailing ``.`` is optional);
* for defeasible theories the head and every body item are separate strings.

Terms: ``_`` is an anonymous variable (fresh at every occurrence), ``"text"`` a string
constant, ``-?[0-9]+`` an integer constant, and any other identifier a *variable*
(Souffle style: ``flight("QA", x, y)`` has variables ``x`` and ``y``).  Body items:
an atom ``p(t, ...)`` or ``p`` (zero arity), ``~p(...)`` (explicit negation),
``not p(...)`` / ``!p(...)`` / ``\\+ p(...)`` (negation as failure), and a comparison
``a OP b`` (optionally parenthesised) with ``OP`` one of ``= == != < <= > >=``.
Anything with arithmetic (``+ - * / %`` between terms) raises :class:`ArithmeticUnsupported`,
because the IR has no arithmetic terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union


class ParseError(ValueError):
    """The rule text is not in the dialect the suite uses."""


class ArithmeticUnsupported(ParseError):
    """The rule needs arithmetic, which law.core.ir cannot express."""


@dataclass(frozen=True)
class Var:
    name: str  # source name; anonymous variables get a unique "_#n" name


@dataclass(frozen=True)
class Const:
    value: Union[str, int]


Term = Union[Var, Const]


@dataclass(frozen=True)
class Atom:
    predicate: str
    negative: bool  # explicit negation ~p
    args: tuple[Term, ...]


@dataclass(frozen=True)
class Naf:
    """Negation as failure: ``not atom``."""

    atom: Atom


@dataclass(frozen=True)
class Comparison:
    left: Term
    op: str  # eq ne lt le gt ge
    right: Term


Item = Union[Atom, Naf, Comparison]


@dataclass(frozen=True)
class ParsedRule:
    head: Atom
    body: tuple[Item, ...]
    text: str


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT = re.compile(r"-?[0-9]+\Z")
_CMP_OPS = [("!=", "ne"), ("<=", "le"), (">=", "ge"), ("==", "eq"), ("<", "lt"), (">", "gt"), ("=", "eq")]


class _Anon:
    """Numbering of anonymous variables, unique within one rule."""

    def __init__(self) -> None:
        self.n = 0

    def fresh(self) -> Var:
        self.n += 1
        return Var(f"_#{self.n}")


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside parentheses and string literals."""

    parts: list[str] = []
    depth = 0
    in_str = False
    cur: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if in_str:
            cur.append(ch)
            if ch == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            cur.append(ch)
        elif ch == "(":
            depth += 1
            cur.append(ch)
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ParseError(f"unbalanced ')' in {text!r}")
            cur.append(ch)
        elif ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    if in_str or depth != 0:
        raise ParseError(f"unterminated string or parenthesis in {text!r}")
    tail = "".join(cur).strip()
    if tail or parts:
        parts.append(tail)
    return parts


def parse_term(text: str, anon: _Anon) -> Term:
    t = text.strip()
    if t == "_":
        return anon.fresh()
    if len(t) >= 2 and t[0] == '"' and t[-1] == '"':
        body = t[1:-1]
        if '"' in body.replace('\\"', ""):
            raise ParseError(f"bad string literal {t!r}")
        return Const(body.replace('\\"', '"').replace("\\\\", "\\"))
    if _INT.match(t):
        return Const(int(t))
    if _IDENT.match(t):
        return Var(t)
    if re.search(r"[-+*/%^]", t):
        raise ArithmeticUnsupported(f"arithmetic term {t!r} is not expressible in law.core.ir")
    raise ParseError(f"cannot read term {t!r}")


def parse_atom(text: str, anon: _Anon) -> Atom:
    t = text.strip()
    negative = False
    if t.startswith("~"):
        negative = True
        t = t[1:].strip()
    m = re.match(r"([A-Za-z_][A-Za-z0-9_]*(?::[A-Za-z_][A-Za-z0-9_]*)*)\s*(\((.*)\))?\s*\Z", t, re.S)
    if not m:
        if re.search(r"[-+*/%]", t):
            raise ArithmeticUnsupported(f"arithmetic in {text!r} is not expressible in law.core.ir")
        raise ParseError(f"cannot read atom {text!r}")
    name = m.group(1)
    inner = m.group(3)
    args: tuple[Term, ...] = ()
    if inner is not None and inner.strip():
        args = tuple(parse_term(a, anon) for a in split_top_level(inner))
    return Atom(name, negative, args)


def _strip_outer_parens(t: str) -> str:
    t = t.strip()
    while t.startswith("(") and t.endswith(")"):
        depth = 0
        closes_at_end = True
        for i, ch in enumerate(t):
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0 and i != len(t) - 1:
                    closes_at_end = False
                    break
        if not closes_at_end:
            break
        t = t[1:-1].strip()
    return t


def parse_item(text: str, anon: _Anon) -> Item:
    t = text.strip()
    m = re.match(r"(not\s+|!(?!=)|\\\+\s*)(.*)\Z", t, re.S)
    if m:
        inner = parse_atom(m.group(2), anon)
        return Naf(inner)
    core = _strip_outer_parens(t)
    # comparison?  (only outside of string literals and parentheses)
    if not re.match(r"~?[A-Za-z_][A-Za-z0-9_:]*\s*(\(.*\))?\s*\Z", core, re.S):
        masked = re.sub(r'"(?:[^"\\]|\\.)*"', lambda mm: "x" * len(mm.group(0)), core)
        for sym, op in _CMP_OPS:
            idx = masked.find(sym)
            if idx >= 0:
                left, right = core[:idx], core[idx + len(sym):]
                return Comparison(parse_term(left, anon), op, parse_term(right, anon))
        if re.search(r"[-+*/%]", masked):
            raise ArithmeticUnsupported(f"arithmetic item {t!r} is not expressible in law.core.ir")
    return parse_atom(core, anon)


def parse_rule_text(text: str) -> ParsedRule:
    """Parse a core-Datalog rule string ``head :- body.``."""

    t = text.strip()
    if t.endswith("."):
        t = t[:-1].strip()
    head_text, sep, body_text = t.partition(":-")
    anon = _Anon()
    head = parse_atom(head_text, anon)
    body: tuple[Item, ...] = ()
    if sep and body_text.strip():
        body = tuple(parse_item(i, anon) for i in split_top_level(body_text))
    return ParsedRule(head, body, text.strip())


def parse_theory_rule(head: str, body: list[str]) -> ParsedRule:
    anon = _Anon()
    h = parse_atom(head, anon)
    items = tuple(parse_item(b, anon) for b in body)
    text = f"{head} :- {', '.join(body)}" if body else head
    return ParsedRule(h, items, text)
