"""Stand-alone extraction of shipped kernels, and the real-vs-generated duplicate report."""

import re

from builder.grammar.policy import CATEGORIES
from builder.grammar.sample import sample
from builder.schema import columns, features
from builder.shipped.extract import extract, star_imports
from builder.shipped.launches import block_dim_in_source
from builder.shipped.overlap import decontaminate, normalized_sha256

MODULE = """import math

import numpy as np
import warp as wp

SCALE = wp.constant(2.0)
UNUSED = 7


@wp.struct
class Pair:
    a: float
    b: float


@wp.func
def helper(x: float) -> float:
    return x * SCALE


@wp.func
def other(x: float) -> float:
    return x


@wp.func_grad(helper)
def adj_helper(x: float, adj_ret: float):
    wp.adjoint[x] += adj_ret * SCALE


@wp.kernel(enable_backward=True)
def k(p: wp.array(dtype=Pair), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = helper(p[i].a) + float(math.pi)


def make():
    @wp.kernel
    def inner(a: wp.array(dtype=float), s: float):
        a[wp.tid()] = s * local_value

    return inner


if __name__ == "__main__":
    wp.launch_tiled(k, dim=1, inputs=[], block_dim=BLOCK)
"""


def test_extract_takes_what_the_kernel_reads_in_source_order():
    line = MODULE.splitlines().index("@wp.kernel(enable_backward=True)") + 1
    ex = extract(MODULE, "k", line)
    assert not ex.nested and ex.unresolved == ()
    src = ex.source
    assert src.startswith("import warp as wp\nimport math\n")
    order = [src.index(s) for s in ("SCALE = ", "class Pair", "def helper", "def adj_helper", "def k(")]
    assert order == sorted(order)
    assert "UNUSED" not in src and "def other" not in src and "numpy" not in src and "__main__" not in src
    compile(src, "k.py", "exec")


def test_nested_kernel_reports_names_local_to_its_function():
    line = MODULE.splitlines().index("    @wp.kernel") + 1
    ex = extract(MODULE, "inner", line)
    assert ex.nested and ex.unresolved == ("local_value",)
    assert "\n@wp.kernel\ndef inner(" in ex.source  # dedented


def test_block_dim_in_source_reads_constants():
    assert block_dim_in_source(MODULE.replace("block_dim=BLOCK", "block_dim=64"), "k") == 64
    assert block_dim_in_source("BLOCK = 32\n" + MODULE, "k") == 32
    assert block_dim_in_source(MODULE, "k") is None  # BLOCK is not defined: unknown
    assert block_dim_in_source(MODULE, "other") is None


def _generated(n):

    return [(f"gen/{i}", sample(0, "train", i, CATEGORIES).program.source) for i in range(n)]


def test_decontamination_finds_planted_duplicates_and_nothing_else():
    line = MODULE.splitlines().index("@wp.kernel(enable_backward=True)") + 1
    real = [("real/k", extract(MODULE, "k", line).source)]
    synthetic = _generated(12)
    clean = decontaminate(real, synthetic)
    assert clean.clean and (clean.real, clean.synthetic) == (1, 12)
    gen_id, gen_src = synthetic[3]
    kernel = re.findall(r"^def (\w+)\(", gen_src, re.M)[-1]  # the row's kernel, named nowhere else
    renamed = gen_src.replace(f"def {kernel}(", f"def renamed_{kernel}(")  # same normalized form
    one_line = gen_src.rstrip("\n") + "\n    planted = 1.0\n"  # a near duplicate: one line more
    report = decontaminate(
        [*real, ("real/copy", gen_src), ("real/renamed", renamed), ("real/near", one_line)], synthetic
    )
    assert report.exact_source == [("real/copy", gen_id)]
    assert ("real/renamed", gen_id) in report.exact_normalized
    assert any(r == "real/near" and g == gen_id for r, g, _ in report.near)
    assert normalized_sha256(renamed) == normalized_sha256(gen_src)


