"""The realism judge: kernels cut out as text, names and literals hidden, and a classifier whose AUC separates what
differs and not what is alike."""

from __future__ import annotations

import random

import pytest

from builder.analysis import judge

MODULE = '''
import warp as wp


@wp.func
def helper(x: float):
    return x * 2.0


@wp.kernel(enable_backward=False)
def scale(a: wp.array[float], s: float):
    """Scale in place."""
    i = wp.tid()  # one thread per element
    a[i] = helper(a[i]) * s


def factory(n):
    @wp.kernel
    def inner(b: wp.array[int]):
        b[wp.tid()] = n

    return inner


@wp.kernel
def declared(a: wp.array[float]): ...
'''


def test_kernels_are_cut_out_with_decorators_and_stubs_left_out():
    texts = judge.kernel_texts(MODULE)
    assert [t.splitlines()[1].split("(")[0] for t in texts] == ["def scale", "def inner"]
    assert texts[0].startswith("@wp.kernel(enable_backward=False)\n") and "# one thread" in texts[0]
    assert texts[1].startswith("@wp.kernel\ndef inner")  # dedented out of its factory
    assert judge.kernel_texts("def broken(:\n") == []


def test_names_numbers_and_strings_are_hidden_and_the_api_is_kept():
    text = judge.kernel_texts(MODULE)[0]
    norm = judge.normalized(text).split()
    assert {"scale", "helper", "a", "s", "i", "2.0"}.isdisjoint(norm)
    assert {"tid", "wp", "ID", "STR", "COMMENT", "NL", "INDENT", "float", "array"} <= set(norm)
    # renaming every identifier and changing every literal leaves the normalized text as it was
    renamed = text.replace("scale", "zz").replace("helper", "hh").replace("a[i]", "q[i]").replace("a: ", "q: ")
    assert judge.normalized(renamed) == judge.normalized(text)


def _kernels(rng: random.Random, style: str, n: int) -> list[str]:
    out = []
    for _ in range(n):
        name, k = f"k{rng.randrange(10**6)}", rng.randrange(1, 9)
        if style == "one_line":
            out.append(
                f"@wp.kernel\ndef {name}(a: wp.array[float], b: wp.array[float]):\n    i = wp.tid()\n"
                f"    b[i] = a[i] * {k}.0\n"
            )
        else:
            out.append(
                f"@wp.kernel\ndef {name}(\n    a: wp.array(dtype=float),\n    b: wp.array(dtype=float),\n):\n"
                f"    idx = wp.tid()\n    v0 = (a[idx] + {k}.0)\n    b[idx] = wp.sin(v0)\n"
            )
    return out


def test_auc_separates_styles_and_not_samples_of_one_style():
    rng = random.Random(0)
    one, other, more_of_one = (_kernels(rng, s, 40) for s in ("one_line", "per_line", "one_line"))
    assert judge.auc(one, other, seed=1) > 0.99
    assert judge.auc(one, more_of_one, seed=1) < 0.75  # the same generator: nothing but noise to learn
    assert judge.auc(one, other, seed=1) == judge.auc(one, other, seed=1)  # seeded folds and subsamples
    with pytest.raises(ValueError, match="at least 20 kernels a side"):
        judge.auc(one[:5], other)


def test_a_verdict_compares_with_the_median_of_the_other_projects():
    rng = random.Random(2)
    real = {"p": _kernels(rng, "one_line", 30), "q": _kernels(rng, "per_line", 30), "r": _kernels(rng, "one_line", 30)}
    verdicts = {v.project: v for v in judge.judge(_kernels(rng, "one_line", 30), real, seed=0)}
    assert set(verdicts) == {"p", "q", "r"} and set(verdicts["p"].others) == {"q", "r"}
    assert verdicts["p"].passes and verdicts["r"].passes  # as alike to them as they are to each other
    assert verdicts["q"].generated > 0.99 and verdicts["q"].median_others > 0.99


def test_the_seeds_table_gives_each_projects_margin_its_mean_and_its_passes():
    def verdict(project: str, generated: float, others: tuple[float, ...]) -> judge.Verdict:
        return judge.Verdict(project, 100, generated, {f"q{i}": a for i, a in enumerate(others)})

    by_seed = {
        7: [verdict("p", 0.95, (0.90, 0.96, 0.99)), verdict("r", 0.80, (0.70, 0.75, 0.79))],
        23: [verdict("p", 0.97, (0.90, 0.96, 0.99)), verdict("r", 0.60, (0.70, 0.75, 0.79))],
    }
    assert by_seed[7][0].margin == pytest.approx(0.01) and by_seed[23][1].margin == pytest.approx(0.15)
    rows = judge.seeds_table(by_seed).splitlines()
    assert rows[0] == "| project | seed 7 | seed 23 | mean | passes |"
    assert rows[2] == "| p | +0.01000 | -0.01000 | +0.00000 | 1 of 2 |"
    assert rows[3] == "| r | -0.05000 | +0.15000 | +0.05000 | 1 of 2 |"


def test_style_shares_read_the_cues():
    got = judge.style(judge.kernel_texts(MODULE))
    assert got["kernels"] == 2 and got["docstring_share"] == 0.5 and got["comment_share"] == 0.5
    assert got["helper_call_share"] == 0.5 and got["parameters_per_signature_line"] == 1.5
    assert judge.builtins_used(judge.kernel_texts(MODULE)) == {"tid": 2}


def test_parts_split_a_kernel_at_the_colon_that_ends_its_signature():
    text = judge.kernel_texts(MODULE)[0]
    whole, sig, body = (judge.normalized(text, part).split() for part in judge.PARTS)
    assert sig + body == whole
    assert sig[0] == "@" and sig[-3:] == ["float", ")", ":"]  # annotations' colons are inside the brackets
    assert body[:3] == ["NL", "INDENT", "STR"] and "def" not in body
    # two styles that differ only in their signatures: told apart by the signature, not by the body
    rng = random.Random(3)
    one = _kernels(rng, "one_line", 40)
    same_body = [
        t.replace("(a: wp.array[float], b: wp.array[float])", "(\n    a: wp.array(dtype=float),\n    b,\n)")
        for t in one
    ]
    rng.shuffle(same_body)
    assert judge.auc(one, same_body, seed=1, part="signature") > 0.99
    assert judge.auc(one, same_body, seed=1, part="body") < 0.75
    with pytest.raises(ValueError, match="unknown part"):
        judge.normalized(text, "tail")
