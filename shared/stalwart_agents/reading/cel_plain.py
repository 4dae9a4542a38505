"""The plainest CEL expressions read without lark: the tree cel-python's parser makes of them, node for node.

A rule such as ``args.amount > 500`` or ``"finance" in who.groups`` is all most agent files hold, and reading it with
cel-python's Lark parser costs a cold start lark's import, the saved parser's load and its lexer's build (about 30 ms
on Lambda's Python).  Here an expression made only of names, fields, plain integers, plain strings, ``true``,
``false``, ``null``, lists, parentheses, comparisons, ``in``, ``&&``, ``||`` and ``!`` is read by a few lines of
Python into the same tree; anything else (a sign, a float, an escape, a call, an index, a comment, a keyword, an
error) returns None, and cel-python's parser reads it, errors included.  tests/test_cel_plain.py holds the two trees
equal over generated expressions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

TOKEN = re.compile(
    r"""(?P<IDENT>[_a-zA-Z][_a-zA-Z0-9]*)|(?P<INT_LIT>[0-9]+)|(?P<STRING_LIT>"[^"\\\n\r]+"|'[^'\\\n\r]+')"""
    r"""|(?P<op>&&|\|\||==|!=|<=|>=|[<>!()\[\],.])"""
)
SPACE = re.compile(r"[\t\n\f\r ]*")
"""cel-python's WHITESPACE, which it ignores."""
FOLLOWS_A_WORD = re.compile(r"[_a-zA-Z0-9.\"']")
"""What may not touch a name, number or string: ``1.5``, ``1u``, ``r"raw"``, ``"a""b"`` are cel-python's to read."""
KEYWORDS = frozenset(
    {"true", "false", "null", "in"}
    | {"as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package"}
    | {"namespace", "return", "var", "void", "while"}
)
RELATIONS = {"<": "relation_lt", "<=": "relation_le", ">": "relation_gt", ">=": "relation_ge"}
RELATIONS |= {"==": "relation_eq", "!=": "relation_ne", "in": "relation_in"}
LITERALS = {"true": "BOOL_LIT", "false": "BOOL_LIT", "null": "NULL_LIT"}


class Token(str):
    """A terminal as lark gives it: its text, and its ``type``."""

    type: str

    def __new__(cls, type_: str, value: str) -> Token:
        token = super().__new__(cls, value)
        token.type = type_
        return token


class Tree:
    """A rule's node as lark gives it: ``data`` and ``children``, walked as lark walks them."""

    def __init__(self, data: str, children: list[Tree | Token]) -> None:
        self.data, self.children = data, children

    def iter_subtrees(self) -> Iterator[Tree]:
        """Every node once, as lark's Tree.iter_subtrees gives them."""
        queue, subtrees = [self], {}
        for subtree in queue:
            subtrees[id(subtree)] = subtree
            queue += [c for c in reversed(subtree.children) if isinstance(c, Tree) and id(c) not in subtrees]
        return reversed(list(subtrees.values()))

    def scan_values(self, keep: Callable[[Token], bool]) -> Iterator[Token]:
        """The tokens below this node, left to right, that ``keep`` keeps."""
        for child in self.children:
            if isinstance(child, Tree):
                yield from child.scan_values(keep)
            elif keep(child):
                yield child


class NotPlain(Exception):
    """Beyond what this reader reads: cel-python's parser must."""


def tree(expression: str) -> Tree | None:
    """The tree cel-python's parser makes of ``expression``, where it is plain; else None."""
    try:
        reading = _Reading(_tokens(expression))
        read = reading.expr()
        if reading.at is not None:
            raise NotPlain(reading.at)
    except (NotPlain, RecursionError):  # nested deeper than Python's stack: lark's parser is no recursive descent
        return None
    return read


def _tokens(expression: str) -> list[Token]:
    tokens: list[Token] = []
    at = _skip(expression, 0)
    while at < len(expression):
        found = TOKEN.match(expression, at)
        if found is None or found.lastgroup is None:
            raise NotPlain(at)
        kind, text, at = found.lastgroup, found.group(), found.end()
        if kind != "op" and FOLLOWS_A_WORD.match(expression, at) and not (kind == "IDENT" and expression[at] == "."):
            raise NotPlain(at)
        if text in KEYWORDS and kind == "IDENT":
            kind = LITERALS.get(text, "op" if text == "in" else "RESERVED")
        if kind == "RESERVED":
            raise NotPlain(at)
        tokens.append(Token(kind, text))
        at = _skip(expression, at)
    return tokens


def _skip(expression: str, at: int) -> int:
    space = SPACE.match(expression, at)
    return at if space is None else space.end()


class _Reading:
    """A recursive descent over cel-python's grammar (celpy/cel.lark), restricted to what this module reads."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens, self.next = tokens, 0

    @property
    def at(self) -> Token | None:
        return self.tokens[self.next] if self.next < len(self.tokens) else None

    def take(self, *wanted: str) -> Token | None:
        token = self.at
        if token is None or not any(token == text and token.type == "op" for text in wanted):
            return None
        self.next += 1
        return token

    def expect(self, text: str) -> None:
        if self.take(text) is None:
            raise NotPlain(text)

    def expr(self) -> Tree:
        return Tree("expr", [self.conditionalor()])

    def conditionalor(self) -> Tree:
        node = Tree("conditionalor", [self.conditionaland()])
        while self.take("||"):
            node = Tree("conditionalor", [node, self.conditionaland()])
        return node

    def conditionaland(self) -> Tree:
        node = Tree("conditionaland", [self.relation()])
        while self.take("&&"):
            node = Tree("conditionaland", [node, self.relation()])
        return node

    def relation(self) -> Tree:
        node = Tree("relation", [self.addition()])
        while (operator := self.take(*RELATIONS)) is not None:
            node = Tree("relation", [Tree(RELATIONS[operator], [node]), self.addition()])
        return node

    def addition(self) -> Tree:
        return Tree("addition", [Tree("multiplication", [self.unary()])])

    def unary(self) -> Tree:
        if self.take("!"):
            return Tree("unary", [Tree("unary_not", []), self.unary()])
        return Tree("unary", [self.member()])

    def member(self) -> Tree:
        node = Tree("member", [self.primary()])
        while self.take("."):
            field = self.at
            if field is None or field.type != "IDENT":
                raise NotPlain(".")
            self.next += 1
            if self.take("(") is not None:
                raise NotPlain("(")
            node = Tree("member", [Tree("member_dot", [node, field])])
        if self.at is not None and self.at.type == "op" and self.at in ("(", "["):
            raise NotPlain(self.at)
        return node

    def primary(self) -> Tree:
        token = self.at
        if token is None:
            raise NotPlain("end")
        self.next += 1
        if token.type == "IDENT":
            return Tree("primary", [Tree("ident", [token])])
        if token.type != "op":
            return Tree("primary", [Tree("literal", [token])])
        if token == "(":
            inner = self.expr()
            self.expect(")")
            return Tree("primary", [Tree("paren_expr", [inner])])
        if token == "[":
            return Tree("primary", [self.list_lit()])
        raise NotPlain(token)

    def list_lit(self) -> Tree:
        if self.take("]"):
            return Tree("list_lit", [])
        items: list[Tree | Token] = [self.expr()]
        while self.take(","):
            items.append(self.expr())
        self.expect("]")
        return Tree("list_lit", [Tree("exprlist", items)])