def test_each_config_has_only_the_columns_it_fills():
    assert "ptx" not in columns("cpu") and "gpu_match" not in columns("cpu")
    assert "ptx" in columns("cuda-backward") and "gpu_match" not in columns("cuda-forward")
    assert set(columns("gpu-verified")) >= {"gpu_match", "ptx", "executed"}
    real = columns("real")
    assert "source_path" in real and "executed" not in real and "seed" not in real and "gpu_driver" not in real
    assert list(features("real")) == list(real) and "source_path" not in columns("cuda-forward")


def test_factory_kernel_is_decorated_renamed_and_given_its_values():
    line = MODULE.splitlines().index("    @wp.kernel") + 1
    ex = extract(MODULE, "inner", line, bound={"local_value": "wp.float16"}, key="inner")
    assert ex.unresolved == () and "local_value = wp.float16\n\n\n@wp.kernel\ndef inner(" in ex.source
    plain = MODULE.replace("@wp.func\ndef other", "def other")
    line = plain.splitlines().index("def other(x: float) -> float:") + 1
    ex = extract(plain, "other", line, key="other_float32")  # made with wp.Kernel(other, key="other_float32")
    assert "\n@wp.kernel\ndef other_float32(x: float)" in ex.source


def test_examples_that_would_run_at_import_are_recognised():
    from builder.shipped.modules import runs_code_at_import

    assert runs_code_at_import(MODULE) == ""  # work only under if __name__ == "__main__"
    assert runs_code_at_import(MODULE + "wp.clear_kernel_cache()\n") == "calls clear_kernel_cache() at import"
    assert runs_code_at_import(MODULE + "for d in wp.get_devices():\n    pass\n") == "runs a top-level for at import"
    assert runs_code_at_import(MODULE + 'wp.set_module_options({"enable_backward": False})\n') == ""


CLASS_MODULE = '''import warp as wp

from .utils import lerp


class Mesh:
    """A mesh with kernels of its own."""

    LIMIT = 4

    @wp.func
    def _find(x: int) -> int:
        return wp.min(x, Mesh.LIMIT)

    @wp.func
    def _unused(x: int) -> int:
        return x

    def python_only(self):
        return 1

    @wp.kernel
    def _count(a: wp.array(dtype=int)):
        i = wp.tid()
        a[i] = Mesh._find(a[i]) + int(lerp(0.0, 1.0, 0.5))
'''


def test_class_bound_kernel_gets_a_stub_class_and_absolute_imports():
    line = CLASS_MODULE.splitlines().index("    @wp.kernel") + 1
    ex = extract(CLASS_MODULE, "_count", line, key="Mesh___count", package="warp._src.fem.geometry")
    assert ex.unresolved == () and ex.nested
    src = ex.source
    assert "from warp._src.fem.geometry.utils import lerp\n" in src and "from .utils" not in src
    assert "class Mesh:\n    LIMIT = 4\n" in src and "    def _find(x: int)" in src
    assert "_unused" not in src and "python_only" not in src and '"""A mesh' not in src
    assert src.rstrip().endswith("a[i] = Mesh._find(a[i]) + int(lerp(0.0, 1.0, 0.5))")
    assert "\n@wp.kernel\ndef Mesh___count(" in src
    compile(src, "k.py", "exec")


STAR_MODULE = """import warp as wp
from ..math import *
from .local import scale
from ..unused import *


@wp.kernel
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = smooth(a[wp.tid()]) * scale + not_found
"""


def test_names_a_star_import_brings_keep_the_star_imports_in_module_order():
    line = STAR_MODULE.splitlines().index("@wp.kernel") + 1
    alone = extract(STAR_MODULE, "k", line, package="sph.ops")
    # the syntax tree cannot tell which star import binds a name: unresolved, and no star import copied
    assert alone.unresolved == ("not_found", "smooth") and "import *" not in alone.source
    assert star_imports(STAR_MODULE, "sph.ops") == ["sph.math", "sph.unused"]
    ex = extract(STAR_MODULE, "k", line, package="sph.ops", starred=frozenset({"smooth"}))
    assert ex.unresolved == ("not_found",)  # only what the imported module showed a star import binds
    imports = ex.source.split("\n\n")[0].splitlines()
    assert imports == [
        "import warp as wp",
        "from sph.math import *",
        "from sph.ops.local import scale",
        "from sph.unused import *",
    ]
