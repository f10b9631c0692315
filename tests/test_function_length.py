"""No function of the library longer than 100 lines of code without a reason in its docstring.

Lines of code: lines that hold code, not blank lines, comments or the docstring. A function that
must stay longer (one cohesive algorithm that reads best in one place) says why in its docstring,
in a sentence starting "Long because".
"""

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "kernelxai"
LIMIT = 100


def _code_lines(source: str, node: ast.AST) -> int:
    doc = ast.get_docstring(node, clean=False)
    skip = set()
    body = getattr(node, "body", [])
    if doc is not None and body and isinstance(body[0], ast.Expr):
        skip = set(range(body[0].lineno, body[0].end_lineno + 1))
    lines = source.splitlines()[node.lineno - 1:node.end_lineno]
    code = set()
    tokens = tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline)
    for tok in tokens:
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                        tokenize.ENDMARKER):
            continue
        for row in range(tok.start[0], tok.end[0] + 1):
            code.add(row + node.lineno - 1)
    return len(code - skip)


def test_no_function_over_the_limit_without_a_reason():
    long = []
    for path in sorted(ROOT.rglob("*.py")):
        source = path.read_text()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = _code_lines(source, node)
                if n > LIMIT and "Long because" not in (ast.get_docstring(node) or ""):
                    long.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name} ({n} lines of code)")
    assert not long, "functions over 100 lines of code without a 'Long because' reason:\n" + "\n".join(long)
