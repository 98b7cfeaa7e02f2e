"""The page runner (tests/docs/pages.py) fails a page whose commands do not give what it
states, so a green page test means the page is right."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.pages import CommandStep, FileStep, follow, steps

PAGE = """Write a file, then read it:

```python
# notes/hello.py
print("hello")
```

```sh
python notes/hello.py
python -c "raise SystemExit(3)"  # exit 3
```

```sh
python -m pip install nothing-at-all
python notes/hello.py  # 1 passed
```
"""

OUTPUT = """
```sh
python notes/hello.py
```

```text
hello
```
"""


def test_a_page_is_read_as_files_and_commands_in_order() -> None:
    assert steps(PAGE + OUTPUT) == [
        FileStep("notes/hello.py", '# notes/hello.py\nprint("hello")\n'),
        CommandStep("python notes/hello.py"),
        CommandStep('python -c "raise SystemExit(3)"', exit_code=3),
        CommandStep("python notes/hello.py", counts=("1 passed",)),
        CommandStep("python notes/hello.py", output=("hello",)),
    ]


def test_an_excerpt_after_prose_is_no_output() -> None:
    excerpt = "```sh\ntrue\n```\n\nThe file reads:\n\n```text\nanything\n```\n"
    assert steps(excerpt) == [CommandStep("true")]


def test_a_page_that_states_its_outcomes_passes(tmp_path: Path) -> None:
    right = PAGE.replace("  # 1 passed", "") + OUTPUT
    done = follow(right, tmp_path)
    assert [result.returncode for result in done] == [0, 3, 0, 0]


@pytest.mark.parametrize(
    ("wrong", "said"),
    [
        (PAGE.replace("  # exit 3", ""), "gave exit 3"),
        (PAGE, "no '1 passed'"),
        (PAGE.replace("  # 1 passed", "") + OUTPUT.replace("\nhello\n", "\ngoodbye\n"), "goodbye"),
    ],
    ids=["unstated exit code", "missing count", "output not printed"],
)
def test_a_page_that_misstates_an_outcome_fails(tmp_path: Path, wrong: str, said: str) -> None:
    with pytest.raises(AssertionError, match=said):
        follow(wrong, tmp_path)
