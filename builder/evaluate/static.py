"""Static checks on a predicted function, before anything compiles it.

A prediction must be exactly one function definition with the reference's signature (same symbol, linkage,
template head and parameters), so it can only change the function body. Anything that could game the
comparison from outside that body is rejected: any ``#`` outside a literal (``#include``, ``#define``...),
digraphs and trigraphs (``%:define`` is a directive too), text that the compiler's preprocessor would change
(``preprocess``), inline assembly, or more ``extern "C"`` than the reference has. These checks are a second
line: what the body does at run time is confined by the sandbox the child runs in (``isolation``).
"""

from __future__ import annotations

import ast
import re

from builder.evaluate import preprocess

_COMMENT_OR_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\b")
_EXTERN_C = re.compile(r'\bextern\s*"C"')
_DIRECTIVE = re.compile(r"#\s*(\w*)")  # a directive, or a # or ## operator: none belongs in a body


def normalize_whitespace(code: str) -> str:
    """The text with every run of whitespace one space, and none at either end (the exact-match key)."""
    return " ".join(code.split())


def strip_comments(code: str) -> str:
    """Comments become a space; string and character literals stay."""
    return _COMMENT_OR_LITERAL.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else " ", code)


def _blank_literals(code: str) -> str:
    """Comments become a space and literals empty quotes, so braces and words inside them do not count."""
    return _COMMENT_OR_LITERAL.sub(lambda m: m.group(0)[0] * 2 if m.group(0)[0] in "\"'" else " ", code)


def signature(code: str) -> str:
    """Everything before the body's opening brace, comments removed and whitespace normalized."""
    text = strip_comments(code)
    return normalize_whitespace(text[: text.find("{")] if "{" in text else text)


def _one_definition(bare: str) -> bool:
    """True if the text is a head, one brace-balanced body, and nothing after it."""
    start = bare.find("{")
    if start < 0 or ";" in bare[:start]:
        return False
    depth = 0
    for n in range(start, len(bare)):
        depth += {"{": 1, "}": -1}.get(bare[n], 0)
        if depth < 0:
            return False
        if depth == 0:
            return not bare[n + 1 :].strip()
    return False


def check(predicted: str, reference: str) -> str:
    """The reason a prediction is rejected (e.g. ``static: #include``), or "" when it passes."""
    if not predicted.strip():
        return "static: empty"
    bare = _blank_literals(predicted)
    directive = _DIRECTIVE.search(bare)
    if directive:
        return "static: #include" if directive.group(1) == "include" else "static: preprocessor directive"
    spelled = preprocess.spelling(bare, predicted)
    if spelled:
        return f"static: {spelled}"
    if _ASM.search(bare):
        return "static: inline asm"
    if len(_EXTERN_C.findall(strip_comments(predicted))) > len(_EXTERN_C.findall(strip_comments(reference))):
        return 'static: extra extern "C"'
    if not _one_definition(bare):
        return "static: not exactly one function definition"
    if signature(predicted) != signature(reference):
        return "static: signature differs from the reference"
    return _preprocessor_view(predicted)


def _preprocessor_view(predicted: str) -> str:
    """ "" if the preprocessor leaves the text as it is (whitespace and comments aside), else the reason."""
    try:
        after = preprocess.preprocessed(predicted)
    except ValueError:
        return "static: rejected by the preprocessor"
    if normalize_whitespace(after) != normalize_whitespace(strip_comments(predicted)):
        return "static: changed by the preprocessor"
    return ""


def check_python(predicted: str, kernel_name: str, arg_names: list[str]) -> str:
    """The reason a predicted Warp Python module is rejected before Warp loads it, or "": it must parse, and
    define a ``@wp.kernel`` of the row's name whose parameters have the row's names (the types are checked once
    Warp has loaded it). What the module does when it runs is confined by the sandbox, as an IR prediction is."""
    if not predicted.strip():
        return "static: empty"
    try:
        tree = ast.parse(predicted)
    except (SyntaxError, ValueError):  # ValueError: a NUL byte in the source
        return "static: not valid Python"
    kernels = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and node.name == kernel_name
        and any("kernel" in ast.unparse(d) for d in node.decorator_list)
    ]
    if not kernels:
        return "static: no @wp.kernel of the row's kernel name"
    params = [a.arg for a in kernels[-1].args.posonlyargs + kernels[-1].args.args]
    if params != list(arg_names):
        return "static: argument names differ from the reference"
    return ""
