"""No function of the package is too branchy to read: radon's cyclomatic complexity is at most 30 everywhere
(issue 42, "split what is too long"). Closures, methods and compiled kernels count as functions of their own."""
from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class

PACKAGE = Path(__file__).resolve().parents[1] / "embgeo"
#: the most decision points one function may hold (radon grades above 30 "E" and "F")
MAX_COMPLEXITY = 30


def _functions(blocks, owner=""):
    """Every function of radon's ``blocks``, methods and closures included, as (qualified name, complexity)."""
    for b in blocks:
        if isinstance(b, Class):
            yield from _functions(b.methods + b.inner_classes, f"{owner}{b.name}.")
            continue
        yield f"{owner}{b.name}", b.lineno, b.complexity
        yield from _functions(b.closures, f"{owner}{b.name}.")


def too_complex(source: str, limit: int = MAX_COMPLEXITY) -> list[str]:
    """``name (line N): complexity C`` for every function of ``source`` above ``limit``."""
    blocks = [b for b in cc_visit(source) if isinstance(b, Class) or not b.is_method]  # methods via their class
    return [f"{name} (line {line}): complexity {c}" for name, line, c in _functions(blocks) if c > limit]


def test_the_check_sees_functions_methods_and_closures():
    branches = "".join(f"    if x == {i}:\n        x += 1\n" for i in range(31))
    source = (f"def f(x):\n{branches}    return x\n\n"
              f"class A:\n    def m(self, x):\n{branches.replace('    ', '        ')}        return x\n\n"
              f"def outer():\n    def inner(x):\n{branches.replace('    ', '        ')}        return x\n"
              f"    return inner\n")
    assert sorted(too_complex(source)) == ["A.m (line 67): complexity 32", "f (line 1): complexity 32",
                                           "outer.inner (line 133): complexity 32"]
    assert too_complex(source, limit=32) == []


def test_no_function_exceeds_the_complexity_limit():
    offenders = [f"{path.relative_to(PACKAGE.parent)}: {item}" for path in sorted(PACKAGE.rglob("*.py"))
                 for item in too_complex(path.read_text(encoding="utf-8"))]
    assert not offenders, (f"cyclomatic complexity above {MAX_COMPLEXITY} (split into named private helpers):\n"
                           + "\n".join(offenders))
